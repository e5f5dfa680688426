#pragma once

#include <QWidget>
#include <cstdint>

#include "ui/controller/kas_details.h"
#include "ui/controller/kas_types.h"
#include "ui/jobs/latest_job.h"

class QLabel;
class QPlainTextEdit;
class QTimer;
class QTabWidget;
class QTableView;

namespace opevo::ui {

class KasCandidateModel;
class KasController;
class KasDagView;
class KasScatterChart;
class KasSearchPanel;
class KasTrainingChart;
class KasTuningChart;
struct KasSearchSummary;

// The Kernels page: Canvas's kernel architecture search (seed 004). The stored searches and a new
// search's form on the left; for the search shown, its trained kernels as speed-up against
// accuracy with the Pareto front and the baseline, and every candidate in a table (the two select
// together); for the selected kernel, its micro-DAG, its tuning and training curves and its
// generated CPU source. A search runs on a background thread through KasController and draws
// itself as its candidates arrive; Stop keeps every finished step, Resume continues.
class KernelsPage : public QWidget {
  Q_OBJECT

 public:
  explicit KernelsPage(QWidget* parent = nullptr);
  ~KernelsPage() override;

  void setStorePath(const QString& path);
  const QString& storePath() const { return m_storePath; }

  KasSearchPanel* panel() const { return m_panel; }
  KasController* controller() const { return m_controller; }
  KasScatterChart* chart() const { return m_chart; }
  KasCandidateModel* candidateModel() const { return m_candidates; }
  QTableView* candidateTable() const { return m_table; }
  KasDagView* dagView() const { return m_dag; }
  QPlainTextEdit* sourceView() const { return m_source; }
  KasTuningChart* tuningChart() const { return m_tuning; }
  KasTrainingChart* trainingChart() const { return m_training; }
  QTabWidget* detailTabs() const { return m_tabs; }
  QLabel* errorLabel() const { return m_error; }
  QLabel* statusLabel() const { return m_status; }
  // The search on show (0: none) and its selected candidate (0: none).
  std::int64_t shownSearch() const { return m_shown ? m_shown->searchId : 0; }
  int selectedCandidate() const { return m_selected; }
  // True while the store or a candidate's details are being read.
  bool loading() const;
  // True while the page reads the store every few seconds: it is shown and lists a search that
  // another program (`opevo kas search`, another window) runs.
  bool following() const;

 protected:
  void showEvent(QShowEvent* event) override;
  void hideEvent(QHideEvent* event) override;

 public slots:
  void reload();
  void showSearch(std::int64_t id);
  void selectCandidate(int seq);
  void start();
  void stop();
  void resume(std::int64_t id);

 signals:
  void statusMessage(const QString& text);
  void searchEnded();

 private:
  struct SearchesJob;
  struct SearchJob;

  void showSnapshot(KasSnapshotPtr snapshot);
  void showDetails();
  void showLive(KasSnapshotPtr snapshot);
  void finished(const KasOutcome& outcome);
  void setError(const QString& text);
  QString summary(const KasSnapshot& s) const;
  // Starts or stops m_follow as the listed searches and the page's visibility say.
  void updateFollowing();

  KasSearchPanel* m_panel;
  KasController* m_controller;
  KasScatterChart* m_chart;
  KasCandidateModel* m_candidates;
  QTableView* m_table;
  KasDagView* m_dag;
  QPlainTextEdit* m_source;
  KasTuningChart* m_tuning;
  KasTrainingChart* m_training;
  QTabWidget* m_tabs;
  QLabel* m_error;
  QLabel* m_status;

  QString m_storePath;
  KasSnapshotPtr m_shown;       // the search on show
  KasSnapshotPtr m_live;        // the running search's newest state
  std::int64_t m_wanted = 0;    // the search asked for (the list's selection)
  bool m_followLive = false;    // a search just started: show it once it is stored
  int m_selected = 0;           // candidate seq
  KasCandidatePtr m_detailsOf;  // the candidate whose details are on show
  LatestJob<std::shared_ptr<const SearchesJob>> m_searchesJob;
  LatestJob<std::shared_ptr<const SearchJob>> m_searchJob;
  LatestJob<KasDetails> m_detailsJob;
  QTimer* m_follow;
};

}  // namespace opevo::ui
