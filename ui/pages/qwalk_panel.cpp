#include "ui/pages/qwalk_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QTableView>
#include <QVBoxLayout>

#include "common/error.h"
#include "space/param_spec.h"
#include "space/qwalk.h"
#include "ui/jobs/qwalk_runner.h"
#include "ui/models/qwalk_model.h"
#include "ui/widgets/display_format.h"
#include "ui/widgets/loop_order_names.h"
#include "ui/widgets/qwalk_inputs.h"
#include "ui/widgets/table_view.h"

namespace opevo::ui {
namespace {

constexpr int kCustomItem = -1;  // item data of the "Custom spec" entry; others hold an index

QString fromStd(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QLineEdit* makeEdit(const QString& objectName, const QString& placeholder, QWidget* parent) {
  auto* edit = new QLineEdit(parent);
  edit->setObjectName(objectName);
  edit->setPlaceholderText(placeholder);
  edit->setClearButtonEnabled(true);
  return edit;
}

// A red frame points at the field a message is about, without touching what is typed in it.
void markInvalid(QLineEdit* edit, bool invalid) {
  edit->setStyleSheet(invalid ? QStringLiteral("QLineEdit { border: 2px solid #c62828; }")
                              : QString());
}

}  // namespace

QwalkPanel::QwalkPanel(QWidget* parent)
    : QWidget(parent),
      m_runner(new QwalkRunner(this)),
      m_model(new QwalkTableModel(this)),
      m_paramCombo(new QComboBox(this)),
      m_specEdit(makeEdit(QStringLiteral("specEdit"), fromStd(kSpecForms), this)),
      m_inputs(new QwalkInputs(
          {QStringLiteral("startEdit"), QStringLiteral("qEdit"), QStringLiteral("qSlider")}, this)),
      m_infoLabel(new QLabel(this)),
      m_errorLabel(new QLabel(this)),
      m_noteLabel(new QLabel(this)),
      m_table(makeTableView(m_model, QStringLiteral("distributionTable"), this)),
      m_totalLabel(new QLabel(this)) {
  m_paramCombo->setObjectName(QStringLiteral("paramCombo"));
  m_paramCombo->addItem(tr("Custom spec…"), kCustomItem);

  m_infoLabel->setObjectName(QStringLiteral("paramInfo"));
  m_infoLabel->setWordWrap(true);
  m_errorLabel->setObjectName(QStringLiteral("errorLabel"));
  m_errorLabel->setWordWrap(true);
  m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_errorLabel->setStyleSheet(QStringLiteral(
      "QLabel { color: #8e0000; background: #fdecea; border: 1px solid #e57373; padding: 6px; }"));
  m_errorLabel->hide();
  m_noteLabel->setObjectName(QStringLiteral("noteLabel"));
  m_noteLabel->setWordWrap(true);
  m_noteLabel->setStyleSheet(
      QStringLiteral("QLabel { background: #fff8e1; border: 1px solid #ffcc80; padding: 6px; }"));
  m_noteLabel->hide();
  m_totalLabel->setObjectName(QStringLiteral("totalLabel"));
  m_totalLabel->setWordWrap(true);

  m_table->horizontalHeader()->setSectionResizeMode(QwalkTableModel::VertexColumn,
                                                    QHeaderView::Stretch);

  auto* form = new QFormLayout;
  form->addRow(tr("&Parameter:"), m_paramCombo);
  form->addRow(tr("&Spec:"), m_specEdit);
  m_inputs->addRowsTo(form);

  auto* heading = new QLabel(
      tr("<b>q-random walk</b> &mdash; each step continues with probability q and moves to a "
         "uniformly chosen neighbour; the table is the exact distribution of where a walk from "
         "the start vertex stops."),
      this);
  heading->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(heading);
  layout->addLayout(form);
  layout->addWidget(m_infoLabel);
  layout->addWidget(m_errorLabel);
  layout->addWidget(m_noteLabel);
  layout->addWidget(m_table, 1);
  layout->addWidget(m_totalLabel);

  connect(m_paramCombo, &QComboBox::currentIndexChanged, this, [this] { onParameterChosen(); });
  connect(m_specEdit, &QLineEdit::textEdited, this, &QwalkPanel::onSpecEdited);
  connect(m_inputs, &QwalkInputs::changed, this, [this] { recompute(); });
  connect(m_runner, &QwalkRunner::finished, this, &QwalkPanel::showResult);

  onParameterChosen();
}

QwalkPanel::~QwalkPanel() = default;

bool QwalkPanel::busy() const {
  return m_runner->busy();
}

bool QwalkPanel::customChosen() const {
  return m_paramCombo->currentData().toInt() == kCustomItem;
}

QString QwalkPanel::parameterName() const {
  return customChosen() ? QString() : m_paramCombo->currentText();
}

void QwalkPanel::setParameters(std::vector<ParameterPtr> params,
                               std::shared_ptr<const OperatorDefinition> owner) {
  m_owner = std::move(owner);
  const bool keepCustom = customChosen() && !m_customSpec.trimmed().isEmpty();
  const QString previous =
      m_param && !customChosen() ? QString::fromStdString(m_param->name()) : QString();
  m_params = std::move(params);
  // No parameters (a file that failed to load): the custom spec must not start from the last
  // operator's parameter, whose table would stay up as if it were this operator's.
  if (m_params.empty() && !keepCustom) {
    m_param.reset();
    m_customSpec.clear();
    m_inputs->clearStart();  // nor its start vertex ("24,1" stayed up under the broken file)
  }
  {
    const QSignalBlocker blocker(m_paramCombo);
    m_paramCombo->clear();
    for (std::size_t i = 0; i < m_params.size(); ++i) {
      m_paramCombo->addItem(QString::fromStdString(m_params[i]->name()), static_cast<int>(i));
      m_paramCombo->setItemData(static_cast<int>(i), QString::fromStdString(m_params[i]->spec()),
                                Qt::ToolTipRole);
    }
    m_paramCombo->addItem(tr("Custom spec…"), kCustomItem);
    int index = keepCustom ? m_paramCombo->count() - 1 : 0;
    if (!keepCustom && !previous.isEmpty())
      index = std::max(0, m_paramCombo->findText(previous, Qt::MatchExactly));
    m_paramCombo->setCurrentIndex(index);
  }
  onParameterChosen();
}

bool QwalkPanel::selectParameter(const QString& name) {
  for (std::size_t i = 0; i < m_params.size(); ++i) {
    if (QString::fromStdString(m_params[i]->name()) == name) {
      m_paramCombo->setCurrentIndex(static_cast<int>(i));
      return true;
    }
  }
  return false;
}

void QwalkPanel::setCustomSpec(const QString& spec) {
  m_specEdit->setText(spec);
  onSpecEdited(spec);
}

void QwalkPanel::setStartText(const QString& text) {
  m_inputs->setStartText(text);
}

void QwalkPanel::setQText(const QString& text) {
  m_inputs->setQText(text);
}

void QwalkPanel::onParameterChosen() {
  if (customChosen()) {
    // Start the custom spec from the parameter being looked at, so it can be varied.
    if (m_customSpec.trimmed().isEmpty() && m_param)
      m_customSpec = QString::fromStdString(m_param->spec());
    m_specEdit->setText(m_customSpec);
    onSpecEdited(m_customSpec);
    return;
  }
  const auto index = static_cast<std::size_t>(m_paramCombo->currentData().toInt());
  m_specError.clear();
  markInvalid(m_specEdit, false);
  m_specEdit->setText(QString::fromStdString(m_params.at(index)->spec()));
  useParameter(m_params.at(index));
}

void QwalkPanel::onSpecEdited(const QString& text) {
  m_customSpec = text;
  if (!customChosen()) {
    // Editing a preset parameter's spec makes a custom parameter of it.
    const QSignalBlocker blocker(m_paramCombo);
    m_paramCombo->setCurrentIndex(m_paramCombo->count() - 1);
  }
  m_specError.clear();
  ParameterPtr param;
  if (!text.trimmed().isEmpty()) {
    try {
      param = makeParameter("", text.toStdString());
    } catch (const InputError& e) {
      m_specError = QString::fromUtf8(e.what());
    }
  }
  markInvalid(m_specEdit, !m_specError.isEmpty());
  useParameter(std::move(param));
}

void QwalkPanel::useParameter(ParameterPtr param) {
  m_param = std::move(param);
  emit parameterChanged(customChosen() ? QString() : m_paramCombo->currentText());
  m_inputs->setParameter(m_param);
  if (!m_param) {
    m_infoLabel->clear();
    recompute();
    return;
  }
  const QString first = QString::fromStdString(m_param->format(m_param->first()));
  QString info = tr("<b>%1</b>: %2 parameter, %3 vertices; first vertex %4")
                     .arg(QString::fromStdString(m_param->name()).toHtmlEscaped(),
                          fromStd(kindName(m_param->kind())),
                          groupDigits(m_param->size().toString()), first.toHtmlEscaped());
  // A loop order's vertices (2,0,1) are indices: which loop each one is.
  if (const QString loops =
          m_owner && !customChosen() ? loopOrderMeaning(*m_owner, *m_param) : QString();
      !loops.isEmpty())
    info += QStringLiteral("<br>") + loops.toHtmlEscaped();
  m_infoLabel->setText(info);
  recompute();
}

void QwalkPanel::recompute() {
  m_errors.clear();
  if (!m_specError.isEmpty()) m_errors << m_specError;

  const std::optional<QwalkInputs::Walk> walk = m_inputs->read(m_errors);
  showErrors();

  if (!m_param || !walk || !m_errors.isEmpty()) {
    m_runner->cancel();
    QString note;
    if (!m_param && m_errors.isEmpty())
      note = m_params.empty()
                 ? tr("The selected operator has no parameters to walk on (a file that did not "
                      "load: why is on the Space tab). Type a spec such as factor:8:3 to look at "
                      "one.")
                 : tr("Choose a parameter of the preset, or type a spec such as factor:8:3.");
    clearDistribution(note);
    return;
  }
  // core's limit, the one `opevo qwalk` has: the window computes whatever the CLI does.
  if (const QString why = walkTooLargeNote(*m_param); !why.isEmpty()) {
    m_runner->cancel();
    clearDistribution(why);
    return;
  }
  m_noteLabel->hide();
  // The table of the previous inputs stays until the new one is there (perm:9 takes seconds).
  m_totalLabel->setText(tr("Computing the distribution of %1 vertices…")
                            .arg(groupDigits(m_param->size().toString())));
  m_runner->request({m_param, walk->start, walk->q});
}

void QwalkPanel::showErrors() {
  m_errorLabel->setText(m_errors.join(QLatin1Char('\n')));
  m_errorLabel->setVisible(!m_errors.isEmpty());
}

void QwalkPanel::clearDistribution(const QString& note) {
  m_model->clear();
  m_noteLabel->setText(note);
  m_noteLabel->setVisible(!note.isEmpty());
  m_totalLabel->setText(m_errors.isEmpty() ? QString()
                                           : tr("No distribution until the input above is fixed."));
}

void QwalkPanel::showResult(const std::shared_ptr<const QwalkResult>& result) {
  if (!result->error.isEmpty()) {
    m_errors << result->error;
    showErrors();
    clearDistribution(QString());
    return;
  }
  m_model->setResult(result);
  const WalkDistribution& d = result->distribution;
  m_totalLabel->setText(
      tr("<b>Total</b>: %1 vertices from %2, q = %3, probability %4 (%5 %6)")
          .arg(groupDigits(std::to_string(d.graph.size())),
               QString::fromStdString(result->request.param->format(result->request.start))
                   .toHtmlEscaped(),
               QString::number(result->request.q), QString::number(result->total, 'f', 12))
          .arg(d.iterations)
          .arg(d.usedConjugateGradient ? tr("CG iterations") : tr("walk steps")));
  emit distributionShown();
}

}  // namespace opevo::ui
