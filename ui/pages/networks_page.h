#pragma once

#include <QWidget>
#include <functional>
#include <memory>
#include <string>

#include "ui/controller/network_types.h"
#include "ui/jobs/latest_job.h"

class QComboBox;
class QLabel;
class QSplitter;
class QTableView;

namespace opevo::ui {

class NetworkController;
class NetworkCurveChart;
class NetworkGraphView;
class NetworkSetupPanel;
class NetworkTaskModel;
class PairOrTabs;
class TaskTrialsChart;
struct NetworkLayout;

// The Networks page: a network drawn with each layer coloured by its share of the latency, its
// tasks' table (weight, trials, best, share) updating as the scheduler hands out units, the
// estimated latency against trials of each algorithm and scheduler with libtorch's line (the
// OpEvo paper's Figure 6, live), and the trials each task received. Races run on a background
// thread through NetworkController; Stop keeps every trial, Resume continues a stored run.
class NetworksPage : public QWidget {
  Q_OBJECT

 public:
  // The network picture and tasks a background job hands back (defined where it is made).
  struct Picture;
  // A stored run read for Show (defined where it is read).
  struct Stored;

  explicit NetworksPage(QWidget* parent = nullptr);
  ~NetworksPage() override;

  void setStorePath(const QString& path);
  NetworkSetupPanel* setup() const { return m_setup; }
  NetworkController* controller() const { return m_controller; }
  NetworkGraphView* graphView() const { return m_graph; }
  NetworkTaskModel* taskModel() const { return m_tasks; }
  NetworkCurveChart* curveChart() const { return m_curves; }
  TaskTrialsChart* trialsChart() const { return m_trials; }
  // What File > Export saves: both charts where they are side by side, the one on show where the
  // page tabs them (not the tab bar with it).
  QWidget* chartsOnShow() const;
  QComboBox* contenderBox() const { return m_contender; }
  // What the contender on show tunes, in words and as `opevo net tune` options (hidden: none).
  QLabel* contenderTunesLabel() const { return m_tunes; }
  QLabel* statusLabel() const { return m_status; }
  // The amber note that a budget too small leaves tasks with no trial (hidden when none does).
  QLabel* budgetNote() const { return m_budgetNote; }
  // The note that a race started on this machine's CPU while it looked busy (the CLI's
  // "note: this machine looks busy ..."); hidden otherwise.
  QLabel* machineNote() const { return m_machineNote; }
  // Where that note's text comes from: core's busyMachineNote() unless a test says otherwise.
  void setMachineLoadNote(std::function<std::string()> note) { m_loadNote = std::move(note); }
  QTableView* taskTable() const { return m_table; }
  const NetworkSnapshot* snapshot() const { return m_snapshot.get(); }
  bool loadingPicture() const { return m_pictureJob.busy(); }
  bool loadingStored() const { return m_storedJob.busy(); }

 public slots:
  void start();
  void stop();
  void resume(std::int64_t networkId);
  // A stored run on the page as a finished race's contender is shown: read off the GUI thread,
  // nothing tuned or run.
  void showStored(std::int64_t networkId);

 signals:
  void statusMessage(const QString& text);
  void raceEnded();

 private:
  // Reads and lays out a network off the GUI thread: the chosen one, or a snapshot's.
  void loadPicture(std::string source, std::string text, net::ParamOverrides params);
  void showSnapshot(NetworkSnapshotPtr snapshot);
  // The chosen network could not be read: said, and where another is on show the Network box
  // names that one again rather than the one that failed.
  void refuseNetwork(const QString& source, const QString& error);
  // No race on show: its results, contenders and curves go (a new race, or another network).
  void clearResults();
  // The stored run of the contender on show (0: none).
  std::int64_t shownRunId() const;
  void showContender();
  // What the contenders on show measured once they ended (their end-to-end times, tasks left
  // untuned, the reference line); *failed when a run on the device failed or differed.
  QStringList resultLines(bool* failed) const;
  void setStatus(const QString& text, bool error = false);
  // The status line now says that stored run `id` is `status`: read again with the list, what it
  // says is corrected where another program changed the run since.
  void noteRunStatus(std::int64_t id, RunStatus status);
  void checkRunStatus();
  // The table and the graph show params other than the field's (which do not read): greyed,
  // and the status says whose they are.
  void markStale(bool stale);
  QString shownParamsText() const;
  // How many tasks the form's Trials and Unit leave without a single trial (0: none), and the note
  // that says so.
  int tasksLeftOut() const;
  void updateBudgetNote();
  // The tasks' table has its columns whole where the graph beside it can give up the room.
  // Widens the table to its columns' need; with giveBack, also gives the graph back what it lacks
  // for 1:1 from what the table has beyond that need (a network loaded, the page resized; not a
  // race's updates, which would undo the user's drag of the splitter every snapshot).
  void fitTable(bool giveBack = false);
  void fitTableAndGraph() { fitTable(true); }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  NetworkSetupPanel* m_setup;
  NetworkController* m_controller;
  NetworkGraphView* m_graph;
  NetworkTaskModel* m_tasks;
  QTableView* m_table;
  NetworkCurveChart* m_curves;
  TaskTrialsChart* m_trials;
  QComboBox* m_contender;
  QLabel* m_tunes;
  QLabel* m_status;
  QLabel* m_budgetNote;
  QLabel* m_machineNote;
  std::function<std::string()> m_loadNote;
  QSplitter* m_top;
  PairOrTabs* m_bottom = nullptr;
  NetworkSnapshotPtr m_snapshot;
  std::vector<NetworkTaskInfo> m_taskInfo;
  QString m_pictureText;              // the network text the picture shows
  QString m_shownSource;              // the preset or file it was read from
  net::ParamOverrides m_shownParams;  // the params it was read with
  bool m_statusError = false;
  // The status line says why a network or its params did not read: a read that succeeds
  // replaces it (the walk: the file fixed and chosen again left "Failed: ... unknown op").
  bool m_statusAboutNetwork = false;
  std::int64_t m_statusRun = 0;  // the stored run whose status the status line states (0: none)
  RunStatus m_statusRunState = RunStatus::Running;
  LatestJob<std::shared_ptr<const Picture>> m_pictureJob{
      LatestJob<std::shared_ptr<const Picture>>::Overlap::NewestWaits};
  LatestJob<std::shared_ptr<const Stored>> m_storedJob;
};

}  // namespace opevo::ui
