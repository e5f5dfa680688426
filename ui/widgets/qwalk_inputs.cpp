#include "ui/widgets/qwalk_inputs.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSlider>
#include <cmath>
#include <optional>

#include "common/error.h"
#include "space/qwalk.h"

namespace opevo::ui {

// The walk last asked for on each parameter, by spec (two parameters of one spec have one
// graph), whichever page of a window asked: the Spaces panel's start and q are the Topology
// page's for the same parameter and back, as one user looking at one walk expects. One per
// top-level window, its child, so it goes with the window (another window, a test's next one,
// starts afresh). It tells the other pages' inputs as it changes.
class WalkMemory : public QObject {
  Q_OBJECT

 public:
  explicit WalkMemory(QObject* parent) : QObject(parent) {}
  static WalkMemory* of(QWidget* widget) {
    QWidget* top = widget->window();
    auto* memory = top->findChild<WalkMemory*>(QString(), Qt::FindDirectChildrenOnly);
    return memory ? memory : new WalkMemory(top);
  }
  struct Walk {
    QString start, q;
  };
  std::optional<Walk> find(const QString& spec) const {
    const auto it = m_walks.find(spec);
    if (it == m_walks.end()) return std::nullopt;
    return *it;
  }
  void remember(const QString& spec, const Walk& walk, const QObject* from) {
    m_walks[spec] = walk;
    emit remembered(spec, from);
  }

 signals:
  void remembered(const QString& spec, const QObject* from);

 private:
  QHash<QString, Walk> m_walks;
};

namespace {

constexpr int kSliderSteps = 100;

// A red frame points at the field a message is about, without touching what is typed in it.
void markInvalid(QLineEdit* edit, bool invalid) {
  edit->setStyleSheet(invalid ? QStringLiteral("QLineEdit { border: 2px solid #c62828; }")
                              : QString());
}

}  // namespace

QwalkInputs::QwalkInputs(const Names& names, QWidget* page)
    : QObject(page),
      m_start(new QLineEdit(page)),
      m_q(new QLineEdit(QStringLiteral("0.5"), page)),
      m_slider(new QSlider(Qt::Horizontal, page)) {
  m_start->setObjectName(names.start);
  m_start->setClearButtonEnabled(true);
  m_q->setObjectName(names.q);
  m_q->setPlaceholderText(tr("0 < q < 1"));
  m_q->setMaximumWidth(90);
  m_slider->setObjectName(names.slider);
  m_slider->setRange(1, kSliderSteps - 1);
  m_slider->setPageStep(10);
  m_slider->setValue(50);
  m_slider->setToolTip(
      tr("q from 0.01 to 0.99; type any value strictly between 0 and 1 beside it"));
  connect(m_start, &QLineEdit::textEdited, this, [this] {
    remember();
    emit changed();
  });
  connect(m_q, &QLineEdit::textEdited, this, &QwalkInputs::onQEdited);
  connect(m_slider, &QSlider::valueChanged, this, [this](int value) {
    if (m_syncingSlider) return;
    m_q->setText(QString::number(double(value) / kSliderSteps));
    remember();
    emit changed();
  });
}

void QwalkInputs::addRowsTo(QFormLayout* form) {
  auto* qRow = new QHBoxLayout;
  qRow->addWidget(m_q);
  qRow->addWidget(m_slider, 1);
  form->addRow(tr("S&tart vertex:"), m_start);
  auto* qLabel = new QLabel(tr("&q:"), m_start->parentWidget());
  qLabel->setBuddy(m_q);
  form->addRow(qLabel, qRow);
}

void QwalkInputs::addTo(QHBoxLayout* row) {
  QWidget* page = m_start->parentWidget();
  row->addWidget(new QLabel(tr("Start:"), page));
  row->addWidget(m_start, 1);
  row->addWidget(new QLabel(tr("q:"), page));
  row->addWidget(m_q);
  row->addWidget(m_slider, 2);
}

void QwalkInputs::setParameter(const ParameterPtr& param) {
  m_param = param;
  if (!m_param) {
    m_start->setPlaceholderText(QString());
    return;
  }
  const QString first = QString::fromStdString(m_param->format(m_param->first()));
  m_start->setPlaceholderText(first);
  // A start typed for another parameter means nothing here; one that still parses is kept.
  try {
    if (!m_start->text().trimmed().isEmpty()) m_param->parse(m_start->text().toStdString());
  } catch (const InputError&) {
    m_start->setText(first);
  }
  if (m_start->text().trimmed().isEmpty()) m_start->setText(first);
  adopt();
}

WalkMemory* QwalkInputs::memory() {
  // The page may have been put in its window since the last look: the memory is the window's.
  WalkMemory* memory = WalkMemory::of(m_start);
  if (memory != m_memory) {
    if (m_memory) disconnect(m_memory, nullptr, this, nullptr);
    m_memory = memory;
    connect(memory, &WalkMemory::remembered, this,
            [this](const QString& spec, const QObject* from) {
              if (from == this || !m_param || QString::fromStdString(m_param->spec()) != spec)
                return;
              if (adopt()) emit changed();
            });
  }
  return memory;
}

bool QwalkInputs::adopt() {
  const auto walk = memory()->find(QString::fromStdString(m_param->spec()));
  if (!walk || (walk->start == m_start->text() && walk->q == m_q->text())) return false;
  m_start->setText(walk->start);
  m_q->setText(walk->q);
  syncSlider(walk->q);
  return true;
}

void QwalkInputs::remember() {
  if (m_param)
    memory()->remember(QString::fromStdString(m_param->spec()), {m_start->text(), m_q->text()},
                       this);
}

void QwalkInputs::setStartText(const QString& text) {
  m_start->setText(text);
  remember();
  emit changed();
}

void QwalkInputs::setQText(const QString& text) {
  m_q->setText(text);
  onQEdited(text);
}

QString QwalkInputs::startText() const {
  return m_start->text();
}

void QwalkInputs::syncSlider(const QString& text) {
  bool ok = false;
  const double q = QLocale::c().toDouble(text.trimmed(), &ok);
  if (ok && q >= 0.01 && q <= 0.99) {
    m_syncingSlider = true;
    m_slider->setValue(static_cast<int>(std::lround(q * kSliderSteps)));
    m_syncingSlider = false;
  }
}

void QwalkInputs::onQEdited(const QString& text) {
  syncSlider(text);
  remember();
  emit changed();
}

std::optional<Vertex> QwalkInputs::start() const {
  if (!m_param) return std::nullopt;
  try {
    const QString text = m_start->text().trimmed();
    return text.isEmpty() ? m_param->first() : m_param->parse(text.toStdString());
  } catch (const InputError&) {
    return std::nullopt;
  }
}

void QwalkInputs::clearStart() {
  m_start->clear();
  markInvalid(m_start, false);
}

std::optional<QwalkInputs::Walk> QwalkInputs::read(QStringList& errors) const {
  Walk walk;
  bool good = true;
  bool qOk = false;
  walk.q = QLocale::c().toDouble(m_q->text().trimmed(), &qOk);
  try {
    if (!qOk)
      throw InputError(
          "q: '" + m_q->text().toStdString() +
          "' is not a number (accepted form: a number strictly between 0 and 1, such as 0.5)");
    checkMutationRate(walk.q);
    markInvalid(m_q, false);
  } catch (const InputError& e) {
    errors << QString::fromUtf8(e.what());
    markInvalid(m_q, true);
    good = false;
  }
  if (!m_param) {
    markInvalid(m_start, false);
    return std::nullopt;
  }
  try {
    const QString text = m_start->text().trimmed();
    walk.start = text.isEmpty() ? m_param->first() : m_param->parse(text.toStdString());
    markInvalid(m_start, false);
  } catch (const InputError& e) {
    errors << QString::fromUtf8(e.what());
    markInvalid(m_start, true);
    good = false;
  }
  if (!good) return std::nullopt;
  return walk;
}

}  // namespace opevo::ui

#include "qwalk_inputs.moc"
