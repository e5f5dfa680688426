#pragma once

#include <QDeadlineTimer>
#include <QMainWindow>
#include <QPointer>
#include <cstdint>

#include "ui/jobs/latest_job.h"

class QAction;
class QLabel;
class QTabWidget;

namespace opevo::ui {

class ClusterPage;
class HelpWindow;
class MeasuredFileImport;
class HistoryPage;
class KernelsPage;
class NetworksPage;
class PresetsPanel;
class RaceResultsWidget;
class QwalkPanel;
class RunsPage;
class TopologyPage;

// The studio's window: pages as tabs (Spaces, Topology, Runs, History, Networks, Kernels,
// Cluster), menus
// whose actions carry the keyboard shortcuts, and a status bar with the dataset, race progress and
// backend. Layout, the current page and the race form are kept with QSettings between sessions.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum Page {
    SpacesPage,
    TopologyPageIndex,
    RunsPageIndex,
    HistoryPageIndex,
    NetworksPageIndex,
    KernelsPageIndex,
    ClusterPageIndex
  };

  // The backends found, as the status bar and Help > About show them (defined where it is made).
  struct BackendProbe;

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  PresetsPanel* presetsPanel() const { return m_presetsPanel; }
  QwalkPanel* qwalkPanel() const { return m_qwalkPanel; }
  TopologyPage* topologyPage() const { return m_topologyPage; }
  RunsPage* runsPage() const { return m_runsPage; }
  HistoryPage* historyPage() const { return m_historyPage; }
  NetworksPage* networksPage() const { return m_networksPage; }
  KernelsPage* kernelsPage() const { return m_kernelsPage; }
  ClusterPage* clusterPage() const { return m_clusterPage; }
  QTabWidget* pages() const { return m_pages; }
  // The backend label's text: "probing…" until the background probe answers.
  QString backendText() const;
  // Each backend's line ("cuda: not found (...)"), joined; empty until the probe ends.
  QString runtimesText() const;
  HelpWindow* helpWindow() const { return m_help; }  // null until first shown
  // File > Import measured file… (its steps, for tests that skip the file dialog).
  MeasuredFileImport* measuredFileImport() const { return m_import; }
  // File > Export run as T4…: opens the dialog on History's selected run.
  void openT4Export();
  // Small enough for a 1024x700 screen with its panel, large enough that no page is crushed.
  static QSize minimumWindowSize();

  void saveSettings() const;
  // Restores the saved layout and race form; a geometry saved on a larger screen is fitted to
  // this one's available area.
  void restoreSettings();
  // Off (--no-restore): the window neither reads the saved layout and form nor writes its own on
  // quitting, so a one-off session leaves the user's next one as it was.
  // Values remembered elsewhere (a kernel export's folder) follow it (ui/widgets/session_memory.h).
  void setRemembersSettings(bool remembers);
  // What runs now and would be stopped by quitting ("a race on the Runs page"); empty when
  // nothing does.
  QStringList running() const;

 public slots:
  void showAbout();
  // A page's message in the status bar for 8 seconds, elided to the room the status bar's
  // permanent widgets leave (the whole text in its tooltip).
  void showStatus(const QString& text);
  // The message shown (elided to its room) and its whole text; empty when none shows.
  QString statusShown() const;
  QString statusWhole() const { return m_statusText; }
  // The user guide's window (F1), made on first use.
  void showHelp();
  // The Topology page on a parameter of a preset.
  void showTopology(const QString& preset, const QString& parameter);
  // The note on Spaces that says where to start; shown while the store holds no run.
  QLabel* firstRunHint() const { return m_firstRunHint; }
  // Quits as File > Quit does once the question is answered: every race stops (its runs stored
  // as stopped), the form is saved. For SIGTERM and SIGINT, where nobody is there to answer.
  void quitWithoutAsking();

 public:
  // The About box's text: versions of the studio, Qt, XGBoost and the GPU runtimes found.
  QString aboutText() const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void closeEvent(QCloseEvent* event) override;

 private:
  void startBackendProbe();
  // The Topology page on the operator, template and parameter (or typed spec) chosen on Spaces.
  void followSpaces();
  void showTopologyOf(const QString& preset, const QString& parameter);
  // The status bar's widgets that belong to one page show on it only.
  void updateStatusWidgets();
  // Spaces changed its choice since Topology last showed it.
  bool m_topologyFollows = true;
  // Asks whether to stop what runs and quit (the window stays until answered).
  void askToQuit(const QStringList& running);
  void fitToScreen();
  bool m_remembersSettings = true;
  bool m_quitAnswered = false;
  void makeMenus();
  // File > Export: the current page's chart (the race on Runs and History, the latency and
  // trials charts on Networks, the Pareto chart on Kernels), and trials only where a race shows;
  // off on pages without a chart, rather than exporting another page's.
  RaceResultsWidget* shownRace() const;
  // File > Export run as T4…: the top run selected on History as the table shows it; 0 for none
  // (the dialog then proposes its own list's first run).
  std::int64_t historySelectedRun() const;
  // The imported run on the History page, selected and drawn once the page has read it.
  void showImportedRun(std::int64_t runId, const QString& summary);
  QWidget* shownChart(QString* fileStem) const;
  void exportChart(bool svg);
  void updateExportActions();
  QAction* m_exportPng = nullptr;
  QAction* m_exportSvg = nullptr;
  QAction* m_exportCsv = nullptr;
  MeasuredFileImport* m_import = nullptr;
  QString m_storePath;  // the database every page reads and writes

  QTabWidget* m_pages;
  PresetsPanel* m_presetsPanel;
  QwalkPanel* m_qwalkPanel;
  TopologyPage* m_topologyPage;
  RunsPage* m_runsPage;
  HistoryPage* m_historyPage;
  NetworksPage* m_networksPage;
  KernelsPage* m_kernelsPage;
  ClusterPage* m_clusterPage;
  QLabel* m_firstRunHint;
  QLabel* m_backendLabel;
  QList<QWidget*> m_permanent;  // the status bar's permanent widgets, left to right
  QLabel* m_versionLabel = nullptr;
  // The message on show in full and when it goes: it is elided again whenever the room for it
  // changes (a permanent widget appearing or growing), never cut mid-word by QStatusBar.
  QString m_statusText;
  QDeadlineTimer m_statusUntil;
  // The page whose message the status bar shows (none: the window's own, a save or an import):
  // it goes when the user turns to another page, where it read as that page's.
  QPointer<QWidget> m_statusPage;
  void fitStatus();
  HelpWindow* m_help = nullptr;
  // Per backend: its name and what the probe found, in the probe's order (cuda, hip, cpu).
  QList<QPair<QString, QString>> m_runtimes;
  QString m_best;  // empty while probing
  LatestJob<BackendProbe> m_probe;
};

}  // namespace opevo::ui
