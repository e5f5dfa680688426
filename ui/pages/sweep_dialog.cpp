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
#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "engine/race.h"
#include "io/export_file.h"
#include "io/replay_dataset.h"
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
      m_datasetName(datasetName),
      m_algorithm(new QComboBox(this)),
      m_fixedLabel(new QLabel(this)),
      m_setting{new QComboBox(this), new QComboBox(this)},
      m_values{new QLineEdit(this), new QLineEdit(this)},
      m_repeats(new QSpinBox(this)),
      m_trials(new QSpinBox(this)),
      m_at(new QSpinBox(this)),
      m_seed(new QSpinBox(this)),
      m_run(new QPushButton(tr("&Run sweep"), this)),
      m_saveSvg(new QPushButton(tr("SVG…"), this)),
      m_savePng(new QPushButton(tr("PNG…"), this)),
      m_message(makeMessageLabel(QStringLiteral("sweepMessage"), MessageKind::Error, this)),
      m_note(makeMessageLabel(QStringLiteral("sweepNote"), MessageKind::Note, this)),
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
  m_at->setRange(1, 100);
  m_at->setValue(100);
  m_at->setToolTip(
      tr("The budget the heat map shows: the best after this many trials (changed after a "
         "sweep, the map is drawn again)"));
  m_seed->setRange(0, 1'000'000'000);
  m_seed->setValue(1);
  m_seed->setToolTip(tr("Repeat r uses seed + r in every cell, as opevo sweep --seed does"));
  m_fixedLabel->setObjectName(QStringLiteral("sweepFixed"));
  m_fixedLabel->setWordWrap(true);
  m_fixedLabel->setToolTip(
      tr("The Runs form's other settings of this algorithm: the same in every cell"));

  auto* form = new QFormLayout;
  form->addRow(tr("Algorithm:"), m_algorithm);
  form->addRow(tr("Other settings:"), m_fixedLabel);
  for (int k = 0; k < 2; ++k) {
    auto* row = new QHBoxLayout;
    row->addWidget(m_setting[k]);
    row->addWidget(m_values[k], 1);
    form->addRow(k == 0 ? tr("Rows:") : tr("Columns:"), row);
  }
  form->addRow(tr("Repeats:"), m_repeats);
  form->addRow(tr("Trials per run:"), m_trials);
  form->addRow(tr("Heat map at trial:"), m_at);
  form->addRow(tr("Seed:"), m_seed);
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
  layout->addWidget(m_note);
  layout->addWidget(m_view, 1);
  layout->addWidget(close);
  m_saveSvg->setEnabled(false);
  m_savePng->setEnabled(false);
  m_progress->setObjectName(QStringLiteral("sweepProgress"));
  m_progress->setRange(0, 1000);
  m_progress->hide();
  m_poll->setInterval(200);
  connect(m_poll, &QTimer::timeout, this, [this] {
    if (!m_control || m_repeatsPlanned < 1) return;
    // Each repeat races in an engine of its own: the bar is the repeats done and this one's part.
    // The job zeroes the trials before it moves the repeat on, and the repeat is read first here,
    // so no poll adds a whole repeat's trials to the next repeat; one that reads the repeat before
    // with no trials yet would draw the bar back, which the max keeps it from.
    const int repeat = m_control->repeat;
    const long long planned = m_control->control.trialsPlanned;
    const double part = planned > 0 ? double(m_control->control.trialsDone) / double(planned) : 0.0;
    const int value = static_cast<int>(1000 * (repeat + std::min(part, 1.0)) / m_repeatsPlanned);
    m_progress->setValue(std::max(value, m_progress->value()));
  });

  fillSettings();
  connect(m_algorithm, &QComboBox::currentTextChanged, this, &SweepDialog::fillSettings);
  for (int k = 0; k < 2; ++k)
    connect(m_setting[k], &QComboBox::currentIndexChanged, this, [this, k] {
      suggestValues(k);
      refreshFixed();
    });
  connect(m_trials, &QSpinBox::valueChanged, this, [this](int t) {
    m_at->setMaximum(t);
    m_at->setValue(t);
  });
  connect(m_at, &QSpinBox::valueChanged, this, &SweepDialog::redraw);
  connect(m_run, &QPushButton::clicked, this, &SweepDialog::run);
  // Closed, the dialog is hidden, not ended: the Runs page shows it again as it was.
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
  refreshFixed();
}

void SweepDialog::setFixedSettings(FixedSettings fixed) {
  m_fixed = std::move(fixed);
  refreshFixed();
}

// The form's settings of the algorithm, less those the sweep varies (each cell gives its own).
std::map<std::string, std::string> SweepDialog::fixedSettings() const {
  std::map<std::string, std::string> fixed;
  if (m_fixed) fixed = m_fixed(m_algorithm->currentText().toStdString());
  for (int k = 0; k < 2; ++k) fixed.erase(m_setting[k]->currentText().toStdString());
  return fixed;
}

void SweepDialog::refreshFixed() {
  QStringList shown;
  for (const auto& [name, value] : fixedSettings())
    shown << QString::fromStdString(name + "=" + value);
  m_fixedLabel->setText(shown.isEmpty()
                            ? tr("the defaults (the Runs form changes none of %1's others)")
                                  .arg(m_algorithm->currentText())
                            : tr("%1 (from the Runs form)").arg(shown.join(QLatin1Char(' '))));
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
void SweepDialog::setSeed(int seed) {
  m_seed->setValue(seed);
}

void SweepDialog::setDataset(std::shared_ptr<const ReplayDataset> dataset,
                             const QString& datasetName) {
  m_dataset = std::move(dataset);
  m_datasetName = datasetName;
  setWindowTitle(tr("Sweep: a hyper-parameter study on %1").arg(datasetName));
  redraw();  // the map shown says it is another dataset's
}

std::optional<SweepPlan> SweepDialog::plan(QString* error) const {
  SweepPlan plan;
  plan.algorithm = m_algorithm->currentText().toStdString();
  if (m_setting[0]->count() == 0) {
    *error = tr("%1 has no settings to sweep: choose an algorithm that has some")
                 .arg(m_algorithm->currentText());
    return std::nullopt;
  }
  for (int k = 0; k < 2; ++k) {
    if (m_setting[k]->currentText() == kNone) continue;
    SweepAxis axis{m_setting[k]->currentText().toStdString(), {}};
    // Every part kept, an empty one too: "0.2,,0.4" is refused naming it, not read as 0.2, 0.4.
    const QString text = m_values[k]->text().trimmed();
    if (!text.isEmpty())
      for (const QString& v : text.split(QLatin1Char(',')))
        axis.values.push_back(v.trimmed().toStdString());
    if (axis.values.empty()) {
      *error = tr("Give %1 at least one value").arg(m_setting[k]->currentText());
      return std::nullopt;
    }
    plan.axes.push_back(std::move(axis));
  }
  plan.fixed = fixedSettings();
  plan.repeats = m_repeats->value();
  plan.budget.trials = m_trials->value();
  plan.seed = static_cast<std::uint64_t>(m_seed->value());
  try {
    // The axes and every value as the algorithm reads it: the same checks as the CLI's, before
    // anything runs, so a refused sweep leaves the map shown as it was.
    sweepRace(plan);
    checkRepeatSeeds(plan.seed, plan.repeats);
  } catch (const InputError& e) {
    *error = QString::fromStdString(e.what());
    return std::nullopt;
  }
  return plan;
}

SweepDialog::~SweepDialog() {
  if (m_control) m_control->control.stop = true;  // no one will read its result
}

void SweepDialog::run() {
  if (running()) {
    if (m_control) m_control->control.stop = true;
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
  // The map shown stays until this sweep gives another (a sweep that fails or stops before a
  // repeat is done loses nothing); meanwhile the bar says how far it is.
  m_view->setPlaceholder(
      tr("Sweeping… the heat map appears when the sweep ends (the bar above shows how far); "
         "Stop shows the repeats every cell has completed"));
  m_repeatsPlanned = p->repeats;
  m_control = std::make_shared<Progress>();
  m_poll->start();
  // The job owns copies of what it reads (the dataset is shared and immutable).
  m_job.start(
      [dataset = m_dataset, name = m_datasetName, plan = *p, progress = m_control]() -> Outcome {
        try {
          Shown shown{plan, {}, {}, name};
          shown.trials = raceSweepByRepeats(
              plan,
              [&](const SweepPlan& one, int repeat) -> std::optional<std::vector<TrialRecord>> {
                if (progress->control.stop) return std::nullopt;
                // The last repeat's trials would count again in this one's part of the bar.
                progress->control.trialsDone = 0;
                progress->repeat = repeat;
                const ReplaySweep sweep = runReplaySweep(dataset, one, nullptr, &progress->control);
                if (!sweep.failure.empty()) throw std::runtime_error(sweep.failure);
                if (sweep.stopped) return std::nullopt;
                if (repeat == 0) {
                  shown.facts = {sweep.optimum, sweep.speedUnit, dataset->table.size()};
                  // The map's title names the dataset and what its optimum rests on, as the CLI's.
                  shown.facts.dataset = sweepDatasetName(dataset->path);
                  shown.facts.completeness = completenessName(dataset->completeness);
                }
                return sweep.trials;
              });
          if (shown.trials.repeatsDone == 0)
            return {std::nullopt,
                    tr("Stopped before every cell had run one repeat: nothing new to show")};
          return {std::move(shown), {}};
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
  showMessage(m_message, outcome.error);
  if (outcome.shown) {
    m_shown = std::move(outcome.shown);
    redraw();
  }
  emit sweepFinished();
}

void SweepDialog::redraw() {
  if (!m_shown) return;
  QStringList notes;
  const int trials = m_shown->plan.budget.trials.value_or(0);
  if (m_at->value() > trials) {
    // Drawn at a trial its runs never reached, the map would not be what the field says.
    notes << tr("The map is of the last sweep, %1 trials a run: run the sweep again to see trial "
                "%2")
                 .arg(trials)
                 .arg(m_at->value());
  } else {
    const SweepResult result =
        sweepResult(m_shown->plan, m_shown->trials.trials, m_shown->trials.repeatsDone,
                    m_at->value(), m_shown->facts);
    m_view->setMap(result.map);
    for (const std::string& n : result.notes) {
      QString text = QString::fromStdString(n);
      text[0] = text[0].toUpper();
      notes << text;
    }
  }
  if (m_shown->dataset != m_datasetName)
    notes
        << tr("The map is of %1, swept before %2 was loaded").arg(m_shown->dataset, m_datasetName);
  showMessage(m_note, notes.join(QStringLiteral(". ")));
  m_saveSvg->setEnabled(true);
  m_savePng->setEnabled(true);
}

QString SweepDialog::saveSvg(const QString& path) const {
  // All or nothing, with the reason: a full disk once left an empty file and no word.
  try {
    writeExportBytes(QFile::encodeName(path).toStdString(), heatMapSvg(m_view->map()));
    return {};
  } catch (const ExportWriteError& e) {
    return tr("Could not write %1: %2").arg(path, QString::fromStdString(e.reason()));
  }
}

QString SweepDialog::savePng(const QString& path) const {
  return saveWidgetPng(m_view, path);
}

}  // namespace opevo::ui
