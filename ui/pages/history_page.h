#pragma once

#include <QPointer>
#include <QWidget>
#include <cstdint>
#include <vector>

#include "store/records.h"
#include "store/run_deletion.h"
#include "ui/jobs/latest_job.h"

class QLabel;
class QPushButton;
class QTableView;
class QTimer;

namespace opevo::ui {

class EngineController;
class HistoryModel;
class KernelExportDialog;
class MoreTrialsDialog;
class RaceData;
class RaceResultsWidget;

// The History page: every run recorded in the store, sortable by any column, and the curves of
// the selected ones (a whole race at a click) drawn as on the Runs page; selected runs can be
// deleted. The store is read and written off the GUI thread.
class HistoryPage : public QWidget {
  Q_OBJECT

 public:
  // How often the page reads the store again while one of its runs is going on.
  static constexpr int kRefreshMs = 2000;
  // How long the selection must stay as it is before its curves are read: a key held down or a
  // range being extended reads once, at the end.
  static constexpr int kSelectionRestMs = 150;

  // What the background reads hand back (defined where they are made).
  struct RunsJob;
  struct CurvesJob;
  struct DeleteJob;

  explicit HistoryPage(QWidget* parent = nullptr);
  ~HistoryPage() override;

  void setStorePath(const QString& path);
  HistoryModel* model() const { return m_model; }
  RaceData* data() const { return m_data; }
  RaceResultsWidget* results() const { return m_results; }
  QTableView* view() const { return m_view; }
  // "Recorded runs — 3 runs can be resumed: ...", as the page's title reads it.
  QString title() const;
  // Also while a selection waits to rest before its curves are read.
  bool busy() const;
  // How many reads of the selected runs' curves have started: one per resting selection, not one
  // per step of a moving one.
  int curvesReads() const { return m_curvesReads; }
  // Selects every run of the race the given row belongs to, and draws them.
  void selectRace(int row);
  // Selects the runs with these ids (as `opevo runs` lists them) and draws them together, as if
  // picked by hand; returns the ids the store does not hold.
  std::vector<std::int64_t> selectRuns(const std::vector<std::int64_t>& ids);
  QPushButton* resumeButton() const { return m_resume; }
  QPushButton* moreTrialsButton() const { return m_moreTrials; }
  QPushButton* exportButton() const { return m_export; }
  QPushButton* deleteButton() const { return m_delete; }
  QPushButton* selectRaceButton() const { return m_selectRace; }
  // The run Export kernel… and File > Export run as T4… take: of several selected runs, the
  // fastest (by its best working trial); of one, that one; nullptr when none is selected.
  const RunRecord* exportRun() const;
  // Opens the export dialog of exportRun(); nullptr when none is selected.
  KernelExportDialog* exportCurrent();
  // Deletes the selected runs (the Delete button and key): the store checks them first, refused
  // ones are named with the reason, and a dialog (deleteRunsBox) asks before anything goes.
  void deleteSelected();
  // Opens More trials… for the selected finished runs (one, or several of one race: they go on
  // together, as Resume takes a race's unfinished runs); nullptr, with the reason on the page,
  // when they cannot. Its Continue asks resumeRequested or resumeRaceRequested to continue them,
  // their records carrying the new total (goingOnTo), which the resume stores.
  MoreTrialsDialog* moreTrialsForSelected();
  // The listed runs of the races `runs` belong to, `runs` left out: what names their curves when
  // they are resumed (resumedRaceOf).
  std::vector<RunRecord> raceMatesOf(const std::vector<RunRecord>& runs) const;
  // The window's engine, which resumes runs: while it runs a race, More trials… is refused before
  // anything is asked of it, and the dialog says what it answers (a run held elsewhere).
  void setEngine(EngineController* engine);

 public slots:
  void reload();

 signals:
  void statusMessage(const QString& text);
  void curvesShown();
  // The user asked to continue an interrupted run (or a finished one given more trials, its
  // record carrying the new total: goingOnTo); the Runs page does it.
  void resumeRequested(const opevo::RunRecord& run);
  // ... or several runs of one race (oldest first; unfinished, or finished and given more trials),
  // to go on together as that race.
  void resumeRaceRequested(const std::vector<opevo::RunRecord>& runs);

 protected:
  void showEvent(QShowEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  // The run whose operator and device the chart is of: the current run while it is selected,
  // else the oldest selected one; null when none is selected.
  const RunRecord* anchorRun() const;
  // The fastest run drawn (the anchor's experiment) with a working trial, or -1; `drawn` is how
  // many selected runs are drawn.
  int fastestDrawnRow(int* drawn = nullptr) const;

  void showSelected();
  // A read of the store failed (`error` says why): no row, curve, title or button says what an
  // earlier read found, and the error line says it, once.
  void showUnread(const QString& error);
  void updateButtons();
  const RunRecord* currentRun() const;
  // The row a button acts on: the current row while it is selected, else the top selected row
  // as the table shows it; -1 when none is selected.
  int actionRow() const;
  // The row of exportRun(); -1 when none.
  int exportRow() const;
  // Whether the row's run can go on here: unfinished, not being tuned, not a network's task, in a
  // database this user can write.
  bool resumable(int row) const;
  // Whether the row's run can be given more trials: finished, not a network's task, tuned here
  // (an imported file's results have no tuner to go on with), in a database this user can write.
  bool extendable(int row) const;
  // The selected runs that can go on, oldest first.
  std::vector<RunRecord> resumableSelection() const;
  void resumeSelected();
  std::vector<std::int64_t> selectedIds() const;
  void confirmDeletion(const std::vector<std::int64_t>& ids, const RunDeletionCheck& check);
  void deleteRuns(const std::vector<std::int64_t>& ids);

  QString m_storePath;
  HistoryModel* m_model;
  RaceData* m_data;
  RaceResultsWidget* m_results;
  QTableView* m_view;
  QLabel* m_info;
  QLabel* m_title;  // "Recorded runs", and how many of them can be resumed
  QLabel* m_error;
  bool m_readFailed = false;  // m_error says a read of the store failed
  // The store's last read found the file read-only to this user (Store::readOnly): nothing that
  // writes to it is offered.
  bool m_readOnly = false;
  // The runs selected, and the current one, when a read of the list failed and emptied the table:
  // selected again by the next read that works.
  std::vector<std::int64_t> m_selectedBeforeFailure;
  std::int64_t m_currentBeforeFailure = 0;
  QPushButton* m_resume;
  QPushButton* m_moreTrials;
  QPushButton* m_export;
  QPushButton* m_delete;
  QPushButton* m_selectRace;
  QPointer<EngineController> m_engine;
  QTimer* m_refresh;        // reads the store again while a run in it is going on
  QTimer* m_showSelection;  // reads the selected runs once the selection rests
  int m_curvesReads = 0;
  LatestJob<RunsJob> m_runsJob;      // the store's list of runs
  LatestJob<CurvesJob> m_curvesJob;  // the trials of the selected runs
  LatestJob<DeleteJob> m_deleteJob;  // checking, then deleting, the selected runs
};

}  // namespace opevo::ui
