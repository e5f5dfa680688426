#include "ui/widgets/race_setup_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "backends/backend_factory.h"
#include "common/error.h"
#include "engine/speed_unit.h"
#include "layout/tuning_mode.h"
#include "ops/operator_json.h"
#include "ops/presets.h"
#include "tuners/registry.h"
#include "ui/controller/race_definition.h"
#include "ui/controller/resumed_race.h"
#include "ui/models/settings_model.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/cluster_race_option.h"
#include "ui/widgets/dataset_picker.h"

namespace opevo::ui {
namespace {

QWidget* row(QCheckBox* check, QWidget* field) {
  auto* w = new QWidget;
  auto* l = new QHBoxLayout(w);
  l->setContentsMargins(0, 0, 0, 0);
  l->addWidget(check);
  l->addWidget(field, 1);
  // The field is greyed while its budget is off, so what counts is visible at a glance.
  QObject::connect(check, &QCheckBox::toggled, field, &QWidget::setEnabled);
  field->setEnabled(check->isChecked());
  return w;
}

}  // namespace

RaceSetupPanel::RaceSetupPanel(QWidget* parent)
    : QWidget(parent),
      m_backend(new QComboBox(this)),
      m_cluster(new ClusterRaceOption(this)),
      m_operator(new QComboBox(this)),
      m_mode(new QComboBox(this)),
      m_datasetBox(new QGroupBox(tr("Dataset — a replay of real measurements"), this)),
      m_operatorBox(new QGroupBox(tr("Operator — measured for real on this machine"), this)),
      m_dataset(new DatasetPicker(this)),
      m_algorithms(new AlgorithmPanel(this)),
      m_repeats(new QSpinBox(this)),
      m_seed(new QSpinBox(this)),
      m_schedule(new QComboBox(this)),
      m_useTrials(new QCheckBox(tr("Trials"), this)),
      m_trials(new QSpinBox(this)),
      m_useSeconds(new QCheckBox(tr("Time"), this)),
      m_seconds(new QDoubleSpinBox(this)),
      m_useTarget(new QCheckBox(tr("Target"), this)),
      m_target(new QDoubleSpinBox(this)),
      m_pace(new QSpinBox(this)) {
  m_backend->setObjectName(QStringLiteral("backendBox"));
  m_backend->addItem(tr("Replay of measured data"), QStringLiteral("replay"));
  m_backend->addItem(tr("CPU (this machine)"), QStringLiteral("cpu"));
  m_backend->addItem(tr("CUDA"), QStringLiteral("cuda"));
  m_backend->addItem(tr("HIP"), QStringLiteral("hip"));
  m_backend->setToolTip(
      tr("A replay races on measurements made before; a device backend "
         "compiles, verifies and times every configuration"));
  m_operator->setObjectName(QStringLiteral("operatorBox"));
  for (const std::string& name : presetNames()) {
    const QString n = QString::fromStdString(name);
    m_operator->addItem(n, n);
  }
  m_operator->setToolTip(tr("A preset, or an operator file (Browse…)"));
  m_mode->setObjectName(QStringLiteral("modeBox"));
  m_mode->addItem(tr("Loops over plain layouts"), QStringLiteral("loop"));
  m_mode->addItem(tr("Layouts and loops (ALT joint)"), QStringLiteral("joint"));
  m_mode->addItem(tr("Winograd's loops (convolutions)"), QStringLiteral("winograd"));
  m_mode->addItem(tr("Matrix-vector loops (few rows)"), QStringLiteral("matvec"));
  m_mode->addItem(tr("Loops against layouts and loops (both)"), QStringLiteral("loop+joint"));
  m_mode->addItem(tr("Direct loops against Winograd's (both)"), QStringLiteral("loop+winograd"));
  m_mode->setToolTip(tr(
      "Joint: each tensor's layout is tuned with the loops, in ALT's two stages (a share of "
      "the budget on layouts and loops, the rest on the loops of the best layout).\n"
      "Winograd: stride-1 convolutions with 2x2 to 5x5 kernels on the CPU, CUDA or HIP, computed "
      "tile by tile with fewer multiplications (e.g. F(4x4, 3x3), F(4x4, 5x5)).\n"
      "Matrix-vector: MatMuls with at most 16 rows of A and B stored m x k (dense layers at "
      "small batches), which read B once: warps stream its rows with vector loads.\n"
      "Both: the algorithms race in the two spaces at once, their runs taking turns on the "
      "device, so that drift falls on both alike; each curve is named by its space"));
  // A fresh form (no saved one, or --no-restore) races the default algorithm against the
  // paper's OpEvo, as `opevo compare` does.
  m_algorithms->setChecked(
      {QString::fromStdString(tunerRegistry().defaultTuner().name), QStringLiteral("opevo")});
  m_repeats->setObjectName(QStringLiteral("repeatsSpin"));
  m_repeats->setRange(1, 100);
  m_repeats->setValue(kReplayRepeats);
  m_seed->setObjectName(QStringLiteral("seedSpin"));
  m_seed->setRange(0, 1'000'000'000);
  m_seed->setValue(1);
  m_seed->setToolTip(tr("Repeat r uses seed + r for every algorithm, as opevo compare does"));
  m_schedule->setObjectName(QStringLiteral("scheduleBox"));
  m_schedule->addItem(tr("Round-robin"), static_cast<int>(Schedule::RoundRobin));
  // Short: at 800x600 the form has about 315 pixels, and a longer item widened it past that.
  m_schedule->addItem(tr("Shuffled (seeded)"), static_cast<int>(Schedule::Shuffle));
  m_schedule->setToolTip(
      tr("The runs take turns on the measurer batch by batch, so on a device "
         "drift (heat, other load) falls on every algorithm alike; shuffled: in an order drawn "
         "anew each round from the seed. Kept with the race: a resumed race goes on the same way"));
  m_useTrials->setObjectName(QStringLiteral("useTrials"));
  m_useTrials->setChecked(true);
  m_trials->setObjectName(QStringLiteral("trialsSpin"));
  m_trials->setRange(1, 1'000'000);
  m_trials->setValue(kReplayTrials);
  m_trials->setSuffix(tr(" per run"));
  m_useSeconds->setObjectName(QStringLiteral("useSeconds"));
  m_seconds->setObjectName(QStringLiteral("secondsSpin"));
  m_seconds->setRange(0.1, 86400);
  m_seconds->setValue(30);
  m_seconds->setSuffix(tr(" s per run"));
  // The clock is engine/budget.h's budgetClock: a replay's device time by its file.
  m_seconds->setToolTip(
      tr("Tuning time of each run; time spent paused does not count. On a replay: device time "
         "by the file (what its trials cost the device that measured it), at any pace"));
  m_useTarget->setObjectName(QStringLiteral("useTarget"));
  m_target->setObjectName(QStringLiteral("targetSpin"));
  // Ten million in any unit is past every dataset's optimum; 1e12 made the box, and with it the
  // form, too wide for an 800x600 screen once a unit suffix was added.
  m_target->setRange(0, 1e7);
  m_target->setDecimals(1);
  m_target->setToolTip(tr("A run ends when its best speed reaches this (the dataset's unit)"));
  m_pace->setObjectName(QStringLiteral("paceSpin"));
  m_pace->setRange(0, 2000);
  m_pace->setSuffix(tr(" ms per trial"));
  m_pace->setSpecialValueText(tr("as fast as possible"));
  m_pace->setToolTip(
      tr("A replay answers instantly; a pace spreads it out so the race can be "
         "watched. It counts as tuning time, not as the device time a replay's time "
         "budget counts."));

  auto* backendBox = new QGroupBox(tr("Measure on"), this);
  auto* backendColumn = new QVBoxLayout(backendBox);
  backendColumn->addWidget(m_backend);
  backendColumn->addWidget(m_cluster);
  (new QVBoxLayout(m_datasetBox))->addWidget(m_dataset);
  auto* browse = new QPushButton(tr("Browse…"), m_operatorBox);
  browse->setObjectName(QStringLiteral("browseOperator"));
  browse->setToolTip(tr("Open an operator file (JSON, see docs/operators.md)"));
  auto* operatorColumn = new QVBoxLayout(m_operatorBox);
  auto* operatorRow = new QHBoxLayout;
  operatorRow->addWidget(m_operator, 1);
  operatorRow->addWidget(browse);
  operatorColumn->addLayout(operatorRow);
  auto* modeRow = new QHBoxLayout;
  modeRow->addWidget(new QLabel(tr("Tune:"), m_operatorBox));
  modeRow->addWidget(m_mode, 1);
  operatorColumn->addLayout(modeRow);
  auto* algorithmBox = new QGroupBox(tr("Algorithms"), this);
  (new QVBoxLayout(algorithmBox))->addWidget(m_algorithms);
  // A spin box's size hint (from its range's longest value and suffix) is its minimum under the
  // default policy: with a dataset's "GFLOP/s" the budget rows widened the form past what an
  // 800x600 screen gives it. Preferred lets them shrink to what the value needs.
  for (QAbstractSpinBox* spin : std::initializer_list<QAbstractSpinBox*>{
           m_repeats, m_seed, m_trials, m_seconds, m_target, m_pace})
    spin->setSizePolicy(QSizePolicy::Preferred, spin->sizePolicy().verticalPolicy());
  auto* budgetBox = new QGroupBox(tr("Repeats and budget"), this);
  auto* form = new QFormLayout(budgetBox);
  form->addRow(tr("Repeats:"), m_repeats);
  form->addRow(tr("Seed:"), m_seed);
  form->addRow(tr("Turns:"), m_schedule);
  form->addRow(tr("Budget:"), row(m_useTrials, m_trials));
  form->addRow(QString(), row(m_useSeconds, m_seconds));
  form->addRow(QString(), row(m_useTarget, m_target));
  form->addRow(tr("Replay pace:"), m_pace);
  m_paceLabel = form->labelForField(m_pace);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(backendBox);
  layout->addWidget(m_datasetBox);
  layout->addWidget(m_operatorBox);
  layout->addWidget(algorithmBox);
  layout->addWidget(budgetBox);
  layout->addStretch(1);

  // The budget's fields were put into their rows after the rest of the form was made, which put
  // them last in the focus chain: Tab from "Replay pace" went back up to Trials. Top to bottom:
  QWidget* previous = m_repeats;
  for (QWidget* next :
       std::initializer_list<QWidget*>{m_seed, m_schedule, m_useTrials, m_trials, m_useSeconds,
                                       m_seconds, m_useTarget, m_target, m_pace}) {
    setTabOrder(previous, next);
    previous = next;
  }

  connect(browse, &QPushButton::clicked, this, &RaceSetupPanel::browseOperator);
  connect(m_backend, &QComboBox::currentIndexChanged, this, &RaceSetupPanel::showBackend);
  connect(m_cluster, &ClusterRaceOption::toggled, this, &RaceSetupPanel::showBackend);
  showBackend();
  connect(m_dataset, &DatasetPicker::loaded, this, [this](const auto& d) {
    // A target means something only on this dataset: start from 95% of its best.
    setTargetFor(d->path, d->speedUnit, d->bestSpeed * 0.95);
  });
}

std::optional<RaceSpec> RaceSetupPanel::spec(QString* problem) const {
  auto refuse = [&](const QString& text) -> std::optional<RaceSpec> {
    if (problem) *problem = text;
    return std::nullopt;
  };
  RaceSpec s;
  s.backend = backend().toStdString();
  s.cluster = m_cluster->target();
  // What is measured comes first: without it nothing else on the form means anything.
  std::vector<OperatorDefinition> defs;  // the operator in each space a device race tunes
  if (s.backend == "replay") {
    if (const QString problemText = datasetProblem(); !problemText.isEmpty())
      return refuse(problemText);
    s.dataset = m_dataset->dataset();
    s.paceMs = m_pace->value();
  } else {
    // On a cluster the agents bring the device; the cluster says what it lacks when it starts.
    const QString problemText = s.cluster ? QString() : deviceProblem(s.backend);
    if (!problemText.isEmpty()) return refuse(problemText);
    s.operatorRef = m_operator->currentData().toString().toStdString();
    if (s.operatorRef.empty()) return refuse(tr("Choose an operator to measure."));
    std::string mode = m_mode->currentData().toString().toStdString();
    // "loop+joint", "loop+winograd": the loops over plain layouts raced beside another space.
    if (const auto plus = mode.find('+'); plus != std::string::npos) {
      const std::string other = mode.substr(plus + 1);
      s.alsoIn.push_back(other == "winograd"
                             ? RaceSpace{layout::TuningMode::Loop, SpaceTarget::Winograd}
                             : RaceSpace{layout::TuningMode::Joint, SpaceTarget::Common});
      if (s.cluster) return refuse(acrossSpacesThroughTheCluster(AcrossSpacesRefusal::Form));
      mode = mode.substr(0, plus);
    }
    s.target = mode == "winograd" ? SpaceTarget::Winograd
               : mode == "matvec" ? SpaceTarget::MatVec
                                  : SpaceTarget::Common;
    for (const RaceSpace& space : racedSpaces(s))
      if (usesOwnTemplate(space.target) && !runsOwnTemplates(s.backend))
        return refuse(tr("%1 template runs on the CPU, CUDA and HIP: choose one, or tune the loops "
                         "over plain layouts on this backend.")
                          .arg(space.target == SpaceTarget::Winograd ? tr("Winograd's")
                                                                     : tr("The matrix-vector")));
    try {
      s.mode = usesOwnTemplate(s.target) ? layout::TuningMode::Loop
                                         : layout::parseTuningMode(mode, "mode");
      // Each space read now, so an operator one of them cannot take is refused before the race.
      for (const RaceSpace& space : racedSpaces(s))
        defs.push_back(raceDefinition(inSpace(s, space)));
    } catch (const std::exception& e) {
      return refuse(tr("The operator cannot be used: %1").arg(QString::fromUtf8(e.what())));
    }
  }
  s.algorithms = m_algorithms->choices();
  if (s.algorithms.empty()) return refuse(tr("Check at least one algorithm to race."));
  const QStringList settingErrors = m_algorithms->errors();
  if (!settingErrors.isEmpty())
    return refuse(
        tr("Fix the refused settings first:\n%1").arg(settingErrors.join(QLatin1Char('\n'))));
  if (!m_useTrials->isChecked() && !m_useSeconds->isChecked() && !m_useTarget->isChecked())
    return refuse(tr("Set a budget: a number of trials, a time, or a target speed."));
  s.repeats = m_repeats->value();
  s.seed = static_cast<std::uint64_t>(m_seed->value());
  s.schedule = static_cast<Schedule>(m_schedule->currentData().toInt());
  if (m_useTrials->isChecked()) s.trials = m_trials->value();
  if (m_useSeconds->isChecked()) s.seconds = m_seconds->value();
  if (m_useTarget->isChecked()) {
    if (!(m_target->value() > 0)) return refuse(tr("Set a target speed above 0, or untick it."));
    s.targetSpeed = m_target->value();
  }
  // Each tuner is built once here, as `opevo compare` does, so an algorithm that cannot handle
  // these parameters (G-BFS on numbers) is refused before anything runs, in every space raced.
  std::vector<const SearchSpace*> spaces;
  for (const OperatorDefinition& def : defs) spaces.push_back(&def.space);
  if (spaces.empty()) spaces.push_back(&s.dataset->space);
  for (const SearchSpace* space : spaces)
    for (const AlgorithmChoice& a : s.algorithms) {
      try {
        makeTuner(a.name, *space, s.seed, a.settings);
      } catch (const std::exception& e) {
        return refuse(tr("%1 cannot race on %2: %3")
                          .arg(QString::fromStdString(a.name),
                               defs.empty() ? tr("this dataset") : m_operator->currentText(),
                               QString::fromUtf8(e.what())));
      }
    }
  return s;
}

QString RaceSetupPanel::datasetProblem() const {
  if (m_dataset->loading())
    return tr("The dataset is still being read; start again when it is loaded.");
  // The field names the file that failed; replaying the one loaded before it would race a
  // dataset the form no longer shows.
  if (!m_dataset->error().isEmpty())
    return m_dataset->dataset()
               ? tr("The dataset chosen last did not load (said above); choose another, or load "
                    "%1 again to replay it.")
                     .arg(QFileInfo(QString::fromStdString(m_dataset->dataset()->path)).fileName())
               : tr("The dataset chosen did not load (said above); choose another.");
  if (!m_dataset->dataset())
    return tr(
        "Choose a dataset to replay first: Browse… for a Kernel Tuner cache or T4 "
        "file, or pick one of the bundled datasets.");
  return QString();
}

QString RaceSetupPanel::deviceProblem(const std::string& backend) const {
  const QString name = m_backend->currentText().section(QStringLiteral(" — "), 0, 0);
  if (!m_backends) return tr("Still looking for devices; start again in a moment.");
  QStringList available{tr("replay")};
  const BackendInfo* chosen = nullptr;
  for (const BackendInfo& b : *m_backends) {
    if (b.available) available << QString::fromStdString(b.name);
    if (b.name == backend) chosen = &b;
  }
  if (chosen && chosen->available) return QString();
  return tr("%1 is not available on this machine%2. Available here: %3.")
      .arg(name,
           chosen && !chosen->reason.empty()
               ? QStringLiteral(" (%1)").arg(QString::fromStdString(chosen->reason))
               : QString(),
           available.join(QStringLiteral(", ")));
}

QString RaceSetupPanel::backend() const {
  return m_backend->currentData().toString();
}

bool RaceSetupPanel::setBackend(const QString& name) {
  const int i = m_backend->findData(name);
  if (i < 0) return false;
  m_backend->setCurrentIndex(i);
  return true;
}

void RaceSetupPanel::setBackends(const std::vector<BackendInfo>& backends) {
  m_backends = backends;
  for (const BackendInfo& b : backends) {
    const int i = m_backend->findData(QString::fromStdString(b.name));
    if (i < 0) continue;
    QString tip;
    if (b.available) {
      QStringList devices;
      for (const DeviceInfo& d : b.devices) devices << QString::fromStdString(d.name);
      tip = QString::fromStdString(b.library) +
            (devices.isEmpty() ? QString()
                               : QStringLiteral(": ") + devices.join(QStringLiteral(", ")));
    } else {
      tip = tr("Not available: %1").arg(QString::fromStdString(b.reason));
    }
    m_backend->setItemData(i, tip, Qt::ToolTipRole);
    // Listed either way, so a user sees what the tool could do and why it cannot here.
    const QString base = m_backend->itemText(i).section(QStringLiteral(" — "), 0, 0);
    m_backend->setItemText(i, b.available ? base : tr("%1 — not available").arg(base));
  }
  emit backendsKnown();
}

void RaceSetupPanel::showBackend() {
  const bool replay = backend() == QLatin1String("replay");
  if (replay != m_replayShown && !m_keepBudget) {
    const auto swap = [](QSpinBox* spin, int from, int to) {
      if (spin->value() == from) spin->setValue(to);
    };
    if (!m_repeatsGiven)
      swap(m_repeats, replay ? kDeviceRepeats : kReplayRepeats,
           replay ? kReplayRepeats : kDeviceRepeats);
    if (!m_trialsGiven)
      swap(m_trials, replay ? kDeviceTrials : kReplayTrials,
           replay ? kReplayTrials : kDeviceTrials);
  }
  m_replayShown = replay;
  m_datasetBox->setVisible(replay);
  m_operatorBox->setVisible(!replay);
  m_operatorBox->setTitle(m_cluster->isChecked()
                              ? tr("Operator — measured for real by the cluster's agents")
                              : tr("Operator — measured for real on this machine"));
  m_pace->setVisible(replay);
  if (m_paceLabel) m_paceLabel->setVisible(replay);
  if (!replay) {
    const std::string b = backend().toStdString();
    setTargetFor(b, deviceSpeedUnit(b), 0);
  } else if (const auto d = m_dataset->dataset()) {
    setTargetFor(d->path, d->speedUnit, d->bestSpeed * 0.95);
  }
}

void RaceSetupPanel::setTargetFor(const std::string& source, const std::string& unit,
                                  double value) {
  if (source == m_targetSource) return;
  // A speed typed for one source means nothing for another (a replay's 12955.7 GFLOP/s once
  // stayed in the box, relabelled 12955.7 TFLOPS, for the CPU): the target starts over, unticked.
  m_targetSource = source;
  m_target->setSuffix(QStringLiteral(" ") + QString::fromStdString(unit));
  m_target->setValue(value);
  m_useTarget->setChecked(false);
}

void RaceSetupPanel::addOperatorFile(const QString& path) {
  if (setOperator(path)) return;
  m_operator->addItem(QFileInfo(path).fileName(), path);
  m_operator->setItemData(m_operator->count() - 1, path, Qt::ToolTipRole);
  m_operator->setCurrentIndex(m_operator->count() - 1);
}

bool RaceSetupPanel::setMode(const QString& mode) {
  const int i = m_mode->findData(mode);
  if (i < 0) return false;
  m_mode->setCurrentIndex(i);
  return true;
}

bool RaceSetupPanel::setOperator(const QString& presetOrPath) {
  const int i = m_operator->findData(presetOrPath);
  if (i < 0) return false;
  m_operator->setCurrentIndex(i);
  return true;
}

void RaceSetupPanel::browseOperator() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open operator file"), QString(),
                                                    tr("Operator files (*.json);;All files (*)"));
  if (!path.isEmpty()) addOperatorFile(path);
}

void RaceSetupPanel::setRepeats(int repeats) {
  m_repeatsGiven = true;
  m_repeats->setValue(repeats);
}
void RaceSetupPanel::setSeed(int seed) {
  m_seed->setValue(seed);
}
void RaceSetupPanel::setPaceMs(int ms) {
  m_pace->setValue(ms);
}

void RaceSetupPanel::setTrials(int trials) {
  m_trialsGiven = true;
  m_useTrials->setChecked(true);
  m_trials->setValue(trials);
}

void RaceSetupPanel::setSeconds(std::optional<double> seconds) {
  m_useSeconds->setChecked(seconds.has_value());
  if (seconds) m_seconds->setValue(*seconds);
}

void RaceSetupPanel::setTarget(std::optional<double> target) {
  m_useTarget->setChecked(target.has_value());
  if (target) m_target->setValue(*target);
}

void RaceSetupPanel::showResumed(const std::vector<RunRecord>& runs) {
  if (runs.empty()) return;
  const RunRecord& first = runs.front();
  setBackend(QString::fromStdString(first.backend));
  if (first.backend == "replay") {
    const auto op = nlohmann::json::parse(first.operatorJson, nullptr, false);
    const QString path = op.is_object() && op.contains("replay") && op["replay"].is_string()
                             ? QString::fromStdString(op["replay"].get<std::string>())
                             : QString();
    const auto loaded = m_dataset->dataset();
    if (!path.isEmpty() && (!loaded || QString::fromStdString(loaded->path) != path))
      m_dataset->load(path);
  } else {
    const QString name = QString::fromStdString(first.operatorName);
    // A preset, or a file listed here under its name; else the stored operator by name, which a
    // Start afterwards refuses with the reason rather than racing another operator.
    if (!setOperator(name)) {
      int listed = -1;
      for (int i = 0; i < m_operator->count() && listed < 0; ++i)
        if (m_operator->itemText(i) == name || m_operator->itemText(i) == name + ".json")
          listed = i;
      if (listed < 0) {
        m_operator->addItem(name, name);
        listed = m_operator->count() - 1;
      }
      m_operator->setCurrentIndex(listed);
    }
    // A race across spaces is shown as one: the loops first, as the form's items name them.
    QStringList modes;
    for (const RunRecord& r : runs)
      if (const QString mode = QString::fromStdString(layout::runModeName(r.operatorJson));
          !modes.contains(mode))
        modes << mode;
    std::stable_sort(modes.begin(), modes.end(), [](const QString& a, const QString& b) {
      return a == QLatin1String("loop") && b != QLatin1String("loop");
    });
    if (modes.size() < 2 || !setMode(modes.join(QLatin1Char('+'))))
      setMode(QString::fromStdString(layout::runModeName(first.operatorJson)));
  }
  const ResumedRace race = resumedRaceOf(runs);
  // The algorithms' own names: the race's curves may carry their space ("opevo (joint)").
  QStringList algorithms;
  for (const RunRecord& r : runs)
    if (!algorithms.contains(QString::fromStdString(r.algorithm)))
      algorithms << QString::fromStdString(r.algorithm);
  m_algorithms->setChecked(algorithms);
  m_repeats->setValue(race.repeats);
  // Repeat r was seeded seed + r.
  m_seed->setValue(static_cast<int>(first.seed - static_cast<std::uint64_t>(first.raceRepeat)));
  m_schedule->setCurrentIndex(
      std::max(0, m_schedule->findData(static_cast<int>(first.raceSchedule))));
  const StoredBudget budget = storedBudgetOf(first.budgetJson);
  m_useTrials->setChecked(budget.trials.has_value());
  if (budget.trials) m_trials->setValue(static_cast<int>(*budget.trials));
  setSeconds(budget.seconds);
  setTarget(budget.target);
}

void RaceSetupPanel::saveState(QSettings& settings) const {
  settings.beginGroup(QStringLiteral("race"));
  if (const auto d = m_dataset->dataset())
    settings.setValue(QStringLiteral("dataset"), QString::fromStdString(d->path));
  settings.setValue(QStringLiteral("backend"), backend());
  settings.setValue(QStringLiteral("operator"), m_operator->currentData().toString());
  settings.setValue(QStringLiteral("mode"), m_mode->currentData().toString());
  settings.setValue(QStringLiteral("algorithms"), m_algorithms->checkedNames());
  settings.setValue(QStringLiteral("repeats"), m_repeats->value());
  settings.setValue(QStringLiteral("seed"), m_seed->value());
  settings.setValue(QStringLiteral("schedule"), m_schedule->currentIndex());
  settings.setValue(QStringLiteral("useTrials"), m_useTrials->isChecked());
  settings.setValue(QStringLiteral("trials"), m_trials->value());
  settings.setValue(QStringLiteral("useSeconds"), m_useSeconds->isChecked());
  settings.setValue(QStringLiteral("seconds"), m_seconds->value());
  settings.setValue(QStringLiteral("pace"), m_pace->value());
  settings.remove(QStringLiteral("settings"));  // a value set back to its default is forgotten
  for (const QString& name : m_algorithms->algorithmNames()) {
    const SettingsModel* model = m_algorithms->settingsModel(name);
    for (const auto& [key, value] : model->changedValues())
      settings.setValue(QStringLiteral("settings/%1/%2").arg(name, QString::fromStdString(key)),
                        QString::fromStdString(value));
  }
  settings.endGroup();
}

void RaceSetupPanel::restoreState(QSettings& settings) {
  settings.beginGroup(QStringLiteral("race"));
  m_algorithms->setChecked(
      settings.value(QStringLiteral("algorithms"), m_algorithms->checkedNames()).toStringList());
  m_repeats->setValue(settings.value(QStringLiteral("repeats"), m_repeats->value()).toInt());
  m_seed->setValue(settings.value(QStringLiteral("seed"), m_seed->value()).toInt());
  m_schedule->setCurrentIndex(std::clamp(settings.value(QStringLiteral("schedule"), 0).toInt(), 0,
                                         m_schedule->count() - 1));
  m_useTrials->setChecked(settings.value(QStringLiteral("useTrials"), true).toBool());
  m_trials->setValue(settings.value(QStringLiteral("trials"), m_trials->value()).toInt());
  m_useSeconds->setChecked(settings.value(QStringLiteral("useSeconds"), false).toBool());
  m_seconds->setValue(settings.value(QStringLiteral("seconds"), m_seconds->value()).toDouble());
  m_pace->setValue(settings.value(QStringLiteral("pace"), m_pace->value()).toInt());
  settings.beginGroup(QStringLiteral("settings"));
  for (const QString& name : settings.childGroups()) {
    SettingsModel* model = m_algorithms->settingsModel(name);
    if (!model) continue;
    settings.beginGroup(name);
    for (const QString& key : settings.childKeys())
      model->setValueText(key, settings.value(key).toString());
    settings.endGroup();
  }
  settings.endGroup();
  m_keepBudget = true;
  setBackend(settings.value(QStringLiteral("backend"), QStringLiteral("replay")).toString());
  m_keepBudget = false;
  const QString op = settings.value(QStringLiteral("operator")).toString();
  if (!op.isEmpty() && !setOperator(op) && QFileInfo::exists(op)) addOperatorFile(op);
  setMode(settings.value(QStringLiteral("mode"), QStringLiteral("loop")).toString());
  const QString dataset = settings.value(QStringLiteral("dataset")).toString();
  settings.endGroup();
  if (!dataset.isEmpty()) m_dataset->load(dataset);
}

}  // namespace opevo::ui
