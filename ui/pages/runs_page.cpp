#include "ui/pages/runs_page.h"

#include <QAction>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>

#include "engine/speed_unit.h"
#include "replay/replay_measurer.h"
#include "store/store.h"
#include "tuners/joint_layout_tuner.h"
#include "ui/charts/race_results_widget.h"
#include "ui/controller/race_data.h"
#include "ui/controller/race_definition.h"
#include "ui/controller/resumed_race.h"
#include "ui/models/settings_model.h"
#include "ui/models/trials_model.h"
#include "ui/pages/sweep_dialog.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/cluster_race_option.h"
#include "ui/widgets/dataset_picker.h"
#include "ui/widgets/form_scroll_area.h"
#include "ui/widgets/message_label.h"
#include "ui/widgets/race_setup_panel.h"
#include "ui/widgets/table_view.h"

namespace opevo::ui {
namespace {

QString duration(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  if (s >= 3600)
    return QStringLiteral("%1:%2:%3")
        .arg(s / 3600)
        .arg(s / 60 % 60, 2, 10, QLatin1Char('0'))
        .arg(s % 60, 2, 10, QLatin1Char('0'));
  return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

// Why the store at this path cannot record a race; empty when it can. Opened as the engine will
// open it, so Store's own checks decide (a file that is not SQLite, another application's, a newer
// schema, a read-only folder), in one place.
QString storeProblem(const std::string& path) {
  try {
    Store store(path);
    return {};
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
}

QToolButton* toolButton(QAction* action, QWidget* parent) {
  auto* b = new QToolButton(parent);
  b->setDefaultAction(action);
  b->setToolButtonStyle(Qt::ToolButtonTextOnly);
  b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  return b;
}

}  // namespace

RunsPage::RunsPage(QWidget* parent)
    : QWidget(parent),
      m_setup(new RaceSetupPanel(this)),
      m_controller(new EngineController(this)),
      m_data(new RaceData(this)),
      m_results(new RaceResultsWidget(m_data, this)),
      m_trialsModel(new TrialsModel(m_data, this)),
      m_filter(new TrialsFilterModel(this)),
      m_messageLabel(makeMessageLabel(QStringLiteral("runsMessage"), MessageKind::Error, this)),
      m_noteLabel(makeMessageLabel(QStringLiteral("runsNote"), MessageKind::Note, this)),
      m_startAction(new QAction(tr("&Start race"), this)),
      m_pauseAction(new QAction(tr("&Pause"), this)),
      m_stopAction(new QAction(tr("S&top"), this)),
      m_sweepAction(new QAction(tr("S&weep…"), this)),
      m_openDatasetAction(new QAction(tr("&Open dataset…"), this)),
      m_progress(new QProgressBar),
      m_etaLabel(new QLabel),
      m_datasetStatus(new QLabel),
      m_stallClock(new QTimer(this)) {
  m_stallClock->setInterval(1000);
  connect(m_stallClock, &QTimer::timeout, this, &RunsPage::showStall);
  m_filter->setSourceModel(m_trialsModel);
  m_startAction->setObjectName(QStringLiteral("startAction"));
  m_pauseAction->setObjectName(QStringLiteral("pauseAction"));
  m_stopAction->setObjectName(QStringLiteral("stopAction"));
  m_sweepAction->setObjectName(QStringLiteral("sweepAction"));
  m_sweepAction->setToolTip(
      tr("A hyper-parameter study of one algorithm on the loaded dataset, as a heat map"));
  m_openDatasetAction->setObjectName(QStringLiteral("openDatasetAction"));
  m_openDatasetAction->setShortcut(QKeySequence::Open);
  m_startAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  m_pauseAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
  m_stopAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
  for (QAction* a : {m_startAction, m_pauseAction, m_stopAction})
    a->setToolTip(QStringLiteral("%1 (%2)").arg(a->text().remove(QLatin1Char('&')),
                                                a->shortcut().toString(QKeySequence::NativeText)));
  m_progress->setObjectName(QStringLiteral("raceProgress"));
  m_progress->setRange(0, 1000);
  m_progress->setMinimumWidth(300);
  m_progress->setTextVisible(true);
  m_progress->hide();
  m_etaLabel->setObjectName(QStringLiteral("etaLabel"));
  m_datasetStatus->setObjectName(QStringLiteral("datasetStatus"));
  m_datasetStatus->setText(tr("No dataset"));

  // Left: the form, scrollable on a small screen, with the buttons always in view below it.
  auto* scroll = new FormScrollArea(m_setup, this);
  scroll->setObjectName(QStringLiteral("raceSetupScroll"));
  scroll->setFrameShape(QFrame::NoFrame);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(toolButton(m_startAction, this));
  buttons->addWidget(toolButton(m_pauseAction, this));
  buttons->addWidget(toolButton(m_stopAction, this));
  buttons->addWidget(toolButton(m_sweepAction, this));
  auto* left = new QWidget(this);
  left->setObjectName(QStringLiteral("raceSetup"));
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 4, 0);
  leftLayout->addWidget(scroll, 1);
  leftLayout->addWidget(m_messageLabel);
  leftLayout->addWidget(m_noteLabel);
  leftLayout->addLayout(buttons);

  auto* right = new QSplitter(Qt::Vertical, this);
  right->setObjectName(QStringLiteral("runsRightSplitter"));
  right->addWidget(m_results);
  right->addWidget(makeTrialsSection());
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);
  right->setChildrenCollapsible(false);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setObjectName(QStringLiteral("runsSplitter"));
  split->addWidget(left);
  split->addWidget(right);
  // Both sides give up room when the window is smaller than the 1280 pixels these sizes are for:
  // with the form's stretch at 0 the chart alone shrank, to its minimum on an 800x600 screen,
  // while the form kept 450 pixels. The form stops growing at a width its rows have use for.
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 2);
  split->setSizes({460, 820});
  left->setMaximumWidth(620);
  split->setChildrenCollapsible(false);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split);

  connect(m_startAction, &QAction::triggered, this, &RunsPage::start);
  connect(m_pauseAction, &QAction::triggered, this, &RunsPage::pauseOrResume);
  connect(m_stopAction, &QAction::triggered, this, &RunsPage::stop);
  connect(m_sweepAction, &QAction::triggered, this, &RunsPage::openSweep);
  connect(m_openDatasetAction, &QAction::triggered, m_setup->datasetPicker(),
          &DatasetPicker::browse);
  connect(m_controller, &EngineController::stateChanged, this, &RunsPage::onStateChanged);
  connect(m_controller, &EngineController::updated, this, &RunsPage::onUpdate);
  connect(m_controller, &EngineController::finished, this, &RunsPage::onFinished);
  connect(m_results, &RaceResultsWidget::message, this, &RunsPage::statusMessage);
  // Until a race runs, the status bar says what the form measures on: "No dataset" read as a
  // problem while Measure on was the CPU.
  const auto showIdleStatus = [this] {
    const auto d = m_setup->datasetPicker()->dataset();
    const bool cluster = m_setup->clusterOption()->target().has_value();
    m_datasetStatus->setText(m_setup->backend() != QLatin1String("replay")
                                 ? (cluster ? tr("%1: measures on the cluster's agents")
                                            : tr("%1: measures on this machine"))
                                       .arg(m_setup->backend())
                             : d ? QString::fromStdString(ReplayMeasurer(d).label()) +
                                       (cluster ? tr(" by the cluster's agents") : QString())
                                 : tr("No dataset"));
  };
  connect(m_setup->backendBox(), &QComboBox::currentIndexChanged, this, [this, showIdleStatus] {
    if (!m_controller->busy() && m_data->trialCount() == 0) showIdleStatus();
  });
  // After Disconnect it still read "... by the cluster's agents" (the last race's label).
  connect(m_setup->clusterOption(), &ClusterRaceOption::toggled, this, [this, showIdleStatus] {
    if (!m_controller->busy()) showIdleStatus();
  });
  connect(m_setup->datasetPicker(), &DatasetPicker::loaded, this, [this](const auto& d) {
    if (m_setup->backend() == QLatin1String("replay"))
      m_datasetStatus->setText(QString::fromStdString(ReplayMeasurer(d).label()));
    // "Choose a dataset first" stayed red beside the dataset just loaded: a refusal of the form
    // as it was goes once the form changes; the next Start says what, if anything, still stands.
    if (!m_refusal.isEmpty() && m_messageLabel->text() == m_refusal)
      showMessage(m_messageLabel, QString());
    m_refusal.clear();
  });
  for (QComboBox* box : {m_setup->backendBox(), m_setup->operatorBox()})
    connect(box, &QComboBox::currentIndexChanged, this, &RunsPage::showFormsFrame);
  connect(m_setup->clusterOption(), &ClusterRaceOption::toggled, this, &RunsPage::showFormsFrame);
  connect(m_setup->datasetPicker(), &DatasetPicker::loaded, this, &RunsPage::showFormsFrame);
  connect(m_setup->datasetPicker(), &DatasetPicker::failed, this, &RunsPage::showFormsFrame);
  showFormsFrame();
  onStateChanged(EngineController::State::Idle);
}

RunsPage::~RunsPage() = default;

QWidget* RunsPage::makeTrialsSection() {
  auto* section = new QWidget(this);
  m_trialsView = makeTableView(m_filter, QStringLiteral("trialsTable"), section);
  m_trialsView->setSortingEnabled(true);
  m_trialsView->sortByColumn(-1, Qt::AscendingOrder);  // arrival order until a header is clicked
  // ResizeToContents would measure every row at each insertion; fixed widths stay cheap.
  m_trialsView->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  m_trialsView->horizontalHeader()->setStretchLastSection(true);
  const int unit = m_trialsView->fontMetrics().horizontalAdvance(QLatin1Char('0'));
  // Order, algorithm, repeat, trial, speed, best, time, status, reason; the configuration
  // stretches.
  const int widths[] = {5, 9, 6, 5, 10, 10, 7, 12, 14, 0};
  for (int c = 0; c < TrialsModel::ColumnCount; ++c)
    if (widths[c] > 0) m_trialsView->setColumnWidth(c, unit * widths[c] + 12);
  m_filterColumn = new QComboBox(section);
  m_filterColumn->setObjectName(QStringLiteral("filterColumn"));
  m_filterColumn->addItem(tr("Any column"), -1);
  for (int c = 0; c < TrialsModel::ColumnCount; ++c)
    m_filterColumn->addItem(m_trialsModel->headerData(c, Qt::Horizontal).toString(), c);
  m_filterEdit = new QLineEdit(section);
  m_filterEdit->setObjectName(QStringLiteral("filterEdit"));
  m_filterEdit->setPlaceholderText(tr("Filter trials, e.g. autotvm or compile"));
  m_filterEdit->setClearButtonEnabled(true);
  m_countLabel = new QLabel(section);
  m_countLabel->setObjectName(QStringLiteral("trialCount"));
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("<b>Trials</b>"), section));
  bar->addWidget(m_filterColumn);
  bar->addWidget(m_filterEdit, 1);
  bar->addWidget(m_countLabel);
  auto* layout = new QVBoxLayout(section);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addWidget(m_trialsView, 1);
  // While the view is scrolled to the end, it follows the race as trials arrive.
  connect(m_filter, &QAbstractItemModel::rowsAboutToBeInserted, this, [this] {
    QScrollBar* bar = m_trialsView->verticalScrollBar();
    m_followTrials = bar->value() >= bar->maximum() - 2;
  });
  connect(m_filter, &QAbstractItemModel::rowsInserted, this, [this] {
    if (m_followTrials) m_trialsView->scrollToBottom();
  });
  const auto applyFilter = [this] {
    m_filter->setFilter(m_filterColumn->currentData().toInt(), m_filterEdit->text());
  };
  connect(m_filterEdit, &QLineEdit::textChanged, this, applyFilter);
  connect(m_filterColumn, &QComboBox::currentIndexChanged, this, applyFilter);
  const auto count = [this] {
    m_countLabel->setText(
        trialsCaption(m_data->trialCount(), m_trialsModel->rowCount(), m_filter->rowCount()));
  };
  connect(m_filter, &QAbstractItemModel::rowsInserted, this, count);
  connect(m_filter, &QAbstractItemModel::modelReset, this, count);
  connect(m_filter, &QAbstractItemModel::layoutChanged, this, count);
  connect(m_filter, &QAbstractItemModel::rowsRemoved, this, count);
  count();
  return section;
}

QString RunsPage::message() const {
  return m_messageLabel->isVisible() ? m_messageLabel->text() : QString();
}

QString RunsPage::note() const {
  return m_noteLabel->isVisible() ? m_noteLabel->text() : QString();
}

void RunsPage::setStorePath(const QString& path) {
  m_storePath = path;
  m_storeProblem.clear();
  checkStore();
}

void RunsPage::checkStore() {
  if (m_storePath.isEmpty()) {
    m_storeCheck.cancel();
    return;
  }
  // Off the GUI thread: opening checks the file's integrity. The problem found last stands until
  // the answer comes.
  m_storeCheck.start([path = m_storePath.toStdString()] { return storeProblem(path); },
                     [this](const QString& problem) { m_storeProblem = problem; });
}

bool RunsPage::start() {
  if (m_controller->busy()) return false;
  // A race the store cannot record would run to its end and only then say so (2,000 trials
  // measured and lost): refused before any trial, with the reason. A store found wrong is
  // checked again here, on this thread, as the user may just have put it right: a file that is
  // not SQLite fails at once; only a database another program holds can keep the window for
  // Store's busy wait.
  if (!m_storeProblem.isEmpty()) {
    m_storeCheck.cancel();
    m_storeProblem = storeProblem(m_storePath.toStdString());
  }
  if (!m_storeProblem.isEmpty()) {
    // Store's words start a clause ("database '…' is not …"); here they start a sentence.
    QString why = m_storeProblem;
    why[0] = why[0].toUpper();
    showMessage(m_messageLabel,
                tr("Not started: the race could not be recorded in the history. %1").arg(why));
    return false;
  }
  QString problem;
  std::optional<RaceSpec> spec = m_setup->spec(&problem);
  if (!spec) {
    refuse(problem);
    return false;
  }
  showMessage(m_messageLabel, QString());
  showMessage(m_noteLabel, QString());
  RaceData::Info info = formsFrame();
  info.algorithms = raceCurveNames(*spec);
  info.runs = raceCurveRuns(*spec);
  info.repeats = spec->repeats;
  if (spec->dataset) {
    m_measuredOperator.clear();
  } else {
    m_measuredOperator = m_setup->operatorBox()->currentText();
    // With a time budget the joint stage ends at a share of the time, or of the trials, whichever
    // comes first: no trial is known beforehand, and none is drawn.
    const std::vector<RaceSpace> spaces = racedSpaces(*spec);
    if (std::any_of(spaces.begin(), spaces.end(),
                    [](const RaceSpace& s) { return s.mode == layout::TuningMode::Joint; })) {
      const JointStagePlan plan = jointStagePlan(jointSettings(), spec->trials, spec->seconds);
      if (!plan.jointSeconds) info.stageBoundary = plan.jointTrials;
    }
  }
  return launch(std::move(*spec), std::move(info));
}

RaceData::Info RunsPage::formsFrame() const {
  RaceData::Info info;
  const QString backend = m_setup->backend();
  const QString op = m_setup->operatorBox()->currentText();
  const bool cluster = m_setup->clusterOption()->target().has_value();
  if (backend == QLatin1String("replay")) {
    info.plannedClock = RaceData::Clock::DeviceByFile;
    // A file that failed to load leaves the picker its previous dataset, which Start refuses.
    const auto dataset = m_setup->datasetPicker()->dataset();
    if (!dataset || !m_setup->datasetPicker()->error().isEmpty()) return info;
    info.speedUnit = QString::fromStdString(dataset->speedUnit);
    info.label = cluster ? tr("replay of %1 (%2) by the cluster's agents")
                               .arg(QFileInfo(QString::fromStdString(dataset->path)).fileName(),
                                    dataset->deviceName.empty()
                                        ? tr("device not named in the file")
                                        : QString::fromStdString(dataset->deviceName))
                         : QString::fromStdString(ReplayMeasurer(dataset).label());
    if (dataset->complete && dataset->bestSpeed > 0) info.optimum = dataset->bestSpeed;
  } else {
    info.speedUnit = QString::fromStdString(deviceSpeedUnit(backend.toStdString()));
    info.label = cluster ? tr("%1 on %2 agents of the cluster: real measurements").arg(op, backend)
                         : tr("%1 on %2: real measurements").arg(op, backend);
  }
  return info;
}

void RunsPage::showFormsFrame() {
  // Only over charts no race has drawn on: a race's curves, or the library's line a race with no
  // trial timed, stay until the next Start.
  if (m_controller->busy() || m_data->trialCount() > 0 || m_data->info().reference) return;
  m_data->reset(formsFrame());
}

bool RunsPage::resumeRun(const RunRecord& run, const std::vector<RunRecord>& raceMates) {
  if (m_controller->busy()) {
    showMessage(
        m_messageLabel,
        tr("A race is running; stop it or wait for it before resuming run %1.").arg(run.id));
    return false;
  }
  RaceSpec spec;
  spec.resumeRun = run.id;
  spec.newBudget = newBudgetOf({run});
  // A run goes on where the form says: through the cluster when it is checked.
  spec.cluster = m_setup->clusterOption()->target();
  m_measuredOperator.clear();
  RaceData::Info info;
  info.algorithms = resumedRaceOf({run}, raceMates).algorithms;
  info.speedUnit = QString::fromStdString(run.speedUnit);
  info.plannedClock = plannedClockOf({run});
  m_resumedRuns = {run};
  info.label =
      tr("run %1 resumed: %2 on %3")
          .arg(run.id)
          .arg(QString::fromStdString(run.operatorName), QString::fromStdString(run.device));
  showMessage(m_messageLabel, QString());
  showMessage(m_noteLabel, QString());
  return launch(std::move(spec), std::move(info));
}

bool RunsPage::resumeRace(const std::vector<RunRecord>& runs,
                          const std::vector<RunRecord>& raceMates) {
  if (runs.empty()) return false;
  if (runs.size() == 1) return resumeRun(runs.front(), raceMates);
  if (m_controller->busy()) {
    showMessage(
        m_messageLabel,
        tr("A race is running; stop it or wait for it before resuming %1 runs.").arg(runs.size()));
    return false;
  }
  RaceSpec spec;
  spec.resumeRun = runs.front().id;
  for (std::size_t i = 1; i < runs.size(); ++i) spec.resumeWith.push_back(runs[i].id);
  spec.newBudget = newBudgetOf(runs);
  spec.cluster = m_setup->clusterOption()->target();
  m_measuredOperator.clear();
  m_resumedRuns = runs;
  const ResumedRace race = resumedRaceOf(runs, raceMates);
  RaceData::Info info;
  info.algorithms = race.algorithms;
  info.repeats = race.repeats;
  info.speedUnit = QString::fromStdString(runs.front().speedUnit);
  info.plannedClock = plannedClockOf(runs);
  QStringList ids;
  for (const RunRecord& r : runs) ids << QString::number(r.id);
  info.label =
      tr("runs %1 resumed: %2 on %3")
          .arg(ids.join(QStringLiteral(", ")), QString::fromStdString(runs.front().operatorName),
               QString::fromStdString(runs.front().device));
  showMessage(m_messageLabel, QString());
  showMessage(m_noteLabel, QString());
  return launch(std::move(spec), std::move(info));
}

bool RunsPage::launch(RaceSpec spec, RaceData::Info info) {
  spec.storePath = m_storePath.toStdString();
  if (spec.resumeRun && spec.storePath.empty()) {
    showMessage(m_messageLabel, tr("There is no store to resume from."));
    return false;
  }
  info.storePath = m_storePath;
  m_stoppedUnrecorded = false;
  m_clusterRace = spec.cluster.has_value();
  m_resumedRun = spec.resumeRun;
  m_budgetTrials = spec.resumeRun ? std::nullopt : spec.trials;
  m_budgetSeconds = spec.resumeRun ? std::nullopt : spec.seconds;
  m_runsDone.clear();
  m_statusBefore = m_datasetStatus->text();
  QStringList ids;
  if (spec.resumeRun) ids << QString::number(*spec.resumeRun);
  for (const std::int64_t id : spec.resumeWith) ids << QString::number(id);
  m_resumedIds = ids.join(QStringLiteral(", "));
  m_resumedRaceSize = static_cast<int>(ids.size());
  m_pendingInfo.reset();
  if (spec.resumeRun) {
    m_pendingInfo = info;
  } else {
    m_data->reset(info);
    m_datasetStatus->setText(info.label);
  }
  m_progress->setValue(0);
  m_progress->setFormat(tr("starting…"));
  m_etaLabel->clear();
  return m_controller->start(std::move(spec));
}

SweepDialog* RunsPage::openSweep() {
  const auto dataset = m_setup->datasetPicker()->dataset();
  if (m_setup->backend() != QLatin1String("replay") || !dataset) {
    refuse(
        tr("A sweep replays a measured dataset: choose \"Replay\" under Measure on and load "
           "a dataset first."));
    return nullptr;
  }
  if (const QString problem = m_setup->datasetProblem(); !problem.isEmpty()) {
    refuse(problem);
    return nullptr;
  }
  showMessage(m_messageLabel, {});
  const QString name = QFileInfo(QString::fromStdString(dataset->path)).fileName();
  // One dialog for the page's life: closed, it is hidden, and Sweep… shows it again with what was
  // typed and the map it had (a new one each time lost an unsaved map).
  if (!m_sweepDialog) {
    m_sweepDialog = new SweepDialog(dataset, name, this);
    // The form's other settings of the swept algorithm are fixed in every cell, as a race with
    // them would run (the dialog once swept with the defaults whatever the form said).
    m_sweepDialog->setFixedSettings([this](const std::string& algorithm) {
      const SettingsModel* model =
          m_setup->algorithmPanel()->settingsModel(QString::fromStdString(algorithm));
      return model ? model->changedValues() : std::map<std::string, std::string>{};
    });
    connect(m_setup->algorithmPanel(), &AlgorithmPanel::changed, m_sweepDialog,
            &SweepDialog::refreshFixed);
  } else if (m_sweepDialogDataset != dataset) {
    m_sweepDialog->setDataset(dataset, name);
  }
  m_sweepDialogDataset = dataset;
  m_sweepDialog->show();
  m_sweepDialog->raise();
  m_sweepDialog->activateWindow();
  return m_sweepDialog;
}

void RunsPage::pauseOrResume() {
  if (m_controller->state() == EngineController::State::Paused)
    m_controller->resume();
  else
    m_controller->pause();
}

void RunsPage::stop() {
  m_controller->stop();
}

void RunsPage::onStateChanged(EngineController::State state) {
  using State = EngineController::State;
  const bool idle = state == State::Idle;
  m_startAction->setEnabled(idle);
  m_pauseAction->setEnabled(state == State::Running || state == State::Paused);
  m_pauseAction->setText(state == State::Paused ? tr("&Resume") : tr("&Pause"));
  m_stopAction->setEnabled(state == State::Running || state == State::Paused);
  // The form describes the race that runs; it is frozen meanwhile, and so is every other way
  // into it (Ctrl+O once renamed the replayed dataset mid-race) or into another race on it.
  m_setup->setEnabled(idle);
  m_openDatasetAction->setEnabled(idle);
  m_sweepAction->setEnabled(idle);
  m_progress->setVisible(!idle);
  if (state == State::Running) {
    m_sinceTrial.start();
    m_stallClock->start();
  } else {
    m_stallClock->stop();
  }
  if (state == State::Paused) m_etaLabel->setText(tr("paused"));
  if (state == State::Stopping) m_etaLabel->setText(tr("stopping…"));
}

void RunsPage::onUpdate(const EngineUpdatePtr& update) {
  if (m_pendingInfo && update->runsInHand()) {
    m_data->reset(*m_pendingInfo);
    // Short: the chart's title names the operator and device; at 1024 pixels the whole label
    // was cut in the status bar ("…resnet18_conv3_b1 on AMD E…").
    m_datasetStatus->setText(m_resumedRaceSize > 1 ? tr("runs %1 resumed").arg(m_resumedIds)
                                                   : tr("run %1 resumed").arg(m_resumedIds));
    m_pendingInfo.reset();
    // The greyed form shows the race that runs, and Start afterwards races it again.
    m_setup->showResumed(m_resumedRuns);
  }
  if (!update->measuring.isEmpty() && !m_measuredOperator.isEmpty()) {
    // The device's own description (model, threads, driver) replaces the provisional label.
    m_data->setLabel(tr("%1 on %2, real measurements").arg(m_measuredOperator, update->measuring));
    m_datasetStatus->setText(update->measuring);
  }
  if (update->reference) m_data->setReference(*update->reference);
  if (!update->notices.isEmpty()) {
    // The engine's notices come from a cluster (an outage, trials sent again) or from this
    // machine (it looks busy, its template is slow for the operator): only the former are the
    // cluster's to sign. Those of one update are all said: the last alone hid the others.
    const QString all = update->notices.join(QLatin1Char(' '));
    const QString notice = m_clusterRace ? tr("Cluster: %1").arg(all) : all;
    showMessage(m_noteLabel, notice);
    emit statusMessage(notice);
  }
  if (update->notStored) {
    m_data->setNotStored();
    // The store broke after it was checked: stopped at once rather than run unrecorded.
    if (!m_storePath.isEmpty() && m_controller->state() != EngineController::State::Stopping) {
      m_stoppedUnrecorded = true;
      m_controller->stop();
    }
  }
  if (!update->trials.empty()) m_sinceTrial.restart();
  m_data->append(update->trials);
  for (const TrialPoint& t : update->trials) {
    RunDone& run = m_runsDone[{t.algorithm, t.repeat}];
    run.trials = std::max(run.trials, t.seq);
    // What a new run's time budget counts: a replay's device time by the file, else its tuning
    // time. (A resumed replay on an old tuning-time budget has device time too, but a resume
    // sets no m_budgetSeconds, which alone reads this.)
    run.seconds = std::max(run.seconds, t.deviceSeconds.value_or(t.seconds));
  }
  for (const auto& [algorithm, repeat] : update->runsEnded) {
    m_data->finishRun(algorithm, repeat);
    m_runsDone[{algorithm, repeat}].ended = true;
  }
  const RaceProgress& p = update->progress;
  const double fraction = raceFraction(p);
  m_progress->setValue(static_cast<int>(fraction * 1000));
  // The percentage is the whole race's; beside one run's name it read as that run's (random at
  // 24 of 200 trials showed the race's 15%). Before the first trial names a run (a device's first
  // compile) there is no "now" yet.
  const QString percent = QString::number(fraction * 100, 'f', 0) + QLatin1Char('%');
  m_progress->setFormat(p.current.isEmpty() ? tr("%1 of the race; starting").arg(percent)
                                            : tr("%1 of the race; now %2").arg(percent, p.current));
  if (m_controller->state() == EngineController::State::Running &&
      (!m_sinceTrial.isValid() || m_sinceTrial.elapsed() < m_stallMs))
    m_etaLabel->setText(p.etaSeconds >= 0 ? tr("ETA %1").arg(duration(p.etaSeconds))
                                          : tr("run %1 of %2").arg(p.runsDone + 1).arg(p.runs));
}

void RunsPage::setStallMs(qint64 ms) {
  m_stallMs = ms;
  // Checked often enough that the label changes within a tenth of the wait past it.
  m_stallClock->setInterval(static_cast<int>(std::clamp<qint64>(ms / 10, 50, 1000)));
}

void RunsPage::showStall() {
  if (m_controller->state() != EngineController::State::Running || !m_sinceTrial.isValid() ||
      m_sinceTrial.elapsed() < m_stallMs)
    return;
  m_etaLabel->setText(tr("no trial for %1").arg(duration(double(m_sinceTrial.elapsed()) / 1000)));
}

void RunsPage::refuse(const QString& text) {
  m_refusal = text;
  showMessage(m_messageLabel, text);
}

double RunsPage::raceFraction(const RaceProgress& p) const {
  // A time budget: each run's share is its time (RunDone::seconds) over the budget, or its trials
  // over theirs when those end it first. By runs ended alone the bar sat at 0% while the ETA
  // counted down.
  if (m_budgetSeconds && *m_budgetSeconds > 0 && p.runs > 0) {
    double sum = 0;
    for (const auto& [key, run] : m_runsDone) {
      double f = run.ended ? 1.0 : run.seconds / *m_budgetSeconds;
      if (m_budgetTrials && *m_budgetTrials > 0)
        f = std::max(f, double(run.trials) / double(*m_budgetTrials));
      sum += std::min(f, 1.0);
    }
    return std::min(sum / p.runs, 1.0);
  }
  if (p.trialsPlanned > 0) return double(p.trialsDone) / double(p.trialsPlanned);
  return p.runs > 0 ? double(p.runsDone) / p.runs : 0;
}

void RunsPage::onFinished(const RaceOutcome& outcome) {
  m_data->finishAll();
  m_results->refreshNow();
  m_etaLabel->clear();
  const auto trials = m_data->trialCount();
  if (outcome.end == RaceOutcome::End::Refused) {
    // Nothing was measured: the status bar keeps what it showed. A refused resume never touched
    // the charts (ResumeWalk.ARefusedResumeIsARefusalAndLeavesTheChartAsItWas); a refused new
    // race had reset them to its own runs, which give way to the form's frame (they kept the
    // race's algorithms, label and clock, whatever the form said next).
    m_pendingInfo.reset();
    m_datasetStatus->setText(m_statusBefore);
    if (!m_resumedRun) showFormsFrame();
    const QString what = !m_resumedRun           ? tr("Not started")
                         : m_resumedRaceSize > 1 ? tr("Runs %1 not resumed").arg(m_resumedIds)
                                                 : tr("Run %1 not resumed").arg(*m_resumedRun);
    showMessage(m_messageLabel, tr("%1: %2").arg(what, outcome.message));
  } else if (outcome.end == RaceOutcome::End::Failed) {
    showMessage(m_messageLabel, tr("The race failed: %1").arg(outcome.message));
    // The status bar named the run as resumed while the page said it failed.
    if (m_resumedRun) m_datasetStatus->setText(tr("run %1 not resumed").arg(*m_resumedRun));
  } else if (m_stoppedUnrecorded) {
    showMessage(m_messageLabel, tr("Stopped after %1 trials: the race could not be recorded. %2")
                                    .arg(trials)
                                    .arg(outcome.message));
  } else {
    QString note = outcome.end == RaceOutcome::End::Stopped
                       ? tr("Race stopped after %1 trials.").arg(trials)
                       : tr("Race finished: %1 trials.").arg(trials);
    // The ratio `opevo tune` prints: the best kernels and the library timed in turns at the end.
    if (const auto& ref = m_data->info().reference; ref && ref->sideBySide) {
      QString side = sideBySideText(*ref->sideBySide, m_data->info().speedUnit);
      side[0] = side[0].toUpper();
      note += QLatin1Char(' ') + side + QLatin1Char('.');
    }
    if (!outcome.message.isEmpty()) note += QLatin1Char(' ') + outcome.message;
    showMessage(m_noteLabel, note);
  }
  emit statusMessage(m_noteLabel->isVisible() ? m_noteLabel->text() : message());
  checkStore();  // the next Start goes by the store as it is now
  emit raceEnded();
}

}  // namespace opevo::ui
