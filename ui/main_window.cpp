#include "ui/main_window.h"

#include <xgboost/c_api.h>

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLayout>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>
#include <string>

#include "probe/backend_probe.h"
#include "store/store.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/kas_scatter_chart.h"
#include "ui/charts/network_curve_chart.h"
#include "ui/charts/race_results_widget.h"
#include "ui/charts/task_trials_chart.h"
#include "ui/controller/engine_controller.h"
#include "ui/controller/kas_controller.h"
#include "ui/controller/network_controller.h"
#include "ui/models/history_model.h"
#include "ui/models/operator_file_model.h"
#include "ui/pages/cluster_page.h"
#include "ui/pages/history_page.h"
#include "ui/pages/kernels_page.h"
#include "ui/pages/networks_page.h"
#include "ui/pages/presets_panel.h"
#include "ui/pages/qwalk_panel.h"
#include "ui/pages/runs_page.h"
#include "ui/pages/topology_page.h"
#include "ui/widgets/cluster_race_option.h"
#include "ui/widgets/dataset_picker.h"
#include "ui/widgets/elided_label.h"
#include "ui/widgets/help_window.h"
#include "ui/widgets/measured_file_import.h"
#include "ui/widgets/network_setup_panel.h"
#include "ui/widgets/race_setup_panel.h"
#include "ui/widgets/screen_fit.h"
#include "ui/widgets/session_memory.h"
#include "ui/widgets/split_layout.h"
#include "ui/widgets/t4_export_dialog.h"

// Outside any namespace, as Q_INIT_RESOURCE requires: the icon lives in a static library, whose
// resource registration the linker would otherwise drop.
static void initStudioResources() {
  Q_INIT_RESOURCE(opevo_studio);
}

namespace opevo::ui {

namespace {

QString joinRuntimes(const QList<QPair<QString, QString>>& runtimes) {
  QStringList lines;
  for (const auto& [name, found] : runtimes) lines << name + QStringLiteral(": ") + found;
  return lines.join(QStringLiteral("; "));
}

}  // namespace

struct MainWindow::BackendProbe {
  QString best;
  QList<QPair<QString, QString>> runtimes;
  std::vector<BackendInfo> backends;
};

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_pages(new QTabWidget(this)),
      m_presetsPanel(new PresetsPanel),
      m_qwalkPanel(new QwalkPanel),
      m_topologyPage(new TopologyPage),
      m_runsPage(new RunsPage),
      m_historyPage(new HistoryPage),
      m_networksPage(new NetworksPage),
      m_kernelsPage(new KernelsPage),
      m_clusterPage(new ClusterPage),
      m_firstRunHint(new QLabel),
      m_backendLabel(new QLabel(tr("Best backend here: probing…"), this)) {
  initStudioResources();
  setWindowTitle(tr("OpEvo Studio"));
  setWindowIcon(QIcon(QStringLiteral(":/opevo/opevo-studio.svg")));
  resizeToFit(this, QSize(1280, 800));
  // Shrunk to 400x300 every page was crushed (forms over charts, tables a row high).
  setMinimumToFit(this, minimumWindowSize());

  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->setObjectName(QStringLiteral("spacesSplitter"));
  splitter->addWidget(m_presetsPanel);
  splitter->addWidget(m_qwalkPanel);
  splitter->setChildrenCollapsible(false);
  // The left side holds the widest text (the Conv2D descriptions); the walk table is narrow.
  splitter->setSizes({700, 580});
  m_pages->setObjectName(QStringLiteral("pages"));
  m_pages->setDocumentMode(true);
  // A first window said nothing about where to start: on a database without runs, a short note
  // above the library says what the page is and where to go (gone once there are runs).
  m_firstRunHint->setObjectName(QStringLiteral("firstRunHint"));
  m_firstRunHint->setWordWrap(true);
  m_firstRunHint->setTextFormat(Qt::RichText);
  m_firstRunHint->setText(
      tr("<b>New here?</b> This page lists operators, the search space of each and the "
         "q-random walk OpEvo samples it with. To start, <a href=\"runs\">race algorithms</a> "
         "on the Runs page (Ctrl+3) on a bundled measured dataset (no GPU needed) or tune for "
         "real on this machine there (Measure on: cpu); or <a href=\"open\">open an operator "
         "file</a> of your own (Ctrl+Shift+O). The user guide is F1."));
  m_firstRunHint->setStyleSheet(QStringLiteral(
      "QLabel { background: palette(alternate-base); border: 1px solid palette(mid); "
      "padding: 6px; }"));
  m_firstRunHint->hide();  // until History's first read says there are no runs
  connect(m_firstRunHint, &QLabel::linkActivated, this, [this](const QString& link) {
    if (link == QLatin1String("runs")) {
      m_pages->setCurrentWidget(m_runsPage);
    } else {
      m_pages->setCurrentIndex(SpacesPage);
      m_presetsPanel->openFileDialog();
    }
  });
  auto* spaces = new QWidget;
  auto* spacesLayout = new QVBoxLayout(spaces);
  spacesLayout->setContentsMargins(0, 0, 0, 0);
  spacesLayout->addWidget(m_firstRunHint);
  spacesLayout->addWidget(splitter, 1);
  m_pages->addTab(spaces, tr("Spaces"));
  m_pages->addTab(m_topologyPage, tr("Topology"));
  m_pages->addTab(m_runsPage, tr("Runs"));
  m_pages->addTab(m_historyPage, tr("History"));
  m_pages->addTab(m_networksPage, tr("Networks"));
  m_pages->addTab(m_kernelsPage, tr("Kernels"));
  m_pages->addTab(m_clusterPage, tr("Cluster"));
  setCentralWidget(m_pages);

  const QString storePath = QString::fromStdString(Store::defaultPath());
  m_storePath = storePath;
  // Which database the pages read and write: --db or OPEVO_DB may name another than the user's.
  setWindowTitle(tr("OpEvo Studio — %1").arg(QDir::toNativeSeparators(storePath)));
  m_runsPage->setStorePath(storePath);
  m_historyPage->setStorePath(storePath);
  m_networksPage->setStorePath(storePath);
  m_kernelsPage->setStorePath(storePath);
  m_import = new MeasuredFileImport(storePath, this);
  connect(m_import, &MeasuredFileImport::imported, this, &MainWindow::showImportedRun);
  connect(m_import, &MeasuredFileImport::failed, this, &MainWindow::showStatus);

  auto* versionLabel = new QLabel(tr("OpEvo Studio %1").arg(QStringLiteral(OPEVO_VERSION)), this);
  versionLabel->setObjectName(QStringLiteral("versionLabel"));
  m_backendLabel->setObjectName(QStringLiteral("backendLabel"));
  m_versionLabel = versionLabel;
  // At 1024 pixels a race's progress bar left the dataset "... (NVIDIA A100-PCIE-40GB, real mea",
  // cut mid-word: it gives up width elided, whole in its tooltip.
  elideLabel(m_runsPage->datasetStatus(), Qt::ElideRight, 24);
  m_permanent = {m_runsPage->datasetStatus(), m_runsPage->progressBar(), m_runsPage->etaLabel(),
                 m_backendLabel, versionLabel};
  for (QWidget* w : m_permanent) {
    statusBar()->addPermanentWidget(w);
    w->installEventFilter(this);  // its size or visibility changes the message's room
  }
  statusBar()->installEventFilter(this);
  // The whole of an elided message is its tooltip while it shows, and no longer; the labels that
  // gave it their room come back.
  connect(statusBar(), &QStatusBar::messageChanged, this, [this](const QString& text) {
    if (!text.isEmpty()) return;
    statusBar()->setToolTip(QString());
    m_statusText.clear();
    m_versionLabel->show();
    m_backendLabel->show();
  });

  connect(m_presetsPanel, &PresetsPanel::presetSelected, this,
          [this](const QString&, const SearchSpace& space) {
            std::vector<ParameterPtr> params;
            for (std::size_t i = 0; i < space.dims(); ++i) params.push_back(space.paramPtr(i));
            // With the operator in its template: a loop order's indices are named from it.
            m_qwalkPanel->setParameters(std::move(params), m_presetsPanel->templateBox()->shown());
            m_topologyFollows = true;
          });
  // The Topology page shows what was last chosen on Spaces (an operator, its template, a
  // parameter or a typed spec) when the user goes there; it showed MM1's tile_n after C2's
  // reduce_order had been chosen. A choice made on Topology itself stays until Spaces changes.
  connect(m_qwalkPanel, &QwalkPanel::parameterChanged, this, [this] { m_topologyFollows = true; });
  connect(m_pages, &QTabWidget::currentChanged, this, [this] {
    if (m_pages->currentWidget() == m_topologyPage && m_topologyFollows) followSpaces();
  });
  connect(m_presetsPanel, &PresetsPanel::parameterChosen, m_qwalkPanel,
          &QwalkPanel::selectParameter);
  connect(m_qwalkPanel, &QwalkPanel::parameterChanged, m_presetsPanel,
          &PresetsPanel::showParameter);
  // The first-run note goes once the store holds a run (History reads it at start and after
  // every race).
  connect(m_historyPage->model(), &QAbstractItemModel::modelReset, this,
          [this] { m_firstRunHint->setVisible(m_historyPage->model()->rowCount() == 0); });
  // The Runs page's dataset ("replay of RTX_2080_Ti...") shows where it applies: beside the race
  // on Runs, and on History, which lists what races stored. On Networks, while a network was
  // tuned on the CPU, it read as that page's.
  connect(m_pages, &QTabWidget::currentChanged, this, &MainWindow::updateStatusWidgets);
  connect(m_pages, &QTabWidget::currentChanged, this, [this] {
    if (m_statusPage && m_statusPage != m_pages->currentWidget()) {
      m_statusPage = nullptr;
      statusBar()->clearMessage();
    }
  });
  m_runsPage->progressBar()->setToolTip(tr("The race on the Runs page"));
  connect(m_runsPage, &RunsPage::statusMessage, this, &MainWindow::showStatus);
  connect(m_historyPage, &HistoryPage::statusMessage, this, &MainWindow::showStatus);
  connect(m_networksPage, &NetworksPage::statusMessage, this, &MainWindow::showStatus);
  connect(m_kernelsPage, &KernelsPage::statusMessage, this, &MainWindow::showStatus);
  connect(m_clusterPage, &ClusterPage::statusMessage, this, &MainWindow::showStatus);
  // The cluster connected on the Cluster page is the one a race can measure through.
  m_runsPage->setup()->clusterOption()->follow(m_clusterPage->controller());
  connect(m_runsPage, &RunsPage::raceEnded, m_historyPage, &HistoryPage::reload);
  // A network's task runs are runs of the store too.
  connect(m_networksPage, &NetworksPage::raceEnded, m_historyPage, &HistoryPage::reload);
  // The operator chosen on the Spaces page (a preset, a file, a just-saved edit) is the one a
  // device race measures next.
  connect(m_presetsPanel, &PresetsPanel::operatorChosen, this, [this] {
    const QString file = m_presetsPanel->selectedFile();
    if (!file.isEmpty())
      m_runsPage->setup()->addOperatorFile(file);
    else if (!m_presetsPanel->selectedPreset().isEmpty())
      m_runsPage->setup()->setOperator(m_presetsPanel->selectedPreset());
  });
  // The user's operator files are offered on the Topology page beside the presets, as they are
  // on the Runs page: every file of the library that loads, and one just saved.
  const auto offerFiles = [this] {
    const OperatorFileModel* files = m_presetsPanel->fileModel();
    for (int row = 0; row < files->rowCount(); ++row)
      m_topologyPage->addOperatorFile(files->entry(row).path, files->entry(row).definition, false,
                                      files->entry(row).error);
  };
  connect(m_presetsPanel->fileModel(), &QAbstractItemModel::modelReset, this, offerFiles);
  connect(m_presetsPanel->fileModel(), &QAbstractItemModel::rowsInserted, this, offerFiles);
  connect(m_presetsPanel->fileModel(), &QAbstractItemModel::dataChanged, this, offerFiles);
  offerFiles();
  connect(m_historyPage, &HistoryPage::resumeRequested, this, [this](const RunRecord& run) {
    m_pages->setCurrentWidget(m_runsPage);
    m_runsPage->resumeRun(run, m_historyPage->raceMatesOf({run}));
  });
  connect(m_historyPage, &HistoryPage::resumeRaceRequested, this,
          [this](const std::vector<RunRecord>& runs) {
            m_pages->setCurrentWidget(m_runsPage);
            m_runsPage->resumeRace(runs, m_historyPage->raceMatesOf(runs));
          });
  // More trials… stores a finished run's new total, then resumes it through the two above: not
  // while this engine runs a race, which would refuse the resume once the total is stored.
  m_historyPage->setEngine(m_runsPage->controller());
  // Double-clicking a parameter of a preset opens its graph on the Topology page.
  if (auto* params =
          m_presetsPanel->findChild<QAbstractItemView*>(QStringLiteral("parameterTable")))
    connect(params, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex& index) {
      showTopology(m_presetsPanel->selectedPreset(), index.siblingAtColumn(0).data().toString());
    });
  makeMenus();
  // Never an empty window: open on the first preset; a command line may pick another.
  m_presetsPanel->selectPreset(QStringLiteral("MM1"));
  updateStatusWidgets();
  startBackendProbe();
}

MainWindow::~MainWindow() = default;

QSize MainWindow::minimumWindowSize() {
  // A 1024x700 screen less a panel and the window's frame leaves about 1000x630.
  return {920, 600};
}

std::int64_t MainWindow::historySelectedRun() const {
  // The run History's Export kernel… takes: one run of a selection for both exports.
  const RunRecord* run = m_historyPage->exportRun();
  return run ? run->id : 0;
}

void MainWindow::openT4Export() {
  auto* dialog = new T4ExportDialog(m_storePath, historySelectedRun(), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &T4ExportDialog::exported, this,
          [this, dialog] { showStatus(dialog->message()); });
  dialog->open();
}

void MainWindow::showImportedRun(std::int64_t runId, const QString& summary) {
  showStatus(summary);
  // Selected once History has read the store again, after the page has put back the selection
  // it had (hence queued): the new run is the one drawn.
  connect(
      m_historyPage->model(), &QAbstractItemModel::modelReset, this,
      [this, runId] {
        QMetaObject::invokeMethod(
            this, [this, runId] { m_historyPage->selectRuns({runId}); }, Qt::QueuedConnection);
      },
      Qt::SingleShotConnection);
  m_pages->setCurrentWidget(m_historyPage);
  m_historyPage->reload();
}

void MainWindow::showStatus(const QString& text) {
  QWidget* from = qobject_cast<QWidget*>(sender());
  m_statusPage = from && m_pages->indexOf(from) >= 0 ? from : nullptr;
  m_statusText = text;
  m_statusUntil.setRemainingTime(8000);
  fitStatus();
}

QString MainWindow::statusShown() const {
  return statusBar()->currentMessage();
}

void MainWindow::fitStatus() {
  if (m_statusText.isEmpty()) return;
  QStatusBar* bar = statusBar();
  const int left = static_cast<int>(m_statusUntil.remainingTime());
  if (left <= 0) return;  // gone (QStatusBar clears it)
  // QStatusBar draws a message in the room its permanent widgets leave and cuts it at the edge,
  // mid-word: it is elided to that room instead, whole in the tooltip. The room is QStatusBar's
  // own message rectangle: from 6 px in to 2 px before the first permanent widget that shows
  // (and 12 px before the bar's end when none does).
  const auto room = [&] {
    int right = bar->width() - 12;
    for (const QWidget* w : m_permanent)
      if (w->isVisible()) right = std::min(right, w->x() - 2);
    return right - 6;
  };
  // At 1024 pixels a race's labels left a finish message 40 px: "Race…". The version and the
  // best backend (both in Help > About) give their room to a message that needs it, until it
  // goes.
  const int want = bar->fontMetrics().horizontalAdvance(m_statusText);
  if (want > room() && (m_versionLabel->isVisible() || m_backendLabel->isVisible())) {
    m_versionLabel->hide();
    m_backendLabel->hide();
    bar->layout()->activate();  // the permanent widgets move now, not on the next pass
  }
  const QString shown =
      bar->fontMetrics().elidedText(m_statusText, Qt::ElideRight, std::max(room(), 40));
  bar->setToolTip(shown == m_statusText ? QString() : m_statusText);
  if (shown != bar->currentMessage()) bar->showMessage(shown, left);
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  // A permanent widget that appears or grows (the progress bar at a race's start, a device's
  // long description) takes room from the message: it is elided again, not cut at the edge.
  const QEvent::Type t = event->type();
  if ((t == QEvent::Resize || t == QEvent::Move || t == QEvent::Show || t == QEvent::Hide) &&
      !m_statusText.isEmpty())
    QMetaObject::invokeMethod(this, &MainWindow::fitStatus, Qt::QueuedConnection);
  return QMainWindow::eventFilter(watched, event);
}

RaceResultsWidget* MainWindow::shownRace() const {
  if (m_pages->currentWidget() == m_runsPage) return m_runsPage->results();
  if (m_pages->currentWidget() == m_historyPage) return m_historyPage->results();
  return nullptr;
}

QWidget* MainWindow::shownChart(QString* fileStem) const {
  if (m_pages->currentWidget() == m_kernelsPage) {
    *fileStem = QStringLiteral("kernels");
    return m_kernelsPage->chart();
  }
  if (m_pages->currentWidget() == m_networksPage) {
    *fileStem = QStringLiteral("network");
    return m_networksPage->chartsOnShow();
  }
  return nullptr;
}

void MainWindow::exportChart(bool svg) {
  if (RaceResultsWidget* race = shownRace()) {
    svg ? race->exportSvgDialog() : race->exportPngDialog();
    return;
  }
  QString stem;
  QWidget* chart = shownChart(&stem);
  if (!chart) return;
  const QString suffix = svg ? QStringLiteral("svg") : QStringLiteral("png");
  const QString path = QFileDialog::getSaveFileName(
      this, svg ? tr("Save chart as SVG") : tr("Save chart as PNG"),
      stem + QLatin1Char('.') + suffix, svg ? tr("SVG (*.svg)") : tr("PNG (*.png)"));
  if (path.isEmpty()) return;
  const QString error = svg ? saveWidgetSvg(chart, path, m_pages->tabText(m_pages->currentIndex()))
                            : saveWidgetPng(chart, path);
  showStatus(error.isEmpty() ? tr("Saved %1").arg(QDir::toNativeSeparators(path)) : error);
}

void MainWindow::updateExportActions() {
  QString stem;
  const bool race = shownRace() != nullptr;
  m_exportPng->setEnabled(race || shownChart(&stem));
  m_exportSvg->setEnabled(m_exportPng->isEnabled());
  m_exportCsv->setEnabled(race);
}

void MainWindow::makeMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(m_runsPage->openDatasetAction());
  file->addAction(tr("Open operator &file…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this,
                  [this] {
                    m_pages->setCurrentIndex(SpacesPage);
                    m_presetsPanel->openFileDialog();
                  });
  file->addSeparator();
  // As `opevo import` and `opevo export-t4` do.
  QAction* import =
      file->addAction(tr("&Import measured file…"), QKeySequence(Qt::CTRL | Qt::Key_I), m_import,
                      &MeasuredFileImport::chooseFile);
  import->setObjectName(QStringLiteral("importAction"));
  import->setStatusTip(
      tr("Store a T4 file or a Kernel Tuner cache as a run; a T4 file exported "
         "here goes back as the run it was"));
  QAction* exportT4 = file->addAction(tr("Export run as &T4…"), this, &MainWindow::openT4Export);
  exportT4->setObjectName(QStringLiteral("exportT4Action"));
  file->addSeparator();
  m_exportPng = file->addAction(tr("Export chart as &PNG…"), QKeySequence(Qt::CTRL | Qt::Key_E),
                                this, [this] { exportChart(false); });
  m_exportSvg =
      file->addAction(tr("Export chart as &SVG…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E),
                      this, [this] { exportChart(true); });
  m_exportCsv = file->addAction(tr("Export trials as &CSV…"),
                                QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this, [this] {
                                  if (RaceResultsWidget* race = shownRace())
                                    race->exportCsvDialog();
                                });
  connect(m_pages, &QTabWidget::currentChanged, this, &MainWindow::updateExportActions);
  updateExportActions();
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(m_runsPage->startAction());
  run->addAction(m_runsPage->pauseAction());
  run->addAction(m_runsPage->stopAction());
  // Starting from another page shows the race being started.
  connect(m_runsPage->startAction(), &QAction::triggered, this,
          [this] { m_pages->setCurrentWidget(m_runsPage); });

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (int i = 0; i < m_pages->count(); ++i) {
    QAction* a =
        view->addAction(m_pages->tabText(i), this, [this, i] { m_pages->setCurrentIndex(i); });
    a->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
  }

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&User guide"), QKeySequence::HelpContents, this, &MainWindow::showHelp);
  help->addAction(tr("&About OpEvo Studio"), this, &MainWindow::showAbout);
}

void MainWindow::updateStatusWidgets() {
  QWidget* page = m_pages->currentWidget();
  m_runsPage->datasetStatus()->setVisible(page == m_runsPage || page == m_historyPage);
}

void MainWindow::followSpaces() {
  m_topologyFollows = false;
  // What it shows already is left alone: choosing it again would lay it out again and drop
  // the zoom and the sampled walks.
  const QString name = m_qwalkPanel->parameterName();
  if (name.isEmpty() && m_qwalkPanel->customSpec().trimmed().isEmpty() &&
      !m_presetsPanel->currentOperator() && !m_presetsPanel->selectedFile().isEmpty()) {
    showTopologyOf(QString(), QString());  // a file that failed to load: why, as on Spaces
    return;
  }
  if (name.isEmpty()) {  // a spec typed on Spaces
    if (!m_topologyPage->showingSpec(m_qwalkPanel->customSpec()))
      m_topologyPage->setCustomSpec(m_qwalkPanel->customSpec());
    return;
  }
  const QString preset = m_presetsPanel->selectedPreset();
  if (!m_topologyPage->showing(preset.isEmpty() ? m_presetsPanel->selectedFile() : preset,
                               m_presetsPanel->templateBox()->current(), name))
    showTopologyOf(preset, name);
}

void MainWindow::showTopology(const QString& preset, const QString& parameter) {
  showTopologyOf(preset, parameter);
  m_topologyFollows = false;
  m_pages->setCurrentWidget(m_topologyPage);
}

void MainWindow::showTopologyOf(const QString& preset, const QString& parameter) {
  // A preset, or a user's operator file (offered there too); else the parameter as a custom spec.
  const SearchSpace* space = m_presetsPanel->space();
  const int index = space ? space->indexOf(parameter.toStdString()) : -1;
  const QString file = m_presetsPanel->selectedFile();
  if (preset.isEmpty() && !file.isEmpty())
    m_topologyPage->addOperatorFile(file, m_presetsPanel->currentOperator(), false);
  if (m_topologyPage->selectOperator(preset.isEmpty() ? file : preset,
                                     m_presetsPanel->templateBox()->current()))
    m_topologyPage->selectParameter(parameter);
  else if (index >= 0)
    m_topologyPage->setCustomSpec(
        QString::fromStdString(space->param(static_cast<std::size_t>(index)).spec()));
}

QString MainWindow::backendText() const {
  return m_backendLabel->text();
}

QString MainWindow::runtimesText() const {
  return joinRuntimes(m_runtimes);
}

QString MainWindow::aboutText() const {
  int major = 0, minor = 0, patch = 0;
  XGBoostVersion(&major, &minor, &patch);
  // One row per backend: joined on one line, three probe reasons ran together unreadably.
  QString backends;
  if (m_best.isEmpty())
    backends = tr("<tr><td>Backends</td><td>still probing…</td></tr>");
  else
    backends = tr("<tr><td>Best backend</td><td>%1</td></tr>").arg(m_best.toHtmlEscaped());
  for (const auto& [name, found] : m_runtimes)
    backends += QStringLiteral("<tr><td>&nbsp;&nbsp;%1</td><td>%2</td></tr>")
                    .arg(name.toHtmlEscaped(), found.toHtmlEscaped());
  return tr("<h3>OpEvo Studio %1</h3>"
            "<p>Tunes tensor operators with OpEvo's topology-aware search and races it against "
            "other algorithms.</p>"
            "<table cellspacing=\"2\" cellpadding=\"2\">"
            "<tr><td>Qt</td><td>%2 (built with %3)</td></tr>"
            "<tr><td>XGBoost</td><td>%4.%5.%6</td></tr>"
            "%7"
            "</table>")
      .arg(QStringLiteral(OPEVO_VERSION), QString::fromLatin1(qVersion()),
           QStringLiteral(QT_VERSION_STR))
      .arg(major)
      .arg(minor)
      .arg(patch)
      .arg(backends);
}

void MainWindow::showHelp() {
  if (!m_help) m_help = new HelpWindow(this);  // a window of its own, kept while the main one is
  m_help->show();
  m_help->raise();
  m_help->activateWindow();
}

void MainWindow::showAbout() {
  auto* box = new QMessageBox(QMessageBox::Information, tr("About OpEvo Studio"), aboutText(),
                              QMessageBox::Close, this);
  box->setObjectName(QStringLiteral("aboutBox"));
  box->setIconPixmap(windowIcon().pixmap(64, 64));
  // Wide enough that a probe's reason reads on one or two lines, not six.
  box->setStyleSheet(QStringLiteral("QLabel#qt_msgbox_label { min-width: 34em; }"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();  // not exec(): the engine's signals keep flowing while it is up
}

void MainWindow::setRemembersSettings(bool remembers) {
  m_remembersSettings = remembers;
  setSessionMemoryPersists(remembers);
}

void MainWindow::saveSettings() const {
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  settings.setValue(QStringLiteral("window/page"), m_pages->currentIndex());
  for (const QSplitter* s : findChildren<QSplitter*>())
    if (!s->objectName().isEmpty()) saveSplit(settings, *s);
  m_runsPage->setup()->saveState(settings);
  m_networksPage->setup()->saveState(settings);
  m_clusterPage->saveState(settings);
}

void MainWindow::restoreSettings() {
  if (!m_remembersSettings) return;
  QSettings settings;
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  fitToScreen();
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  m_pages->setCurrentIndex(settings.value(QStringLiteral("window/page"), 0).toInt());
  // A split saved under an older default than the page's now is left for the new default.
  for (QSplitter* s : findChildren<QSplitter*>())
    if (!s->objectName().isEmpty()) restoreSplit(settings, *s);
  m_runsPage->setup()->restoreState(settings);
  m_networksPage->setup()->restoreState(settings);
  m_clusterPage->restoreState(settings);
}

void MainWindow::fitToScreen() {
  // A geometry saved on a larger screen (1264x760 on a 1024x700 one) put the window's edge, and
  // the buttons there, out of reach; Qt keeps it as saved.
  const QScreen* screen = this->screen();
  if (!screen || isMaximized() || isFullScreen()) return;
  resizeToFit(this, size());
  // Before it is shown a window has no frame yet: the one resizeToFit allows for is assumed.
  const QSize outer = isVisible() ? frameGeometry().size() : size() + QSize(16, 40);
  const QRect room = screen->availableGeometry();
  move(std::clamp(x(), room.left(), std::max(room.left(), room.right() + 1 - outer.width())),
       std::clamp(y(), room.top(), std::max(room.top(), room.bottom() + 1 - outer.height())));
}

QStringList MainWindow::running() const {
  QStringList out;
  // Each with where it goes on: a network's task runs resume with their network, not alone.
  if (m_runsPage->controller()->busy())
    out << tr("a race on the Runs page (its runs resume from History)");
  if (m_networksPage->controller()->busy())
    out << tr("a network's race on the Networks page (Resume there goes on with it)");
  if (m_kernelsPage->controller()->busy())
    out << tr("a kernel search on the Kernels page (Resume there goes on with it)");
  return out;
}

void MainWindow::quitWithoutAsking() {
  m_quitAnswered = true;
  close();
}

void MainWindow::askToQuit(const QStringList& running) {
  if (auto* open = findChild<QMessageBox*>(QStringLiteral("quitBox"))) {
    open->raise();
    return;
  }
  auto* box = new QMessageBox(
      QMessageBox::Question, tr("Quit OpEvo Studio"),
      tr("Still running: %1.\n\nQuitting stops it: every trial measured so far is kept.")
          .arg(running.join(QStringLiteral("; "))),
      QMessageBox::Cancel, this);
  box->setObjectName(QStringLiteral("quitBox"));
  QPushButton* quit = box->addButton(tr("Stop and quit"), QMessageBox::AcceptRole);
  quit->setObjectName(QStringLiteral("stopAndQuit"));
  box->setDefaultButton(QMessageBox::Cancel);
  box->setAttribute(Qt::WA_DeleteOnClose);
  connect(quit, &QPushButton::clicked, this, &MainWindow::quitWithoutAsking, Qt::QueuedConnection);
  box->open();  // not exec(): the race's signals keep flowing while the question is up
}

void MainWindow::closeEvent(QCloseEvent* event) {
  // Quitting mid-race stopped it without a word; what runs is named and the user decides.
  if (const QStringList busy = running(); !busy.isEmpty() && !m_quitAnswered) {
    event->ignore();
    askToQuit(busy);
    return;
  }
  if (m_remembersSettings) saveSettings();
  m_runsPage->stop();  // the engine finishes its trial and stops; nothing stored is lost
  m_networksPage->stop();
  m_kernelsPage->stop();
  QMainWindow::closeEvent(event);
}

void MainWindow::startBackendProbe() {
  // Opening GPU drivers can take a while (cuInit on a busy box), so the window shows first.
  // The job captures nothing of the window, so closing it early is safe.
  m_probe.start(
      []() -> BackendProbe {
        try {
          const std::vector<BackendInfo> backends = opevo::probeBackends();
          const std::string best = bestBackend(backends);
          QList<QPair<QString, QString>> runtimes;
          for (const BackendInfo& b : backends) {
            QString line;
            if (b.available) {
              QStringList devices;
              for (const DeviceInfo& d : b.devices) devices << QString::fromStdString(d.name);
              line +=
                  QString::fromStdString(b.library) +
                  (devices.isEmpty() ? QString()
                                     : QStringLiteral(" (") + devices.join(QStringLiteral(", ")) +
                                           QLatin1Char(')'));
            } else {
              line += QObject::tr("not found (%1)").arg(QString::fromStdString(b.reason));
            }
            runtimes.append({QString::fromStdString(b.name), line});
          }
          return {best.empty() ? QObject::tr("none found") : QString::fromStdString(best), runtimes,
                  backends};
        } catch (const std::exception& e) {
          return {QObject::tr("probe failed (%1)").arg(QString::fromUtf8(e.what())), {}, {}};
        }
      },
      [this](const BackendProbe& probe) {
        // The machine's, not the page's: a replay measures nothing here.
        m_backendLabel->setText(tr("Best backend here: %1").arg(probe.best));
        m_backendLabel->setToolTip(
            tr("The best measurement backend this machine offers, which a new run on a device "
               "uses unless another is chosen (a replay measures nothing): %1")
                .arg(joinRuntimes(probe.runtimes)));
        m_runtimes = probe.runtimes;
        m_best = probe.best;
        m_runsPage->setup()->setBackends(probe.backends);
      });
}

}  // namespace opevo::ui
