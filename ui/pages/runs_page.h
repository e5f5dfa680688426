#pragma once

#include <QElapsedTimer>
#include <QPointer>
#include <QTimer>
#include <QWidget>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "store/records.h"
#include "ui/controller/engine_controller.h"
#include "ui/controller/race_data.h"
#include "ui/jobs/latest_job.h"

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QTableView;

namespace opevo {
struct ReplayDataset;
}

namespace opevo::ui {

class SweepDialog;

class RaceResultsWidget;
class RaceSetupPanel;
class TrialsFilterModel;
class TrialsModel;

// The Runs page: set up a race on the left, watch it on the right (charts above, every trial
// below). The engine runs in its own thread behind an EngineController; this page only ever
// reacts to its signals.
class RunsPage : public QWidget {
  Q_OBJECT

 public:
  explicit RunsPage(QWidget* parent = nullptr);
  ~RunsPage() override;

  RaceSetupPanel* setup() const { return m_setup; }
  EngineController* controller() const { return m_controller; }
  RaceData* data() const { return m_data; }
  RaceResultsWidget* results() const { return m_results; }
  TrialsModel* trialsModel() const { return m_trialsModel; }
  TrialsFilterModel* trialsFilter() const { return m_filter; }

  QAction* startAction() const { return m_startAction; }
  QAction* pauseAction() const { return m_pauseAction; }
  QAction* stopAction() const { return m_stopAction; }
  QAction* sweepAction() const { return m_sweepAction; }
  // File > Open dataset… (Ctrl+O): off while a race runs, as the form is.
  QAction* openDatasetAction() const { return m_openDatasetAction; }
  // Made here, shown in the window's status bar.
  QProgressBar* progressBar() const { return m_progress; }
  QLabel* etaLabel() const { return m_etaLabel; }
  // After how long without a trial the ETA label says so instead (tests shorten it).
  void setStallMs(qint64 ms);
  QLabel* datasetStatus() const { return m_datasetStatus; }
  // The message shown when a race cannot start or has failed; empty when none.
  QString message() const;
  // The note under the chart: how the last race ended, and what it could not do (record itself).
  QString note() const;

  // Where races are recorded; empty: nowhere. The store is checked at once, off the GUI thread
  // (opening it checks its integrity), and again after each race: Start refuses a store that
  // cannot record the race.
  void setStorePath(const QString& path);
  bool checkingStore() const { return m_storeCheck.busy(); }

 public slots:
  // Returns whether a race started; if not, the page says why.
  bool start();
  // Continues an interrupted run of the store (from the History page), or a finished one to the
  // new total its record carries (More trials…: goingOnTo), which the engine stores once it holds
  // the run; false, with the reason on the page, when a race is already running.
  // raceMates: the other stored runs of its race, which name its curve (resumedRaceOf).
  bool resumeRun(const opevo::RunRecord& run, const std::vector<opevo::RunRecord>& raceMates = {});
  // Continues several runs of one race together (History's whole race after a kill, or given more
  // trials), each drawn and listed in its place (resumedRaceOf); false, with the reason, as
  // resumeRun.
  bool resumeRace(const std::vector<opevo::RunRecord>& runs,
                  const std::vector<opevo::RunRecord>& raceMates = {});
  void pauseOrResume();
  void stop();
  // Opens the Sweep dialog on the loaded dataset; nullptr, with the reason on the page, when no
  // dataset is loaded for a replay.
  SweepDialog* openSweep();

 signals:
  // A race ended (finished, stopped or failed); its runs are in the store.
  void raceEnded();
  void statusMessage(const QString& text);

 private:
  void onStateChanged(EngineController::State state);
  void onUpdate(const EngineUpdatePtr& update);
  void onFinished(const RaceOutcome& outcome);
  bool launch(RaceSpec spec, RaceData::Info info);
  // What the form's race is drawn in, before its runs are known: the unit, the label, the
  // dataset's optimum and the clock of the time chart. Start adds the runs.
  RaceData::Info formsFrame() const;
  // Until a race starts, the empty charts show formsFrame: they said "best" against tuning time
  // beside a replay loaded, and changed to its unit, optimum and device time only at Start.
  void showFormsFrame();
  void checkStore();
  // Shows why Start (or Sweep…) cannot go with the form as it is.
  void refuse(const QString& text);
  // How much of the race is done, 0 to 1: by trials, or by tuning time under a time budget.
  double raceFraction(const RaceProgress& p) const;
  QWidget* makeTrialsSection();

  RaceSetupPanel* m_setup;
  EngineController* m_controller;
  RaceData* m_data;
  RaceResultsWidget* m_results;
  TrialsModel* m_trialsModel;
  TrialsFilterModel* m_filter;
  QTableView* m_trialsView = nullptr;
  QComboBox* m_filterColumn = nullptr;
  QLineEdit* m_filterEdit = nullptr;
  QLabel* m_countLabel = nullptr;
  QLabel* m_messageLabel;
  QLabel* m_noteLabel;
  QAction* m_startAction;
  QAction* m_pauseAction;
  QAction* m_stopAction;
  QAction* m_sweepAction;
  QAction* m_openDatasetAction;
  QProgressBar* m_progress;
  QLabel* m_etaLabel;
  QLabel* m_datasetStatus;
  // Since the last trial arrived: an ETA computed then goes stale when no trial comes (a dead
  // agent, a kernel running to its timeout), so after a while the label says how long instead.
  QElapsedTimer m_sinceTrial;
  QTimer* m_stallClock;
  // Ten seconds: longer than most trials here, and short enough that a frozen ETA is not read as
  // the time left for long. The next trial puts the ETA back.
  qint64 m_stallMs = 10000;
  void showStall();
  QString m_storePath;
  // Why the store cannot record a race, as last checked; empty when it can (or unchecked yet).
  QString m_storeProblem;
  LatestJob<QString> m_storeCheck;
  // The engine found the store unwritable after all (it broke since the check): the race was
  // stopped at once rather than run unrecorded.
  bool m_stoppedUnrecorded = false;
  bool m_clusterRace = false;                // measured through a cluster's agents
  std::optional<std::int64_t> m_resumedRun;  // the stored run the race continues, if any
  // The Sweep dialog, kept while the page lives, and the dataset it was last given.
  QPointer<SweepDialog> m_sweepDialog;
  std::shared_ptr<const ReplayDataset> m_sweepDialogDataset;
  QString m_refusal;  // the message of the last Start or Sweep… refused for the form's sake
  // The race's budget per run (none for a resumed run: the engine's count stands) and where each
  // run stands, by (algorithm, repeat): what the progress bar measures a time budget by.
  struct RunDone {
    int trials = 0;
    double seconds = 0;  // on its budget clock: a replay's device time, else tuning time
    bool ended = false;
  };
  std::optional<int> m_budgetTrials;
  std::optional<double> m_budgetSeconds;
  std::map<std::pair<int, int>, RunDone> m_runsDone;
  QString m_measuredOperator;  // a device race's operator, until its measurer describes itself
  // A resume's chart and status, applied when the engine has the runs in hand (its first update
  // with something in it): a resume refused (a run another process tunes) leaves the chart and
  // the status bar as they were instead of titling an empty chart "run 18 resumed".
  std::optional<RaceData::Info> m_pendingInfo;
  std::vector<RunRecord> m_resumedRuns;  // the runs of that resume, for the form
  QString m_statusBefore;  // the status bar's text before the race, back after a refusal
  // The runs a resume continues, "12, 13, 14", and how many: what a refusal names.
  QString m_resumedIds;
  int m_resumedRaceSize = 0;
  bool m_followTrials = true;
};

}  // namespace opevo::ui
