#include "ui/pages/sweep_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>

#include "common/error.h"
#include "space/text.h"
#include "tuners/registry.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/heat_map_view.h"
#include "ui/widgets/message_label.h"
#include "ui/widgets/screen_fit.h"

namespace opevo::ui {
namespace {

const QString kNone = QObject::tr("(none)");

QString number(double v) {
  return QString::fromStdString(formatNumber(v));
}

}  // namespace

SweepDialog::SweepDialog(std::shared_ptr<const ReplayDataset> dataset, const QString& datasetName,
                         QWidget* parent)
    : QDialog(parent),
      m_dataset(std::move(dataset)),
      m_algorithm(new QComboBox(this)),
      m_setting{new QComboBox(this), new QComboBox(this)},
      m_values{new QLineEdit(this), new QLineEdit(this)},
      m_repeats(new QSpinBox(this)),
      m_trials(new QSpinBox(this)),
      m_at(new QSpinBox(this)),
      m_run(new QPushButton(tr("&Run sweep"), this)),
      m_saveSvg(new QPushButton(tr("SVG…"), this)),
      m_savePng(new QPushButton(tr("PNG…"), this)),
      m_message(makeMessageLabel(QStringLiteral("sweepMessage"), MessageKind::Error, this)),
      m_view(new HeatMapView(this)),
      m_progress(new QProgressBar(this)),
      m_poll(new QTimer(this)) {
  setObjectName(QStringLiteral("sweepDialog"));
  setWindowTitle(tr("Sweep: a hyper-parameter study on %1").arg(datasetName));
  for (const TunerInfo& t : tunerRegistry().all())
    m_algorithm->addItem(QString::fromStdString(t.name));
  m_algorithm->setCurrentText(QString::fromStdString(tunerRegistry().defaultTuner().name));
  for (int k = 0; k < 2; ++k) {
    m_values[k]->setPlaceholderText(tr("values, e.g. 0.1, 0.3, 0.5"));
    m_values[k]->setClearButtonEnabled(true);
  }
  m_repeats->setRange(1, 1000);
  m_repeats->setValue(10);
  m_trials->setRange(1, 100000);
  m_trials->setValue(100);
  m_at->setRange(1, 100000);
  m_at->setValue(100);
  m_at->setToolTip(tr("The budget the heat map shows: the best after this many trials"));

  auto* form = new QFormLayout;
  form->addRow(tr("Algorithm:"), m_algorithm);
  for (int k = 0; k < 2; ++k) {
    auto* row = new QHBoxLayout;
    row->addWidget(m_setting[k]);
    row->addWidget(m_values[k], 1);
    form->addRow(k == 0 ? tr("Rows:") : tr("Columns:"), row);
  }
  form->addRow(tr("Repeats:"), m_repeats);
  form->addRow(tr("Trials per run:"), m_trials);
  form->addRow(tr("Heat map at trial:"), m_at);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_run);
  buttons->addWidget(m_progress, 1);
  buttons->addStretch(1);
  buttons->addWidget(new QLabel(tr("Save:"), this));
  buttons->addWidget(m_saveSvg);
  buttons->addWidget(m_savePng);
  auto* close = new QDialogButtonBox(QDialogButtonBox::Close, this);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addLayout(buttons);
  layout->addWidget(m_message);
  layout->addWidget(m_view, 1);
  layout->addWidget(close);
  m_saveSvg->setEnabled(false);
  m_savePng->setEnabled(false);
  m_progress->setObjectName(QStringLiteral("sweepProgress"));
  m_progress->setRange(0, 1000);
  m_progress->hide();
  m_poll->setInterval(200);
  connect(m_poll, &QTimer::timeout, this, [this] {
    if (!m_control) return;
    const long long planned = m_control->trialsPlanned;
    if (planned > 0) m_progress->setValue(static_cast<int>(1000 * m_control->trialsDone / planned));
  });

  fillSettings();
  connect(m_algorithm, &QComboBox::currentTextChanged, this, &SweepDialog::fillSettings);
  for (int k = 0; k < 2; ++k)
    connect(m_setting[k], &QComboBox::currentIndexChanged, this, [this, k] { suggestValues(k); });
  connect(m_trials, &QSpinBox::valueChanged, this, [this](int t) { m_at->setValue(t); });
  connect(m_run, &QPushButton::clicked, this, &SweepDialog::run);
  connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_saveSvg, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save heat map as SVG"), QStringLiteral("heatmap.svg"), tr("SVG (*.svg)"));
    if (!path.isEmpty()) showMessage(m_message, saveSvg(path));
  });
  connect(m_savePng, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save heat map as PNG"), QStringLiteral("heatmap.png"), tr("PNG (*.png)"));
    if (!path.isEmpty()) showMessage(m_message, savePng(path));
  });
  resizeToFit(this, QSize(640, 560));
}

// The chosen algorithm's settings on both axes: q and lambda (or its first two) to start with.
void SweepDialog::fillSettings() {
  const TunerInfo* info = tunerRegistry().find(m_algorithm->currentText().toStdString());
  for (int k = 0; k < 2; ++k) {
    QSignalBlocker block(m_setting[k]);
    m_setting[k]->clear();
    if (k == 1) m_setting[k]->addItem(kNone);
    if (!info) continue;
    const TunerSettings defaults = info->defaults();  // all() refers into it
    for (const SettingInfo& s : defaults.all())
      m_setting[k]->addItem(QString::fromStdString(s.name));
  }
  auto choose = [this](int k, const char* preferred, int fallback) {
    const int at = m_setting[k]->findText(QString::fromLatin1(preferred));
    m_setting[k]->setCurrentIndex(at >= 0 ? at : std::min(fallback, m_setting[k]->count() - 1));
  };
  choose(0, "q", 0);
  choose(1, "lambda", 0);
  suggestValues(0);
  suggestValues(1);
}

// Values to start from: five across a [0, 1] setting's range, else half, the default and double.
void SweepDialog::suggestValues(int axis) {
  const TunerInfo* info = tunerRegistry().find(m_algorithm->currentText().toStdString());
  const std::string name = m_setting[axis]->currentText().toStdString();
  m_values[axis]->setEnabled(m_setting[axis]->currentText() != kNone);
  m_values[axis]->clear();
  if (!info) return;
  const TunerSettings defaults = info->defaults();  // all() refers into it
  for (const SettingInfo& s : defaults.all()) {
    if (s.name != name) continue;
    QStringList values;
    if (!s.integer && s.min >= 0 && s.max <= 1) {
      for (double v : {0.1, 0.3, 0.5, 0.7, 0.9}) values << number(v);
    } else {
      for (double v : {s.value / 2, s.value, s.value * 2}) {
        if (s.integer) v = std::round(v);
        if (v >= s.min && v <= s.max && !values.contains(number(v))) values << number(v);
      }
    }
    m_values[axis]->setText(values.join(QStringLiteral(", ")));
  }
}

void SweepDialog::setAlgorithm(const QString& name) {
  m_algorithm->setCurrentText(name);
}

void SweepDialog::setAxis(int axis, const QString& setting, const QString& values) {
  m_setting[axis]->setCurrentText(setting.isEmpty() ? kNone : setting);
  m_values[axis]->setText(values);
}

void SweepDialog::setRepeats(int repeats) {
  m_repeats->setValue(repeats);
}
void SweepDialog::setTrials(int trials) {
  m_trials->setValue(trials);
}
void SweepDialog::setShownAt(int trials) {
  m_at->setValue(trials);
}

std::optional<SweepPlan> SweepDialog::plan(QString* error) const {
  SweepPlan plan;
  plan.algorithm = m_algorithm->currentText().toStdString();
  for (int k = 0; k < 2; ++k) {
    if (m_setting[k]->currentText() == kNone || m_setting[k]->count() == 0) continue;
    SweepAxis axis{m_setting[k]->currentText().toStdString(), {}};
    for (const QString& v : m_values[k]->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
      if (!v.trimmed().isEmpty()) axis.values.push_back(v.trimmed().toStdString());
    if (axis.values.empty()) {
      *error = tr("Give %1 at least one value").arg(m_setting[k]->currentText());
      return std::nullopt;
    }
    plan.axes.push_back(std::move(axis));
  }
  plan.repeats = m_repeats->value();
  plan.budget.trials = m_trials->value();
  try {
    sweepRace(plan);  // the axes: the same checks as the CLI's, before anything runs
  } catch (const InputError& e) {
    *error = QString::fromStdString(e.what());
    return std::nullopt;
  }
  return plan;
}

SweepDialog::~SweepDialog() {
  if (m_control) m_control->stop = true;  // no one will read its result
}

void SweepDialog::run() {
  if (running()) {
    if (m_control) m_control->stop = true;
    return;
  }
  QString error;
  const std::optional<SweepPlan> p = plan(&error);
  if (!p) {
    showMessage(m_message, error);
    return;
  }
  showMessage(m_message, {});
  m_run->setText(tr("S&top"));
  m_progress->setValue(0);
  m_progress->show();
  // A cell's mean needs all its repeats: the map comes whole at the end, and says so meanwhile.
  m_view->setMap({});
  m_saveSvg->setEnabled(false);
  m_savePng->setEnabled(false);
  m_view->setPlaceholder(
      tr("Sweeping… the heat map appears once every cell has run all its "
         "repeats (the bar above shows how far)"));
  m_poll->start();
  m_control = std::make_shared<SweepControl>();
  // The job owns copies of what it reads (the dataset is shared and immutable).
  m_job.start(
      [dataset = m_dataset, plan = *p, at = m_at->value(), control = m_control]() -> Outcome {
        try {
          return {runReplaySweep(dataset, plan, at, nullptr, control.get()), {}};
        } catch (const std::exception& e) {
          return {std::nullopt, QString::fromStdString(e.what())};
        }
      },
      [this](Outcome outcome) { present(std::move(outcome)); });
}

void SweepDialog::present(Outcome outcome) {
  m_run->setText(tr("&Run sweep"));
  m_poll->stop();
  m_progress->hide();
  m_view->setPlaceholder(tr("Run a sweep to see its heat map"));
  m_control.reset();
  if (outcome.sweep && !outcome.sweep->failure.empty())
    outcome.error = QString::fromStdString(outcome.sweep->failure);
  if (outcome.sweep && outcome.sweep->stopped)
    outcome.error =
        tr("Stopped before the end: nothing to show (a partial sweep would compare "
           "cells at different numbers of repeats)");
  if (!outcome.error.isEmpty()) {
    showMessage(m_message, outcome.error);
  } else {
    m_view->setMap(outcome.sweep->map);
    m_saveSvg->setEnabled(true);
    m_savePng->setEnabled(true);
  }
  emit sweepFinished();
}

QString SweepDialog::saveSvg(const QString& path) const {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
    return tr("Cannot write %1: %2").arg(path, file.errorString());
  const std::string svg = heatMapSvg(m_view->map());
  if (file.write(svg.data(), static_cast<qint64>(svg.size())) != static_cast<qint64>(svg.size()))
    return tr("Cannot write %1: %2").arg(path, file.errorString());
  return {};
}

QString SweepDialog::savePng(const QString& path) const {
  return saveWidgetPng(m_view, path);
}

}  // namespace opevo::ui
