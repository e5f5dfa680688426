// The window under load (issue 18): one replay race of many algorithms x repeats x trials run
// from the Runs page as a user starts it, on the offscreen platform. Prints the longest time the
// GUI thread went without running its event loop, the process's peak resident memory, the time
// taken, and checks the store afterwards (PRAGMA integrity_check, every run's trial count).
//
//   bench_gui_load [--algos a,b,...] [--repeats N] [--trials N] [--dataset FILE]
//
// Defaults: 8 algorithms x 10 repeats x 2000 trials on resources/datasets/gemm/RTX_2080_Ti.
// The store, layout and kernel cache go to a temporary folder (XDG_* set for this process).
#include <sqlite3.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>
#include <fstream>
#include <string>

#include "gui/gui_test_support.h"
#include "store/store.h"
#include "ui/controller/engine_controller.h"
#include "ui/main_window.h"
#include "ui/pages/runs_page.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/dataset_picker.h"
#include "ui/widgets/race_setup_panel.h"

namespace {

// A line of /proc/self/status in kB ("VmRSS", "VmHWM").
long statusKb(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  return -1;
}

std::string integrityCheck(const std::string& path) {
  sqlite3* db = nullptr;
  std::string result = "cannot open";
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
      result = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QTemporaryDir home;
  opevo::ui::test::useFoldersIn(home);
  QApplication app(argc, argv);
  QStringList algos =
      QStringLiteral("opevo,opevo-m,autotvm,ansor,random,annealing,genetic,exhaustive")
          .split(QLatin1Char(','));
  int repeats = 10, trials = 2000;
  QString dataset = QStringLiteral(OPEVO_DATASETS_DIR "/gemm/RTX_2080_Ti.json.gz");
  const QStringList args = QApplication::arguments();
  for (int i = 1; i + 1 < args.size(); i += 2) {
    if (args[i] == QLatin1String("--algos"))
      algos = args[i + 1].split(QLatin1Char(','));
    else if (args[i] == QLatin1String("--repeats"))
      repeats = args[i + 1].toInt();
    else if (args[i] == QLatin1String("--trials"))
      trials = args[i + 1].toInt();
    else if (args[i] == QLatin1String("--dataset"))
      dataset = args[i + 1];
    else {
      std::fprintf(stderr, "bench_gui_load: unknown option %s\n", qPrintable(args[i]));
      return 2;
    }
  }

  using namespace opevo;
  using namespace opevo::ui;
  MainWindow window;
  window.resize(1280, 800);
  window.show();
  RunsPage* runs = window.runsPage();
  window.pages()->setCurrentWidget(runs);
  RaceSetupPanel* setup = runs->setup();
  setup->datasetPicker()->load(dataset);
  if (!test::waitUntil([&] { return setup->datasetPicker()->dataset() != nullptr; }, 60000)) {
    std::fprintf(stderr, "bench_gui_load: %s did not load\n", qPrintable(dataset));
    return 1;
  }
  setup->algorithmPanel()->setChecked(algos);
  setup->setRepeats(repeats);
  setup->setTrials(trials);
  setup->setPaceMs(0);
  const long rssBefore = statusKb("VmRSS");
  long rssPeakSampled = rssBefore;
  QTimer sampler;
  QObject::connect(&sampler, &QTimer::timeout,
                   [&] { rssPeakSampled = std::max(rssPeakSampled, statusKb("VmRSS")); });
  sampler.start(500);

  QElapsedTimer clock;
  clock.start();
  test::StallProbe probe;
  if (!runs->start()) {
    std::fprintf(stderr, "bench_gui_load: the race did not start: %s\n",
                 qPrintable(runs->message()));
    return 1;
  }
  test::waitUntil([&] { return !runs->controller()->busy(); }, 24 * 3600 * 1000);
  const double seconds = clock.elapsed() / 1000.0;
  const qint64 stall = probe.longestMs();
  // Let the last repaints happen, as a user would see the finished race.
  QTest::qWait(500);

  // Every trial the window was told of (its table keeps the latest of them).
  const auto drawn = static_cast<std::size_t>(runs->data()->trialCount());
  const std::string path = Store::defaultPath();
  std::size_t stored = 0, runCount = 0, complete = 0;
  {
    Store store(path);
    for (const RunRecord& r : store.runs()) {
      ++runCount;
      const std::size_t n = store.trials(r.id).size();
      stored += n;
      complete += n == static_cast<std::size_t>(trials) ? 1 : 0;
    }
  }
  const std::string integrity = integrityCheck(path);
  std::printf("race: %lld algorithms x %d repeats x %d trials on %s\n",
              static_cast<long long>(algos.size()), repeats, trials,
              qPrintable(QFileInfo(dataset).fileName()));
  std::printf("time: %.1f s (%.0f trials/s)\n", seconds, drawn / std::max(seconds, 1e-9));
  std::printf("trials drawn: %zu; stored: %zu in %zu runs, %zu with all %d trials\n", drawn, stored,
              runCount, complete, trials);
  std::printf("longest GUI-thread stall: %lld ms\n", static_cast<long long>(stall));
  std::printf("resident memory: %.1f MiB before the race, peak %.1f MiB (VmHWM %.1f MiB)\n",
              rssBefore / 1024.0, rssPeakSampled / 1024.0, statusKb("VmHWM") / 1024.0);
  std::printf("PRAGMA integrity_check: %s\n", integrity.c_str());
  std::printf("message: %s\n",
              qPrintable(runs->message().isEmpty() ? runs->note() : runs->message()));
  const bool ok = integrity == "ok" &&
                  stored == static_cast<std::size_t>(algos.size() * repeats * trials) &&
                  drawn == stored;
  return ok ? 0 : 1;
}
