#include "ui/pages/history_page.h"

#include <QDateTime>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QMessageBox>
#include <QMetaMethod>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "backends/stored_run.h"
#include "engine/measurement.h"
#include "engine/trial_failures.h"
#include "io/replay_completeness.h"
#include "io/replay_dataset.h"
#include "io/run_import.h"
#include "space/text.h"
#include "store/history.h"
#include "store/live_status.h"
#include "store/run_curves.h"
#include "store/store.h"
#include "ui/charts/race_chart_view.h"
#include "ui/charts/race_results_widget.h"
#include "ui/controller/engine_controller.h"
#include "ui/controller/race_data.h"
#include "ui/controller/resumed_race.h"
#include "ui/models/history_model.h"
#include "ui/widgets/kernel_export_dialog.h"
#include "ui/widgets/message_label.h"
#include "ui/widgets/more_trials_dialog.h"
#include "ui/widgets/read_only_tip.h"
#include "ui/widgets/split_layout.h"
#include "ui/widgets/table_view.h"

namespace opevo::ui {

struct HistoryPage::RunsJob {
  std::vector<RunRecord> runs;
  std::map<std::int64_t, RunTally> tallies;
  std::map<std::int64_t, QString> networks;  // a task run's network run
  bool readOnly = false;                     // Store::readOnly: this user cannot write it
  QString error;
};

struct HistoryPage::CurvesJob {
  RaceData::Info info;
  std::vector<TrialPoint> trials;
  int runs = 0;  // drawn
  QString note;  // what was selected and is not drawn, and why
  // Runs whose every trial failed, not drawn: "run 5: all 10 trials failed (...)".
  QStringList failed;
  QString error;
};

// Checked (what would go, or why not), or once confirmed, deleted.
struct HistoryPage::DeleteJob {
  RunDeletionCheck check;
  std::vector<RunAndTrials> deleted;
  QString error;
};

namespace {

// How many runs and trials: "run 3 (MM1, opevo, 300 trials)" for one, "2 runs and their 15
// trials" for more.
QString runsAndTrials(const std::vector<RunAndTrials>& runs) {
  if (runs.size() == 1) return QString::fromStdString(describeRun(runs.front()));
  int trials = 0;
  for (const RunAndTrials& r : runs) trials += r.trials;
  return QObject::tr("%1 and their %2")
      .arg(QString::fromStdString(counted(static_cast<long long>(runs.size()), "run", "runs")),
           QString::fromStdString(counted(trials, "trial", "trials")));
}

// The buttons' tooltips while they can act (updateButtons sets them again after a refusal).
QString resumeTip() {
  return QObject::tr(
      "Continue the selected runs, interrupted by a stop, a crash or a kill, to their budgets on "
      "the Runs page (a race's runs together): no stored trial is measured again");
}
QString moreTrialsTip() {
  return QObject::tr(
      "Give the selected finished run (a race's runs: together) a new total of trials: it goes "
      "on from its stored trials on the Runs page, in the same run");
}
QString exportTip() {
  return QObject::tr(
      "Preview the best kernel of the selected run (of several, the fastest) and export it with a "
      "self-checking host program");
}
QString deleteTip() {
  return QObject::tr(
      "Delete the selected runs and their trials from the database, after asking (Delete key). "
      "Runs being tuned now, and a network run's tasks, are not deleted.");
}

// With no run stored yet (a first start), where runs come from rather than how to pick them.
QString noneSelectedText(bool anyRuns) {
  if (!anyRuns)
    return QObject::tr(
        "No runs yet: start a race on the Runs page (Ctrl+3), or import a measured file (File > "
        "Import measured file…, Ctrl+I).");
  return QObject::tr("Select runs to draw their curves; a race's runs draw as bands.");
}

// "28, 78", or the first ten and how many more: a Ctrl+A over 300 runs would fill the page.
QString idList(const QStringList& ids) {
  constexpr int kNamed = 10;
  if (ids.size() <= kNamed) return ids.join(QStringLiteral(", "));
  return QObject::tr("%1 and %2 more")
      .arg(ids.mid(0, kNamed).join(QStringLiteral(", ")))
      .arg(ids.size() - kNamed);
}

// "run 5 not drawn: <why>" or "runs 5, 6 not drawn: <why>"; empty for none.
QString notDrawn(const QStringList& ids, const QString& why) {
  if (ids.isEmpty()) return {};
  return (ids.size() == 1 ? QObject::tr("run %1 not drawn: %2")
                          : QObject::tr("runs %1 not drawn: %2"))
      .arg(idList(ids), why);
}

// A complete dataset's best speed (its optimum), read once per version of the file: reading a
// dataset parses every configuration it holds (a third of a second for a GEMM's), and History
// read it again at every selection change. Empty when the file is not complete or not there
// (moved or deleted since: the curves are still worth seeing without the line).
std::optional<double> datasetOptimum(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<QList<QDateTime>, std::optional<double>>> known;
  // The file's time and its descriptions' (judgeCompleteness reads the first found): a
  // description added or changed beside a dataset decides whether its best is the optimum, and
  // was seen only after a restart.
  QList<QDateTime> modified{QFileInfo(QString::fromStdString(path)).lastModified()};
  for (const std::string& description : descriptionCandidates(path))
    modified << QFileInfo(QString::fromStdString(description)).lastModified();
  {
    std::lock_guard lock(mutex);
    if (const auto it = known.find(path); it != known.end() && it->second.first == modified)
      return it->second.second;
  }
  std::optional<double> optimum;
  try {
    const ReplayDataset d = loadReplayDataset(path);
    if (d.complete && d.bestSpeed > 0) optimum = d.bestSpeed;
  } catch (const std::exception&) {
  }
  std::lock_guard lock(mutex);
  known[path] = {modified, optimum};
  return optimum;
}

// The selected runs as one race: one algorithm per name, one repeat per run of it. Time is each
// run's stored tuning time (for runs stored before schema 2, wall-clock from the run's start).
// One chart is one experiment: the runs of `anchor` (the current run, else the oldest selected)'s
// problem, device and unit, in whichever spaces (sameProblem); the others are named in the note.
// Averaged together, runs of a GEMM and of a convolution on two GPUs made one "mean of the repeats"
// band.
HistoryPage::CurvesJob loadCurves(const std::string& path,
                                  const std::vector<HistoryModel::Row>& rows,
                                  std::int64_t anchorId) {
  HistoryPage::CurvesJob job;
  try {
    Store store(path, Store::Opening::ExistingOnly);
    job.info.storePath = QString::fromStdString(path);
    std::map<QString, int> repeats;
    int timed = 0;               // runs with a timing of the library
    std::int64_t fastestOf = 0;  // the run whose timing is drawn
    std::optional<SideBySideFigure> sideBySide;
    const auto anchorIt =
        std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.run.id == anchorId; });
    const RunRecord& anchor = anchorIt == rows.end() ? rows.front().run : anchorIt->run;
    // Runs of another operator, device or backend are left out: a band over them would read as
    // the spread of repeats, and no optimum or library line is right for all of them.
    QStringList otherExperiment;
    // One axis has one unit: runs of another (a T4 file's GFLOP/s beside its 1/ms) are left out,
    // and the caption says which, rather than draw them against a scale that is not theirs.
    QStringList otherUnit;
    std::optional<std::string> replay;  // the dataset of the drawn runs, for its optimum
    // The runs drawn, with their trials. Runs of the anchor's problem in another space (loops
    // alone beside ALT's layouts and loops, Winograd's template beside the direct one) are drawn
    // beside its own, each curve named by its space too where they differ (curveNames): ALT's
    // gain over loops alone, on one chart.
    std::vector<std::pair<const HistoryModel::Row*, std::vector<TrialRow>>> drawn;
    std::vector<const RunRecord*> drawnRuns;
    for (const HistoryModel::Row& row : rows) {
      const Comparison comparison = comparedWith(anchor, row.run);
      if (comparison != Comparison::Same) {
        (comparison == Comparison::OtherUnit ? otherUnit : otherExperiment)
            << QString::number(row.run.id);
        continue;
      }
      std::vector<TrialRow> trials = store.trials(row.run.id);
      if (const std::string failed = allFailedText(trials); !failed.empty()) {
        job.failed << QObject::tr("run %1: %2")
                          .arg(static_cast<qlonglong>(row.run.id))
                          .arg(QString::fromStdString(failed));
        continue;
      }
      drawnRuns.push_back(&row.run);
      drawn.emplace_back(&row, std::move(trials));
    }
    const std::vector<std::string> curves = curveNames(drawnRuns);
    std::vector<RunRecord> drawnCopies;
    for (const RunRecord* r : drawnRuns) drawnCopies.push_back(*r);
    job.info.plannedClock = plannedClockOf(drawnCopies);
    for (std::size_t d = 0; d < drawn.size(); ++d) {
      const HistoryModel::Row& row = *drawn[d].first;
      const std::vector<TrialRow>& trials = drawn[d].second;
      if (!replay) {
        // One operator: one dataset for every run drawn.
        const auto op = nlohmann::json::parse(row.run.operatorJson, nullptr, false);
        replay = op.is_object() && op.contains("replay") && op["replay"].is_string()
                     ? op["replay"].get<std::string>()
                     : std::string();
      }
      const QString algorithm = QString::fromStdString(curves[d]);
      job.info.speedUnit = QString::fromStdString(row.run.speedUnit);
      const QString label = QString::fromStdString(curvesTitle(row.run));
      // Runs of different labels (one operator's runs imported from several files): the
      // operator's name.
      job.info.label = job.info.label.isEmpty() || job.info.label == label
                           ? label
                           : QString::fromStdString(row.run.operatorName);
      // The fastest of the runs' timings of the library, as a live race keeps: a slow one
      // would flatter the kernels.
      if (row.run.referenceSpeed) {
        ++timed;
        if (!job.info.reference || job.info.reference->speed < *row.run.referenceSpeed) {
          job.info.reference = referenceLineOf(row.run.referenceLibrary, *row.run.referenceSpeed);
          fastestOf = row.run.id;
        }
      }
      // `opevo tune`'s side-by-side timing, kept with the run: the fastest kernel's.
      if (auto side = sideBySideOf(row.run.sideBySideJson, algorithm);
          side && (!sideBySide || sideBySide->bestSpeed < side->bestSpeed))
        sideBySide = std::move(side);
      ++job.runs;
      if (!job.info.algorithms.contains(algorithm)) job.info.algorithms << algorithm;
      const int a = static_cast<int>(job.info.algorithms.indexOf(algorithm));
      const int repeat = repeats[algorithm]++;
      for (TrialPoint& p : storedTrialPoints(row.run, trials, a, repeat))
        job.trials.push_back(std::move(p));
    }
    if (job.info.reference) job.info.reference->sideBySide = sideBySide;
    if (job.info.reference)
      job.info.reference->origin =
          timed > 1 ? QObject::tr("fastest stored of %1 runs, run %2's")
                          .arg(timed)
                          .arg(static_cast<qlonglong>(fastestOf))
                    : QObject::tr("stored with run %1").arg(static_cast<qlonglong>(fastestOf));
    for (const auto& [name, count] : repeats) job.info.repeats = std::max(job.info.repeats, count);
    QStringList notes;
    if (!otherExperiment.isEmpty())
      notes << notDrawn(otherExperiment, QString::fromStdString(otherProblemText(anchor)));
    if (!otherUnit.isEmpty())
      notes << notDrawn(otherUnit, QString::fromStdString(otherUnitText(anchor)));
    job.note = notes.join(QStringLiteral("; "));
    // The optimum line needs the dataset; it is drawn when the file is still where it was.
    if (replay && !replay->empty()) job.info.optimum = datasetOptimum(*replay);
  } catch (const std::exception& e) {
    job.error = QString::fromUtf8(e.what());
  }
  return job;
}

}  // namespace

HistoryPage::HistoryPage(QWidget* parent)
    : QWidget(parent),
      m_model(new HistoryModel(this)),
      m_data(new RaceData(this)),
      m_results(new RaceResultsWidget(m_data, this)),
      m_view(makeTableView(m_model, QStringLiteral("historyTable"), this)),
      m_info(new QLabel(this)),
      m_title(new QLabel(this)),
      m_error(makeMessageLabel(QStringLiteral("historyError"), MessageKind::Error, this)),
      m_resume(new QPushButton(tr("Resume run"), this)),
      m_moreTrials(new QPushButton(tr("More trials…"), this)),
      m_export(new QPushButton(tr("Export kernel…"), this)),
      m_delete(new QPushButton(tr("Delete…"), this)),
      m_selectRace(new QPushButton(tr("Select whole race"), this)),
      m_refresh(new QTimer(this)),
      m_showSelection(new QTimer(this)),
      m_curvesJob(LatestJob<CurvesJob>::Overlap::NewestWaits) {
  m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
  // Nothing selected, the charts draw no run: "No trials yet" read as if the store held none.
  for (RaceChartView* chart : {m_results->trialsChart(), m_results->timeChart()})
    chart->setNoRunNote(tr("No run selected"));
  // The model sorts its own rows (HistoryModel::sort): no proxy, so a row of the model is a row
  // of the view everywhere the page, its tests and opevo-studio's options use one.
  m_view->setSortingEnabled(true);
  m_view->sortByColumn(HistoryModel::IdColumn, Qt::DescendingOrder);
  m_view->installEventFilter(this);  // the Delete key
  // Every column as wide as its header and cells, scrolled sideways when the window is narrower:
  // at 1024 pixels a stretched "Measured on" read "easured c" and "AMD EPY…", and a long budget
  // pushed Status out of view.
  m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_view->horizontalHeader()->setStretchLastSection(false);
  m_info->setObjectName(QStringLiteral("historyInfo"));
  m_info->setWordWrap(true);
  m_info->setText(noneSelectedText(true));
  auto* reloadButton = new QPushButton(tr("Reload"), this);
  m_selectRace->setObjectName(QStringLiteral("selectRace"));
  auto* bar = new QHBoxLayout;
  m_title->setObjectName(QStringLiteral("historyTitle"));
  m_title->setText(tr("<b>Recorded runs</b>"));
  bar->addWidget(m_title);
  bar->addStretch(1);
  m_resume->setObjectName(QStringLiteral("resumeRun"));
  m_moreTrials->setObjectName(QStringLiteral("moreTrials"));
  m_export->setObjectName(QStringLiteral("exportKernel"));
  m_export->setToolTip(exportTip());
  m_delete->setObjectName(QStringLiteral("deleteRuns"));
  bar->addWidget(m_resume);
  bar->addWidget(m_moreTrials);
  bar->addWidget(m_export);
  bar->addWidget(m_delete);
  bar->addWidget(m_selectRace);
  bar->addWidget(reloadButton);
  auto* top = new QWidget(this);
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  topLayout->addLayout(bar);
  topLayout->addWidget(m_error);
  topLayout->addWidget(m_view, 1);
  topLayout->addWidget(m_info);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->setObjectName(QStringLiteral("historySplitter"));
  split->addWidget(top);
  split->addWidget(m_results);
  // The chart takes three fifths: at 1024x700 it showed about four runs under a chart twice its
  // height, and at half each the chart with a library's lines and their note had about 220
  // pixels, its x axis's title cut in half. Three fifths leave the table five rows or more.
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setChildrenCollapsible(false);
  // Version 1: the three fifths above (77f33a3). A split saved by a window before it kept the
  // chart as small as it was (ui/widgets/split_layout.h); bump it when the default changes again.
  setDefaultSplitVersion(split, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split);

  connect(reloadButton, &QPushButton::clicked, this, &HistoryPage::reload);
  connect(m_selectRace, &QPushButton::clicked, this, [this] { selectRace(actionRow()); });
  // Tab leaves the table for the page's buttons, in the order they are shown: it moved from cell
  // to cell, collapsing a selection of 50 runs to one, and never reached a button.
  m_view->setTabKeyNavigation(false);
  setTabOrder(m_view, m_resume);
  setTabOrder(m_resume, m_moreTrials);
  setTabOrder(m_moreTrials, m_export);
  setTabOrder(m_export, m_delete);
  setTabOrder(m_delete, m_selectRace);
  setTabOrder(m_selectRace, reloadButton);
  // The curves are read once the selection rests: ten Down presses, or a Shift+click over 24
  // rows, started a read each, and the reads filled the thread pool that Qt's painting shares
  // (a fill waits for a pool thread): the window froze for 3 s and 7 s until they were done.
  // One read at a time (NewestWaits): a selection changed meanwhile is read next.
  m_showSelection->setSingleShot(true);
  m_showSelection->setInterval(kSelectionRestMs);
  connect(m_showSelection, &QTimer::timeout, this, &HistoryPage::showSelected);
  connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, m_showSelection,
          qOverload<>(&QTimer::start));
  connect(m_results, &RaceResultsWidget::message, this, &HistoryPage::statusMessage);
  connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &HistoryPage::updateButtons);
  connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &HistoryPage::updateButtons);
  connect(m_model, &QAbstractItemModel::modelReset, this, &HistoryPage::updateButtons);
  connect(m_resume, &QPushButton::clicked, this, &HistoryPage::resumeSelected);
  connect(m_moreTrials, &QPushButton::clicked, this, &HistoryPage::moreTrialsForSelected);
  connect(m_export, &QPushButton::clicked, this, &HistoryPage::exportCurrent);
  connect(m_delete, &QPushButton::clicked, this, &HistoryPage::deleteSelected);
  m_refresh->setSingleShot(true);
  m_refresh->setInterval(kRefreshMs);
  connect(m_refresh, &QTimer::timeout, this, [this] {
    if (isVisible()) reload();
  });
  updateButtons();
}

const RunRecord* HistoryPage::currentRun() const {
  const QModelIndex index = m_view->currentIndex();
  if (!index.isValid() || index.row() >= m_model->rowCount()) return nullptr;
  return &m_model->row(index.row()).run;
}

bool HistoryPage::resumable(int row) const {
  // Statuses as they stand: a running run is being tuned (here or by another program), and one
  // whose program died reads interrupted, so it resumes. A network's task goes on with its
  // network (the Networks page), whose scheduler gives it its trials.
  const HistoryModel::Row& r = m_model->row(row);
  return !m_readOnly && r.network.isEmpty() && r.run.status != RunStatus::Finished &&
         r.run.status != RunStatus::Running;
}

bool HistoryPage::extendable(int row) const {
  const HistoryModel::Row& r = m_model->row(row);
  return !m_readOnly && r.network.isEmpty() && r.run.status == RunStatus::Finished &&
         !isImportedRun(r.run);
}

std::vector<RunRecord> HistoryPage::resumableSelection() const {
  std::vector<RunRecord> runs;
  for (const QModelIndex& index : m_view->selectionModel()->selectedRows())
    if (index.row() < m_model->rowCount() && resumable(index.row()))
      runs.push_back(m_model->row(index.row()).run);
  std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return runs;
}

void HistoryPage::updateButtons() {
  const QModelIndex index = m_view->currentIndex();
  // The current row acts only while it is selected: ctrl-deselected, it kept the focus frame and
  // Export and Resume acted on it though nothing was highlighted.
  const RunRecord* run =
      index.isValid() && m_view->selectionModel()->isRowSelected(index.row(), QModelIndex())
          ? currentRun()
          : nullptr;
  const QString network = run ? m_model->row(index.row()).network : QString();
  const auto several = static_cast<int>(resumableSelection().size());
  m_resume->setText(several > 1 ? tr("Resume %n runs", nullptr, several) : tr("Resume run"));
  m_resume->setEnabled(several > 1 || (run && resumable(index.row())));
  // A database this user cannot write (resumable and extendable say no to every row): each
  // button that writes says why it is off and what to do, where they were on and the store
  // refused them once clicked ("Delete run 2? This cannot be undone", then "open read-only").
  m_resume->setToolTip(
      m_readOnly ? readOnlyTip(m_storePath, tr("resume its runs"))
      : network.isEmpty() || several > 1
          ? resumeTip()
          : tr("A task of %1: resume the network on the Networks page").arg(network));
  // Finished runs only, every one selected: a race with some runs unfinished goes on with Resume.
  const QModelIndexList selected = m_view->selectionModel()->selectedRows();
  m_moreTrials->setEnabled(!selected.isEmpty() &&
                           std::all_of(selected.begin(), selected.end(), [this](const auto& i) {
                             return i.row() < m_model->rowCount() && extendable(i.row());
                           }));
  m_moreTrials->setToolTip(m_readOnly ? readOnlyTip(m_storePath, tr("give its runs more trials"))
                                      : moreTrialsTip());
  // A run with no trial has no kernel: the dialog said so only once opened.
  const int exported = exportRow();
  const bool noTrial = exported >= 0 && m_model->row(exported).tally.trials == 0;
  m_export->setEnabled(exported >= 0 && !noTrial);
  m_export->setToolTip(noTrial ? tr("Run %1 has no trial: no kernel to export")
                                     .arg(static_cast<qlonglong>(m_model->row(exported).run.id))
                               : exportTip());
  m_delete->setEnabled(!m_readOnly && m_view->selectionModel()->hasSelection());
  m_delete->setToolTip(m_readOnly ? readOnlyTip(m_storePath, tr("delete the runs")) : deleteTip());
  // It did nothing with no run selected, or on an empty table, and selected the one run again
  // for a run of no race.
  const int row = actionRow();
  const bool inRace = row >= 0 && m_model->row(row).run.raceId != 0;
  m_selectRace->setEnabled(inRace);
  m_selectRace->setToolTip(row < 0 || inRace
                               ? tr("Select every run of the race the current run belongs to")
                               : tr("Run %1 belongs to no race: it was tuned on its own")
                                     .arg(static_cast<qlonglong>(m_model->row(row).run.id)));
}

int HistoryPage::actionRow() const {
  const QModelIndex index = m_view->currentIndex();
  if (index.isValid() && m_view->selectionModel()->isRowSelected(index.row(), QModelIndex()))
    return index.row();
  const QModelIndexList rows = m_view->selectionModel()->selectedRows();
  const auto top = std::min_element(rows.begin(), rows.end(),
                                    [](const auto& a, const auto& b) { return a.row() < b.row(); });
  return top == rows.end() || top->row() >= m_model->rowCount() ? -1 : top->row();
}

std::vector<std::int64_t> HistoryPage::selectedIds() const {
  std::vector<std::int64_t> ids;
  for (const QModelIndex& index : m_view->selectionModel()->selectedRows())
    if (index.row() < m_model->rowCount()) ids.push_back(m_model->row(index.row()).run.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

bool HistoryPage::eventFilter(QObject* watched, QEvent* event) {
  // A filter, not a shortcut: a shortcut needs its window active, which an offscreen test's or a
  // window manager-less session's window may never be.
  if (watched == m_view && event->type() == QEvent::KeyPress) {
    const auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_Delete && key->modifiers() == Qt::NoModifier) {
      deleteSelected();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void HistoryPage::deleteSelected() {
  const std::vector<std::int64_t> ids = selectedIds();
  // One at a time: a new start would drop the result of the check or deletion in flight (its
  // dialog, or its message and reload).
  if (ids.empty() || m_storePath.isEmpty() || m_deleteJob.busy()) return;
  if (m_readOnly) {
    // The Delete key, which has no tooltip to read: said at once, nothing asked.
    showMessage(m_error, tr("Nothing deleted: %1.").arg(m_delete->toolTip()));
    return;
  }
  if (auto* open = findChild<QMessageBox*>(QStringLiteral("deleteRunsBox"))) {
    open->raise();  // one question at a time
    return;
  }
  // The store decides what may go (statuses as they stand now, which the rows may not show
  // yet): checked off the GUI thread, then asked about.
  m_deleteJob.start(
      [path = m_storePath.toStdString(), ids] {
        DeleteJob job;
        try {
          job.check = Store(path, Store::Opening::ExistingOnly).checkRunDeletion(ids);
        } catch (const std::exception& e) {
          job.error = QString::fromUtf8(e.what());
        }
        return job;
      },
      [this, ids](const DeleteJob& job) {
        if (!job.error.isEmpty()) {
          showMessage(m_error, tr("The runs cannot be deleted: %1").arg(job.error));
          return;
        }
        if (!job.check.refusals.empty()) {
          // "Run 5 is being tuned now (...): stop it, ...; nothing was deleted."
          QString why = QString::fromStdString(refusalText(job.check.refusals));
          why[0] = why[0].toUpper();
          showMessage(m_error, why + QLatin1Char('.'));
          return;
        }
        showMessage(m_error, QString());
        confirmDeletion(ids, job.check);
      });
}

void HistoryPage::confirmDeletion(const std::vector<std::int64_t>& ids,
                                  const RunDeletionCheck& check) {
  auto* box = new QMessageBox(
      QMessageBox::Warning, tr("Delete runs"),
      tr("Delete %1 from %2?").arg(runsAndTrials(check.runs), QFileInfo(m_storePath).fileName()),
      QMessageBox::Cancel, this);
  box->setObjectName(QStringLiteral("deleteRunsBox"));
  QStringList names;
  for (const RunAndTrials& r : check.runs)
    names << QString::fromStdString(describeRun(r)).toHtmlEscaped();
  constexpr int kNamed = 8;  // a longer list would push the buttons off the screen
  if (names.size() > kNamed) {
    const auto more = names.size() - kNamed;
    names.resize(kNamed);
    names << tr("and %1 more").arg(more);
  }
  box->setInformativeText(names.size() > 1 ? names.join(QStringLiteral("<br>")) +
                                                 tr("<br><br>This cannot be undone.")
                                           : tr("This cannot be undone."));
  QPushButton* remove = box->addButton(tr("Delete"), QMessageBox::DestructiveRole);
  remove->setObjectName(QStringLiteral("confirmDelete"));
  box->setDefaultButton(QMessageBox::Cancel);  // Enter keeps the runs
  box->setAttribute(Qt::WA_DeleteOnClose);
  connect(box, &QMessageBox::buttonClicked, this, [this, remove, ids](QAbstractButton* clicked) {
    if (clicked == remove) deleteRuns(ids);
  });
  box->open();
}

void HistoryPage::deleteRuns(const std::vector<std::int64_t>& ids) {
  m_deleteJob.start(
      [path = m_storePath.toStdString(), ids] {
        DeleteJob job;
        try {
          // Checked again inside its transaction: a run resumed since the question stays.
          job.deleted = Store(path, Store::Opening::ExistingOnly).deleteRuns(ids);
        } catch (const std::exception& e) {
          job.error = QString::fromUtf8(e.what());
        }
        return job;
      },
      [this](const DeleteJob& job) {
        if (!job.error.isEmpty())
          showMessage(m_error, tr("The runs cannot be deleted: %1.").arg(job.error));
        else
          emit statusMessage(tr("Deleted %1.").arg(runsAndTrials(job.deleted)));
        reload();
      });
}

void HistoryPage::resumeSelected() {
  const std::vector<RunRecord> runs = resumableSelection();
  if (runs.size() < 2) {
    // The one selected, not the current row (which may have been deselected).
    if (!runs.empty()) emit resumeRequested(runs.front());
    return;
  }
  // Every selected run goes on, or none: resuming the top one alone, silently, left the rest of
  // a killed race with no way on.
  if (const std::string why = whyNotOneRace(runs); !why.empty()) {
    showMessage(
        m_error,
        tr("The selected runs cannot be resumed together: %1.").arg(QString::fromStdString(why)));
    return;
  }
  if (!isSignalConnected(QMetaMethod::fromSignal(&HistoryPage::resumeRaceRequested))) {
    showMessage(m_error, tr("%n unfinished runs are selected; this window resumes one run at a "
                            "time: select one of them.",
                            nullptr, static_cast<int>(runs.size())));
    return;
  }
  showMessage(m_error, QString());
  emit resumeRaceRequested(runs);
}

void HistoryPage::setEngine(EngineController* engine) {
  m_engine = engine;
}

std::vector<RunRecord> HistoryPage::raceMatesOf(const std::vector<RunRecord>& runs) const {
  std::vector<RunRecord> listed;
  for (int row = 0; row < m_model->rowCount(); ++row) listed.push_back(m_model->row(row).run);
  return ui::raceMatesOf(runs, listed);
}

MoreTrialsDialog* HistoryPage::moreTrialsForSelected() {
  if (!m_moreTrials->isEnabled() || m_storePath.isEmpty()) return nullptr;
  // One at a time (its total may be half typed); a closed one is on its way out.
  for (auto* open : findChildren<MoreTrialsDialog*>(QStringLiteral("moreTrialsDialog")))
    if (open->isVisible()) {
      open->raise();
      return open;
    }
  std::vector<MoreTrialsDialog::Run> runs;
  std::vector<RunRecord> records;
  for (const QModelIndex& index : m_view->selectionModel()->selectedRows()) {
    const HistoryModel::Row& row = m_model->row(index.row());
    runs.push_back({row.run, row.tally.trials});
    records.push_back(row.run);
  }
  std::sort(runs.begin(), runs.end(),
            [](const auto& a, const auto& b) { return a.run.id < b.run.id; });
  std::sort(records.begin(), records.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  // As Resume: several runs go on together as their race, or not at all.
  if (records.size() > 1) {
    if (const std::string why = whyNotOneRace(records); !why.empty()) {
      showMessage(m_error, tr("The selected runs cannot be given more trials together: %1.")
                               .arg(QString::fromStdString(why)));
      return nullptr;
    }
    if (!isSignalConnected(QMetaMethod::fromSignal(&HistoryPage::resumeRaceRequested))) {
      showMessage(m_error, tr("%n finished runs are selected; this window continues one run at a "
                              "time: select one of them.",
                              nullptr, static_cast<int>(records.size())));
      return nullptr;
    }
  }
  showMessage(m_error, QString());
  auto* dialog = new MoreTrialsDialog(std::move(runs), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setEngine(m_engine);
  connect(dialog, &MoreTrialsDialog::goOn, this, [this](const std::vector<RunRecord>& runs) {
    if (runs.size() == 1)
      emit resumeRequested(runs.front());
    else
      emit resumeRaceRequested(runs);
  });
  dialog->open();
  return dialog;
}

const RunRecord* HistoryPage::anchorRun() const {
  // The chart is of the current run's operator and device, while that run is selected; else of
  // the oldest selected run's.
  const QModelIndex current = m_view->currentIndex();
  if (current.isValid() && current.row() < m_model->rowCount() &&
      m_view->selectionModel()->isRowSelected(current.row(), QModelIndex()))
    return &m_model->row(current.row()).run;
  const RunRecord* oldest = nullptr;
  for (const QModelIndex& index : m_view->selectionModel()->selectedRows())
    if (index.row() < m_model->rowCount() &&
        (!oldest || m_model->row(index.row()).run.id < oldest->id))
      oldest = &m_model->row(index.row()).run;
  return oldest;
}

int HistoryPage::fastestDrawnRow(int* drawn) const {
  // The runs drawn (the anchor's problem and device: sameProblem), so one unit: the fastest
  // by its best working trial. Ctrl+A over a GEMM, a pnpoly (1/ms) and a dedispersion (GB/s)
  // took the GEMM, a run of another operator than the chart's.
  const RunRecord* anchor = anchorRun();
  int fastest = -1, count = 0;
  if (!anchor) return fastest;
  for (const QModelIndex& index : m_view->selectionModel()->selectedRows()) {
    if (index.row() >= m_model->rowCount()) continue;
    const HistoryModel::Row& row = m_model->row(index.row());
    if (!sameProblem(*anchor, row.run)) continue;
    ++count;
    if (row.tally.best && (fastest < 0 || *row.tally.best > *m_model->row(fastest).tally.best))
      fastest = index.row();
  }
  if (drawn) *drawn = count;
  return fastest;
}

int HistoryPage::exportRow() const {
  if (m_view->selectionModel()->selectedRows().size() > 1) {
    // Several runs (a whole race): the fastest of those drawn. The run that had the keyboard
    // focus was taken: run 293, 7,366 GFLOP/s, beside the race's best 7,393.
    if (const int fastest = fastestDrawnRow(); fastest >= 0) return fastest;
  }
  // One run (or none of several has a working trial): the current row while it is selected,
  // else the top selected one (after an import its run is selected, another row current).
  return actionRow();
}

const RunRecord* HistoryPage::exportRun() const {
  const int row = exportRow();
  return row < 0 ? nullptr : &m_model->row(row).run;
}

KernelExportDialog* HistoryPage::exportCurrent() {
  const RunRecord* run = exportRun();
  if (!run || !m_export->isEnabled()) return nullptr;
  auto* dialog = new KernelExportDialog(m_storePath, *run, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  int drawn = 0;
  if (m_view->selectionModel()->selectedRows().size() > 1 && fastestDrawnRow(&drawn) >= 0) {
    // Which of the selected runs, and why that one (none with a working trial: the one acted on,
    // without a word of "fastest").
    const QString why = tr("The fastest of the %1 runs drawn: run %2")
                            .arg(drawn)
                            .arg(static_cast<qlonglong>(run->id));
    dialog->setWindowTitle(dialog->windowTitle() + QStringLiteral(" — ") + why);
    auto* note = new QLabel(why + QLatin1Char('.'), dialog);
    note->setObjectName(QStringLiteral("exportChoice"));
    if (auto* layout = qobject_cast<QBoxLayout*>(dialog->layout())) layout->insertWidget(0, note);
  }
  dialog->open();
  return dialog;
}

HistoryPage::~HistoryPage() = default;

bool HistoryPage::busy() const {
  return m_showSelection->isActive() || m_runsJob.busy() || m_curvesJob.busy() ||
         m_deleteJob.busy();
}

QString HistoryPage::title() const {
  return m_title->text();
}

void HistoryPage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  reload();  // runs made since it was last shown (a race started on the Runs page) are listed
}

void HistoryPage::setStorePath(const QString& path) {
  m_storePath = path;
  reload();
}

void HistoryPage::reload() {
  if (m_storePath.isEmpty()) return;
  m_runsJob.start(
      [path = m_storePath.toStdString()] {
        RunsJob job;
        try {
          // A colleague's database or a read-only share is read read-only (nothing is made
          // beside it); a first start with no database yet creates it.
          const Store store(path, Store::openingToList(path));
          job.runs = store.runs();
          // As they stand: a run whose program died is stored running, and is interrupted.
          const LiveStatus live(store);
          for (RunRecord& run : job.runs) run.status = live.of(run);
          job.tallies = store.runTallies();
          job.readOnly = store.readOnly();
          for (const NetworkRecord& n : store.networks())
            for (std::int64_t run : n.taskRuns)
              job.networks[run] = QObject::tr("network run %1, %2")
                                      .arg(static_cast<qlonglong>(n.id))
                                      .arg(QString::fromStdString(n.name));
        } catch (const std::exception& e) {
          job.error = QString::fromUtf8(e.what());
        }
        return job;
      },
      [this](const RunsJob& job) {
        // Only what a read said is taken back by the next read: a refusal (Delete, Resume) stays
        // until the next action, not the next refresh (every 2 s while a run is going on).
        if (!job.error.isEmpty()) {
          showUnread(job.error);
          return;
        }
        if (std::exchange(m_readFailed, false)) showMessage(m_error, QString());
        // A model reset drops the selection without a word: the chart and caption would go on
        // showing the runs as they were (a resumed run's old curve beside its finished row).
        // The runs selected stay selected and are read again; none left: nothing is drawn.
        std::vector<std::int64_t> selected;
        for (const QModelIndex& index : m_view->selectionModel()->selectedRows())
          selected.push_back(m_model->row(index.row()).run.id);
        const RunRecord* current = currentRun();
        std::int64_t currentId = current ? current->id : 0;
        // After a read that failed the table is empty: what was selected before it comes back.
        if (m_model->rowCount() == 0 && selected.empty()) {
          selected = std::move(m_selectedBeforeFailure);
          currentId = m_currentBeforeFailure;
        }
        m_selectedBeforeFailure.clear();
        m_currentBeforeFailure = 0;
        m_readOnly = job.readOnly;  // before the reset, whose signal sets the buttons
        m_model->setRuns(job.runs, job.tallies, job.networks);
        // A window opened after a stopped or killed race says its runs can go on.
        int resumableRuns = 0;
        for (int r = 0; r < m_model->rowCount(); ++r) resumableRuns += resumable(r);
        m_title->setText(
            m_readOnly ? tr("<b>Recorded runs</b> — %1 is read-only here: its runs read, "
                            "nothing changes")
                             .arg(QFileInfo(m_storePath).fileName().toHtmlEscaped())
            : resumableRuns == 0
                ? tr("<b>Recorded runs</b>")
                : tr("<b>Recorded runs</b> — %1 can be resumed: select, then Resume")
                      .arg(QString::fromStdString(counted(resumableRuns, "run", "runs"))));
        for (int r = 0; r < m_model->rowCount() && currentId; ++r)
          if (m_model->row(r).run.id == currentId)
            m_view->selectionModel()->setCurrentIndex(m_model->index(r, 0),
                                                      QItemSelectionModel::NoUpdate);
        if (selectRuns(selected).size() == selected.size()) showSelected();
        // A race in progress (here or in another program) adds runs and trials: read again
        // while the page is shown, until none is running.
        const bool running = std::any_of(job.runs.begin(), job.runs.end(), [](const RunRecord& r) {
          return r.status == RunStatus::Running;
        });
        if (running && isVisible()) m_refresh->start();
      });
}

void HistoryPage::showUnread(const QString& error) {
  // The rows, the curves, the title and the buttons were the last good read's: a database deleted
  // or overwritten since went on offering Resume, More trials… and Delete… on runs it may no
  // longer hold, under a title counting them, read-only or not as the file was then. Nothing is
  // shown that this read did not find; the runs that were selected are selected again once a
  // read works (a second failure keeps the first one's).
  //
  // Said once, with its reason, in the error line under the title, where the eye goes first: the
  // title and the line under the empty table said it twice more, the reason in none of them.
  QString why = error;
  if (why.endsWith(QLatin1Char('.'))) why.chop(1);
  showMessage(m_error,
              tr("The history cannot be read: %1. Reload shows its runs once it can.").arg(why));
  m_readFailed = true;
  if (m_model->rowCount() > 0) {
    m_selectedBeforeFailure = selectedIds();
    const RunRecord* current = currentRun();
    m_currentBeforeFailure = current ? current->id : 0;
  }
  m_refresh->stop();
  m_readOnly = false;  // unknown: there are no rows for it to speak of
  m_model->setRuns({}, {}, {});
  m_title->setText(tr("<b>Recorded runs</b>"));
  showSelected();  // nothing is selected: the chart is cleared
  // Not "No runs yet": the file may hold runs that this read could not reach.
  m_info->clear();
}

void HistoryPage::selectRace(int row) {
  if (row < 0 || row >= m_model->rowCount()) return;
  const std::int64_t race = m_model->row(row).run.raceId;
  QItemSelection selection;
  for (int r = 0; r < m_model->rowCount(); ++r)
    if (r == row || (race != 0 && m_model->row(r).run.raceId == race))
      selection.select(m_model->index(r, 0), m_model->index(r, HistoryModel::ColumnCount - 1));
  m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
}

std::vector<std::int64_t> HistoryPage::selectRuns(const std::vector<std::int64_t>& ids) {
  std::vector<std::int64_t> missing;
  QItemSelection selection;
  for (const std::int64_t id : ids) {
    bool found = false;
    for (int r = 0; r < m_model->rowCount() && !found; ++r)
      if (m_model->row(r).run.id == id) {
        selection.select(m_model->index(r, 0), m_model->index(r, HistoryModel::ColumnCount - 1));
        found = true;
      }
    if (!found) missing.push_back(id);
  }
  if (!selection.isEmpty()) {
    m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
    // The first of them in view: `opevo-studio --open-runs` selected rows below the fold, out of
    // sight. Centred, as the table may yet shrink while the window settles; laid out first, as
    // just after the rows came the scroll bar's range was still 0 and held the table at its top.
    m_view->doItemsLayout();
    m_view->scrollTo(selection.first().topLeft(), QAbstractItemView::PositionAtCenter);
  }
  return missing;
}

void HistoryPage::showSelected() {
  m_showSelection->stop();  // read now (a reload), not once more when the selection rests
  std::vector<HistoryModel::Row> rows;
  for (const QModelIndex& index : m_view->selectionModel()->selectedRows())
    rows.push_back(m_model->row(index.row()));
  // Oldest first, so repeat numbers follow the order the runs were made in.
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.run.id < b.run.id; });
  if (rows.empty()) {
    m_curvesJob.cancel();
    m_data->reset({});
    m_info->setText(noneSelectedText(m_model->rowCount() > 0));
    return;
  }
  // Spelled out: tr's %n is plural only with a translation loaded.
  m_info->setText(tr("Reading %1…")
                      .arg(QString::fromStdString(
                          counted(static_cast<long long>(rows.size()), "run", "runs"))));
  const std::int64_t anchor = anchorRun()->id;
  ++m_curvesReads;
  m_curvesJob.start(
      [path = m_storePath.toStdString(), rows = std::move(rows), anchor] {
        return loadCurves(path, rows, anchor);
      },
      [this](const CurvesJob& job) {
        if (!job.error.isEmpty()) {
          showMessage(m_error, tr("The runs cannot be read: %1").arg(job.error));
          m_readFailed = true;
          return;
        }
        m_data->reset(job.info);
        m_data->append(job.trials);
        m_data->finishAll();
        m_results->refreshNow();
        if (job.runs == 0 && !job.failed.isEmpty()) {
          m_info->setText(tr("Nothing to draw: %1.").arg(job.failed.join(QStringLiteral("; "))));
          emit curvesShown();
          return;
        }
        QString text = tr("%1 — %2 of %3: %4")
                           .arg(job.info.label)
                           .arg(QString::fromStdString(counted(
                               static_cast<long long>(job.trials.size()), "trial", "trials")))
                           .arg(QString::fromStdString(
                               counted(static_cast<long long>(job.runs), "run", "runs")))
                           .arg(job.info.algorithms.join(QStringLiteral(", ")));
        if (!job.note.isEmpty()) text += QStringLiteral("; ") + job.note;
        if (!job.failed.isEmpty())
          text += tr("; not drawn: %1").arg(job.failed.join(QStringLiteral("; ")));
        m_info->setText(text);
        emit curvesShown();
      });
}

}  // namespace opevo::ui
