// opevo-studio: the desktop application. The options open the window in a given state, for
// screenshots, bug reports and demos; everything they do can be done by hand in the window.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <QAbstractItemModel>
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QSocketNotifier>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "common/openmp_waiting.h"
#include "ui/charts/race_results_widget.h"
#include "ui/main_window.h"
#include "ui/models/history_model.h"
#include "ui/pages/cluster_page.h"
#include "ui/pages/history_page.h"
#include "ui/pages/networks_page.h"
#include "ui/pages/presets_panel.h"
#include "ui/pages/qwalk_panel.h"
#include "ui/pages/runs_page.h"
#include "ui/pages/sweep_dialog.h"
#include "ui/pages/topology_page.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/cluster_connect_bar.h"
#include "ui/widgets/cluster_race_option.h"
#include "ui/widgets/dataset_picker.h"
#include "ui/widgets/help_window.h"
#include "ui/widgets/kernel_export_dialog.h"
#include "ui/widgets/network_setup_panel.h"
#include "ui/widgets/race_setup_panel.h"
#include "ui/widgets/space_template_box.h"
#include "ui/widgets/wheel_guard.h"

namespace {

QCommandLineOption option(const char* name, const char* help, const char* value = nullptr) {
  return value ? QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(help),
                                    QString::fromLatin1(value))
               : QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(help));
}

// Help and version are text: they must work over ssh, in CI and in scripts, where no display is.
bool asksForTextOnly(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "-h" || a == "--help" || a == "--help-all" || a == "-v" || a == "--version")
      return true;
  }
  return false;
}

// Qt would abort with a message about its xcb plugin; say what is missing and what to do instead.
bool hasSomewhereToShow(int argc, char** argv) {
  for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
    if (const char* value = std::getenv(name); value && *value) return true;
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "-platform") return true;
  return false;
}

// SIGTERM and SIGINT end the window as File > Quit does once answered: the race stops, its runs
// are stored as stopped (not left 'running'), the form is saved. A handler may only do
// async-signal-safe work, so it writes the signal's number to a pipe that the event loop watches.
int g_signalPipe[2] = {-1, -1};

void onTerminationSignal(int signal) {
  const int saved = errno;
  const char byte = static_cast<char>(signal);
  [[maybe_unused]] const ssize_t n = write(g_signalPipe[1], &byte, 1);
  errno = saved;
}

void quitOnTerminationSignals(opevo::ui::MainWindow& window) {
  if (pipe2(g_signalPipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    std::perror("opevo-studio: cannot watch for SIGTERM (pipe)");
    return;
  }
  auto* notifier = new QSocketNotifier(g_signalPipe[0], QSocketNotifier::Read, &window);
  QObject::connect(notifier, &QSocketNotifier::activated, &window, [&window] {
    char bytes[16];
    while (read(g_signalPipe[0], bytes, sizeof bytes) > 0) {
    }
    window.quitWithoutAsking();
    // A dialog's own event loop (a file dialog, the quit question) would keep the program up.
    QCoreApplication::quit();
  });
  struct sigaction action {};
  action.sa_handler = onTerminationSignal;
  sigemptyset(&action.sa_mask);
  // One signal stops gracefully; a second (the program still waiting on a GPU trial, say) takes
  // the default action, as pressing Ctrl-C again is meant to.
  action.sa_flags = SA_RESTART | SA_RESETHAND;
  for (const int signal : {SIGTERM, SIGINT}) sigaction(signal, &action, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  opevo::boundOpenMpWaiting(argv);  // may run the program anew, before anything else
  // Set before any application object exists so that --help and --version read them too.
  QCoreApplication::setApplicationName(QStringLiteral("OpEvo Studio"));
  QCoreApplication::setOrganizationName(QStringLiteral("opevo"));
  QCoreApplication::setApplicationVersion(QStringLiteral(OPEVO_VERSION));
  const bool textOnly = asksForTextOnly(argc, argv);
  if (!textOnly && !hasSomewhereToShow(argc, argv)) {
    std::fprintf(stderr,
                 "opevo-studio: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are "
                 "unset).\nRun it in a desktop session, under xvfb-run, with "
                 "QT_QPA_PLATFORM=offscreen, or use the command-line tool 'opevo'.\n");
    return 1;
  }
  // QCoreApplication needs no display; it only lives until process() has printed and exited.
  std::unique_ptr<QCoreApplication> app = textOnly ? std::make_unique<QCoreApplication>(argc, argv)
                                                   : std::make_unique<QApplication>(argc, argv);
  QGuiApplication::setDesktopFileName(QStringLiteral("opevo-studio"));
  if (!textOnly) app->installEventFilter(new opevo::ui::WheelGuard(app.get()));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Tune tensor operators with topology-aware search spaces."));
  parser.addHelpOption();
  parser.addVersionOption();
  const auto presetOpt = option("preset",
                                "Select a preset: MM1-3, BMM1-3, C1-2, AlexNet, ResNet-18 and "
                                "MobileNetV2 layers (opevo space lists them).",
                                "name");
  const auto paramOpt = option("param",
                               "Show the q-walk of a parameter of the preset (e.g. tile_k) "
                               "or of a spec (e.g. factor:8:3), on Spaces and Topology.",
                               "name-or-spec");
  const auto spaceOpt =
      option("space",
             "On Spaces and Topology, the preset's space in a template: cpu (the paper's loops), "
             "gpu (the CUDA/HIP loops), joint (ALT's layouts and loops), winograd or matvec.",
             "template");
  const auto fromOpt = option("from", "Start vertex of the walk, e.g. 8,1,1.", "vertex");
  const auto qOpt = option("q", "Probability of each step, the first included, 0 < q < 1.", "q");
  const auto samplesOpt = option("samples", "On Topology, overlay this many sampled walks.", "n");
  const auto pageOpt =
      option("page", "Open on a page: spaces, topology, runs, history, networks, kernels, cluster.",
             "page");
  const auto datasetOpt = option("dataset", "Load a measured dataset on the Runs page.", "file");
  const auto algosOpt = option("algos", "Algorithms to race, e.g. opevo,autotvm.", "list");
  const auto repeatsOpt = option("repeats", "Repeats per algorithm.", "n");
  const auto trialsOpt = option("trials", "Trials per run.", "n");
  const auto paceOpt = option("pace", "Milliseconds per replayed trial (to watch a race).", "ms");
  const auto startOpt = option("start", "Start the race once the dataset is loaded.");
  const auto repeatsLinesOpt = option("show-repeats", "Draw each repeat as a faint line.");
  const auto chartOpt = option("chart", "Show the race chart against: trials, time.", "axis");
  const auto logXOpt = option("log-x", "Logarithmic x axis on the race charts.");
  const auto historyOpt =
      option("open-latest-race", "On History, draw the newest race that has trials.");
  const auto openRunsOpt =
      option("open-runs",
             "On History, draw these runs together (ids as opevo runs lists them: 1,2,3).", "ids");
  const auto freshOpt = option("no-restore", "Ignore the saved window layout and race form.");
  const auto operatorOpt =
      option("operator", "List an operator file in the library and select it.", "file");
  const auto editOpt =
      option("edit", "Open the selected operator in the editor (a preset as a copy).");
  const auto backendOpt =
      option("backend", "Race on: replay (a dataset), cpu, cuda or hip.", "name");
  const auto raceOperatorOpt =
      option("race-operator", "The operator a device race measures: a preset or a file.",
             "preset-or-file");
  const auto modeOpt =
      option("mode",
             "What a device race tunes: loop (plain layouts), joint (layouts and loops), "
             "winograd (Winograd's template, stride-1 convolutions), matvec, or two spaces at "
             "once, their runs taking turns (loop+joint, loop+winograd); with --network, a "
             "comma-separated list (loop,joint races both; joint-np; winograd).",
             "mode");
  const auto exportOpt =
      option("export-latest", "On History, open the export dialog of the newest run.");
  const auto exportTabOpt = option(
      "export-tab",
      "With --export-latest, the dialog's tab: source, or layouts (a run that tuned layouts).",
      "tab");
  const auto networkOpt = option(
      "network",
      "On Networks, choose a network (a preset or a file); --algos, --trials and --start then "
      "apply to its race.",
      "preset-or-file");
  const auto schedulersOpt =
      option("schedulers", "On Networks, the schedulers raced: gradient,round-robin.", "list");
  const auto sweepOpt = option(
      "sweep", "Once the dataset is loaded, open the Sweep dialog and run its default study.");
  const auto clusterOpt =
      option("cluster",
             "Connect the Cluster page to this cluster (HOST:PORT or unix:PATH; the password from "
             "OPEVO_CLUSTER_PASSWORD) and measure races through it.",
             "address");
  const auto guideOpt = option(
      "guide", "Open the user guide (F1) on a page of it: README.md, docs/kas.md...", "page");
  const auto dbOpt = option("db",
                            "The database to read and store in, as the command line's --db "
                            "(default: the user's data folder; or $OPEVO_DB).",
                            "file");
  parser.addOption(clusterOpt);
  parser.addOption(guideOpt);
  parser.addOption(dbOpt);
  parser.addOption(spaceOpt);
  parser.addOptions({presetOpt,       paramOpt,     fromOpt,         qOpt,       samplesOpt,
                     pageOpt,         datasetOpt,   algosOpt,        repeatsOpt, trialsOpt,
                     paceOpt,         startOpt,     repeatsLinesOpt, chartOpt,   logXOpt,
                     historyOpt,      freshOpt,     operatorOpt,     editOpt,    backendOpt,
                     raceOperatorOpt, exportOpt,    sweepOpt,        networkOpt, schedulersOpt,
                     modeOpt,         exportTabOpt, openRunsOpt});
  parser.process(*app);
  // A -v or -h that was the value of another option: the window was not asked for after all.
  if (textOnly) parser.showHelp(2);

  // Before the window: every page reads its store's path from Store::defaultPath(), which this
  // names, and so do the programs the window starts.
  if (parser.isSet(dbOpt)) {
    std::error_code ec;
    const std::filesystem::path db =
        std::filesystem::absolute(parser.value(dbOpt).toStdString(), ec).lexically_normal();
    if (parser.value(dbOpt).isEmpty() || ec || !db.has_filename()) {
      std::fprintf(stderr, "opevo-studio: --db needs a database file, got '%s'\n",
                   qPrintable(parser.value(dbOpt)));
      return 2;
    }
    setenv("OPEVO_DB", db.c_str(), 1);
  }
  using namespace opevo::ui;
  MainWindow window;
  if (parser.isSet(freshOpt))
    window.setRemembersSettings(false);
  else
    window.restoreSettings();
  quitOnTerminationSignals(window);
  // A bad option is reported but still opens the window: it is the same input the window
  // validates, and the window shows why it was refused.
  QStringList problems;
  TopologyPage* topology = window.topologyPage();
  if (parser.isSet(presetOpt)) {
    const QString name = parser.value(presetOpt);
    if (!window.presetsPanel()->selectPreset(name))
      problems << QStringLiteral(
                      "unknown preset '%1' (presets: MM1-3, BMM1-3, C1-2, AlexNet and "
                      "ResNet-18 layers: opevo space lists them)")
                      .arg(name);
    topology->selectOperator(name);
  }
  if (parser.isSet(operatorOpt) && !window.presetsPanel()->openFile(parser.value(operatorOpt)))
    problems << QStringLiteral("the operator file '%1' was refused (its row says why)")
                    .arg(parser.value(operatorOpt));
  // After --operator: the template applies to the operator selected last, a preset or a file.
  if (parser.isSet(spaceOpt)) {
    const std::optional<SpaceTemplate> t = parseSpaceTemplate(parser.value(spaceOpt));
    if (!t)
      problems << QStringLiteral(
                      "unknown space template '%1' (cpu, gpu, joint, winograd or matvec)")
                      .arg(parser.value(spaceOpt));
    else if (!window.presetsPanel()->templateBox()->select(*t))
      problems << QStringLiteral("the operator has no %1 space (the template box says why)")
                      .arg(parser.value(spaceOpt));
    else  // Topology lists presets only: after --operator its preset may not take the template
      topology->selectTemplate(*t);
  }
  if (parser.isSet(editOpt)) window.presetsPanel()->editSelected();
  if (parser.isSet(paramOpt)) {
    const QString param = parser.value(paramOpt);
    if (param.contains(QLatin1Char(':'))) {
      window.qwalkPanel()->setCustomSpec(param);
      topology->setCustomSpec(param);
    } else {
      if (!window.qwalkPanel()->selectParameter(param))
        problems << QStringLiteral("the preset has no parameter '%1'").arg(param);
      topology->selectParameter(param);
    }
  }
  if (parser.isSet(fromOpt)) {
    window.qwalkPanel()->setStartText(parser.value(fromOpt));
    topology->setStartText(parser.value(fromOpt));
  }
  if (parser.isSet(qOpt)) {
    window.qwalkPanel()->setQText(parser.value(qOpt));
    topology->setQText(parser.value(qOpt));
  }
  if (parser.isSet(samplesOpt)) {
    const int walks = parser.value(samplesOpt).toInt();
    QObject::connect(
        topology, &TopologyPage::distributionShown, topology,
        [topology, walks] { topology->sampleWalks(walks); }, Qt::SingleShotConnection);
  }

  RunsPage* runs = window.runsPage();
  RaceSetupPanel* setup = runs->setup();
  if (parser.isSet(clusterOpt)) {
    ClusterPage* cluster = window.clusterPage();
    cluster->connectBar()->setAddress(parser.value(clusterOpt));
    if (cluster->connectToCluster()) setup->clusterOption()->setChecked(true);
  }
  // --network turns --algos, --trials and --start to the Networks page.
  const bool networkRace = parser.isSet(networkOpt);
  if (networkRace) {
    NetworksPage* networks = window.networksPage();
    NetworkSetupPanel* form = networks->setup();
    form->selectNetwork(parser.value(networkOpt));
    if (parser.isSet(algosOpt) && !form->setAlgorithms(parser.value(algosOpt).split(',')))
      problems << QStringLiteral("unknown algorithm in '%1' (opevo tuners lists them)")
                      .arg(parser.value(algosOpt));
    if (parser.isSet(schedulersOpt) && !form->setSchedulers(parser.value(schedulersOpt).split(',')))
      problems << QStringLiteral("unknown scheduler in '%1' (gradient, round-robin)")
                      .arg(parser.value(schedulersOpt));
    if (parser.isSet(trialsOpt)) form->setTrials(parser.value(trialsOpt).toInt());
    if (parser.isSet(modeOpt) && !form->setModes(parser.value(modeOpt).split(',')))
      problems << QStringLiteral("unknown mode in '%1' (loop, joint)").arg(parser.value(modeOpt));
    if (parser.isSet(startOpt)) QTimer::singleShot(0, networks, [networks] { networks->start(); });
  }
  if (parser.isSet(algosOpt) && !networkRace)
    setup->algorithmPanel()->setChecked(parser.value(algosOpt).split(QLatin1Char(',')));
  if (parser.isSet(repeatsOpt)) setup->setRepeats(parser.value(repeatsOpt).toInt());
  // --trials is the whole budget, as `opevo compare --trials` is: a time or a target left ticked
  // by the saved form would end the runs early, unseen (a restored "Time 5 s" once ended a
  // 20-trial race after 13).
  if (parser.isSet(trialsOpt) && !networkRace) {
    setup->setTrials(parser.value(trialsOpt).toInt());
    setup->setSeconds(std::nullopt);
    setup->setTarget(std::nullopt);
  }
  if (parser.isSet(paceOpt)) setup->setPaceMs(parser.value(paceOpt).toInt());
  if (parser.isSet(repeatsLinesOpt)) runs->results()->setShowRepeats(true);
  if (parser.isSet(logXOpt)) runs->results()->setLogX(true);
  if (parser.value(chartOpt) == QLatin1String("time")) runs->results()->tabs()->setCurrentIndex(1);
  if (parser.isSet(backendOpt) && !setup->setBackend(parser.value(backendOpt).toLower()))
    problems << QStringLiteral("unknown backend '%1' (replay, cpu, cuda, hip)")
                    .arg(parser.value(backendOpt));
  // A dataset can only be replayed: --dataset without --backend races its replay, whatever the
  // saved form measured on (a saved CPU once raced MM1 for real instead of the dataset given).
  if (parser.isSet(datasetOpt) && !parser.isSet(backendOpt) && !networkRace)
    setup->setBackend(QStringLiteral("replay"));
  if (parser.isSet(raceOperatorOpt)) {
    const QString op = parser.value(raceOperatorOpt);
    if (!setup->setOperator(op)) setup->addOperatorFile(op);
  }
  if (parser.isSet(modeOpt) && !networkRace && !setup->setMode(parser.value(modeOpt).toLower()))
    problems << QStringLiteral(
                    "unknown mode '%1' (loop, joint, winograd, matvec, loop+joint, "
                    "loop+winograd)")
                    .arg(parser.value(modeOpt));
  // Once the dataset to race is read: the one --dataset names, not the saved form's, which may
  // be read first (its load was started by restoreSettings, and a start while the named one was
  // still being read was refused).
  const QString wanted =
      parser.isSet(datasetOpt) ? QFileInfo(parser.value(datasetOpt)).absoluteFilePath() : QString();
  const auto whenDatasetLoaded = [picker = setup->datasetPicker(), runs,
                                  wanted](std::function<void()> then) {
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = QObject::connect(
        picker, &DatasetPicker::loaded, runs,
        [connection, wanted, then](const std::shared_ptr<const opevo::ReplayDataset>& d) {
          if (!wanted.isEmpty() &&
              QFileInfo(QString::fromStdString(d->path)).absoluteFilePath() != wanted)
            return;
          QObject::disconnect(*connection);
          then();
        });
  };
  // A replay starts once its dataset is read; a device race once the probe has found devices.
  if (networkRace) {
    // started above
  } else if (parser.isSet(startOpt) && setup->backend() == QLatin1String("replay"))
    whenDatasetLoaded([runs] { runs->start(); });
  else if (parser.isSet(startOpt))
    QObject::connect(
        setup, &RaceSetupPanel::backendsKnown, runs, [runs] { runs->start(); },
        Qt::SingleShotConnection);
  if (parser.isSet(sweepOpt))
    whenDatasetLoaded([runs] {
      if (SweepDialog* dialog = runs->openSweep()) dialog->run();
    });
  if (parser.isSet(datasetOpt)) setup->datasetPicker()->load(parser.value(datasetOpt));
  if (parser.isSet(historyOpt)) {
    HistoryPage* history = window.historyPage();
    QObject::connect(
        history->model(), &QAbstractItemModel::modelReset, history,
        [history] { history->selectRace(std::max(0, history->model()->newestWithTrials())); },
        Qt::SingleShotConnection);
  }
  if (parser.isSet(openRunsOpt)) {
    std::vector<std::int64_t> ids;
    for (const QString& token : parser.value(openRunsOpt).split(QLatin1Char(','))) {
      bool ok = false;
      const qlonglong id = token.trimmed().toLongLong(&ok);
      if (ok && id > 0)
        ids.push_back(id);
      else
        problems << QStringLiteral("--open-runs: '%1' is not a run id").arg(token.trimmed());
    }
    HistoryPage* history = window.historyPage();
    QObject::connect(
        history->model(), &QAbstractItemModel::modelReset, history,
        [history, ids, &window] {
          QStringList missing;
          for (const std::int64_t id : history->selectRuns(ids)) missing << QString::number(id);
          if (missing.isEmpty()) return;
          const QString text =
              QStringLiteral("--open-runs: no run %1 in the store").arg(missing.join(", "));
          std::fprintf(stderr, "opevo-studio: %s\n", qPrintable(text));
          window.statusBar()->showMessage(text);
        },
        Qt::SingleShotConnection);
  }
  const QString exportTab = parser.value(exportTabOpt).toLower();
  if (!exportTab.isEmpty() && exportTab != QLatin1String("source") &&
      exportTab != QLatin1String("layouts"))
    problems << QStringLiteral("unknown export tab '%1' (source, layouts)")
                    .arg(parser.value(exportTabOpt));
  if (parser.isSet(exportOpt)) {
    HistoryPage* history = window.historyPage();
    QObject::connect(
        history->model(), &QAbstractItemModel::modelReset, history,
        [history, tab = exportTab] {
          if (history->model()->rowCount() == 0) return;
          history->view()->setCurrentIndex(history->model()->index(0, 0));
          KernelExportDialog* dialog = history->exportCurrent();
          if (dialog && !tab.isEmpty()) dialog->showTab(tab);
        },
        Qt::SingleShotConnection);
  }
  if (parser.isSet(pageOpt)) {
    const QStringList pages{QStringLiteral("spaces"),   QStringLiteral("topology"),
                            QStringLiteral("runs"),     QStringLiteral("history"),
                            QStringLiteral("networks"), QStringLiteral("kernels"),
                            QStringLiteral("cluster")};
    const auto index = pages.indexOf(parser.value(pageOpt).toLower());
    if (index < 0)
      problems << QStringLiteral("unknown page '%1' (pages: %2)")
                      .arg(parser.value(pageOpt), pages.join(QStringLiteral(", ")));
    else
      window.pages()->setCurrentIndex(static_cast<int>(index));
  }

  for (const QString& problem : problems)
    std::fprintf(stderr, "opevo-studio: %s\n", qPrintable(problem));
  if (!problems.isEmpty()) window.statusBar()->showMessage(problems.join(QStringLiteral("; ")));

  window.show();
  // After the main window, so that the guide is shown above it.
  if (parser.isSet(guideOpt)) {
    window.showHelp();
    if (!window.helpWindow()->openPage(parser.value(guideOpt)))
      std::fprintf(
          stderr, "opevo-studio: %s\n",
          qPrintable(
              HelpWindow::docsDir().isEmpty()
                  ? QStringLiteral("the user guide was not found")
                  : QStringLiteral("the user guide has no page '%1'").arg(parser.value(guideOpt))));
  }
  return QApplication::exec();
}
