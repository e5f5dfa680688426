#include "ui/pages/history_page.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gui_test_support.h"
#include "store/store.h"
#include "ui/charts/race_chart_view.h"
#include "ui/charts/race_results_widget.h"
#include "ui/controller/race_data.h"
#include "ui/models/history_model.h"
#include "ui/widgets/kernel_export_dialog.h"

// The History page on a real store whose runs are written here, as a race or an import writes
// them.
namespace opevo::ui {
namespace {

using test::waitUntil;

class HistoryPageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    m_path = m_dir.filePath(QStringLiteral("runs.db")).toStdString();
  }

  std::int64_t addRun(const std::string& unit, int trials, std::int64_t race = 0, int repeat = 0,
                      RunStatus status = RunStatus::Interrupted) {
    Store store(m_path);
    RunRecord r;
    r.operatorName = "mm";
    r.operatorJson = R"({"replay": "/nowhere/A100_T4.json.gz"})";
    r.algorithm = "random";
    r.backend = "replay";
    r.device = "A100";
    r.budgetJson = R"({"trials": 100})";
    r.speedUnit = unit;
    r.label = "A100_T4";
    r.raceId = race;
    r.raceRepeat = repeat;
    std::vector<TrialRow> rows;
    for (int i = 1; i <= trials; ++i) rows.push_back(trialRow(i));
    const std::int64_t id = store.createRunWithTrials(r, rows);
    store.setRunStatus(id, status);
    return id;
  }
  // A finished run of `op` (a replay's operator JSON names its dataset) on `device`.
  std::int64_t addRunOf(const std::string& name, const std::string& dataset,
                        const std::string& device, const std::string& algorithm, int trials,
                        std::int64_t race = 0, int repeat = 0) {
    Store store(m_path);
    RunRecord r;
    r.operatorName = name;
    r.operatorJson =
        nlohmann::json{{"replay", std::string(OPEVO_DATASETS_DIR) + "/" + dataset}}.dump();
    r.algorithm = algorithm;
    r.backend = "replay";
    r.device = device;
    r.label = device;
    r.budgetJson = R"({"trials": 300})";
    r.speedUnit = "GFLOP/s";
    r.raceId = race;
    r.raceRepeat = repeat;
    std::vector<TrialRow> rows;
    for (int i = 1; i <= trials; ++i) rows.push_back(trialRow(i));
    const std::int64_t id = store.createRunWithTrials(r, rows);
    store.setRunStatus(id, RunStatus::Finished);
    return id;
  }
  static TrialRow trialRow(int seq) {
    TrialRow t;
    t.seq = seq;
    t.order = seq;
    t.config = "x=" + std::to_string(seq);
    t.speed = 10.0 * seq;
    t.medianMs = 1;
    t.seconds = 0.1 * seq;
    return t;
  }
  bool open(HistoryPage& page, int runs) {
    page.setStorePath(QString::fromStdString(m_path));
    return waitUntil([&] { return !page.busy() && page.model()->rowCount() == runs; });
  }
  static QString caption(HistoryPage& page) {
    return page.findChild<QLabel*>(QStringLiteral("historyInfo"))->text();
  }

  QTemporaryDir m_dir;
  std::string m_path;
};

// The database moved away while the window shows its runs: selecting one says so; it does not
// make an empty database (and its folder) again at the old path.
TEST_F(HistoryPageTest, ARunSelectedAfterItsDatabaseWentSaysSoAndMakesNothing) {
  const std::int64_t id = addRun("GFLOP/s", 5);
  HistoryPage page;
  ASSERT_TRUE(open(page, 1));
  ASSERT_TRUE(QDir(m_dir.path()).removeRecursively());
  page.selectRuns({id});
  ASSERT_TRUE(waitUntil([&] { return !page.busy(); }));
  const QString error = page.findChild<QLabel*>(QStringLiteral("historyError"))->text();
  EXPECT_TRUE(error.contains(QStringLiteral("is no longer there"))) << error.toStdString();
  EXPECT_FALSE(QDir(m_dir.path()).exists());
}

// A first start: an empty history says where runs come from, not how to select them.
TEST_F(HistoryPageTest, AnEmptyHistorySaysWhereRunsComeFrom) {
  { Store store(m_path); }
  HistoryPage page;
  ASSERT_TRUE(open(page, 0));
  EXPECT_TRUE(
      caption(page).startsWith(QStringLiteral("No runs yet: start a race on the Runs page")))
      << caption(page).toStdString();
  addRun("GFLOP/s", 3);
  page.reload();
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.model()->rowCount() == 1; }));
  EXPECT_TRUE(caption(page).startsWith(QStringLiteral("Select runs")))
      << caption(page).toStdString();
}

// An imported T4 file's GFLOP/s run beside its 1/ms one: never one axis for two units.
TEST_F(HistoryPageTest, RunsOfAnotherUnitAreNotDrawnOnTheSameAxis) {
  const std::int64_t perMs = addRun("1/ms", 5);
  const std::int64_t gflops = addRun("GFLOP/s", 7);
  HistoryPage page;
  ASSERT_TRUE(open(page, 2));
  ASSERT_TRUE(page.selectRuns({gflops, perMs}).empty());
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.data()->trialCount() > 0; }));
  EXPECT_EQ(page.data()->info().speedUnit, QStringLiteral("1/ms"));
  EXPECT_EQ(page.data()->trialCount(), 5);
  for (const TrialPoint& p : page.data()->trials()) EXPECT_EQ(p.run, perMs);
  EXPECT_TRUE(caption(page).contains(
      QStringLiteral("run %1 not drawn: measured in another unit than 1/ms").arg(gflops)))
      << caption(page).toStdString();
}

// `opevo tune` runs of a GEMM on an RTX 2080 Ti and of a convolution on an A100 and an A4000,
// selected together, made one "opevo-m" band, "mean of the repeats ± 1 sd", titled
// "convolution_kernel", with no optimum and no word: one chart is one operator on one device.
TEST_F(HistoryPageTest, RunsOfAnotherOperatorOrDeviceAreNotAveragedAsRepeats) {
  const std::string gemmDevice =
      "replay of RTX_2080_Ti.json.gz (NVIDIA GeForce RTX 2080 Ti, real measurements)";
  const std::int64_t gemm = addRunOf("Xgemm", "gemm/RTX_2080_Ti.json.gz", gemmDevice, "opevo-m", 6);
  const std::int64_t a100 = addRunOf("convolution_kernel", "convolution_milo/A100.json.gz",
                                     "replay of A100.json.gz", "opevo-m", 7);
  const std::int64_t a4000 = addRunOf("convolution_kernel", "convolution_milo/A4000.json.gz",
                                      "replay of A4000.json.gz", "opevo-m", 8);
  // A repeat of the GEMM run: drawn with it.
  const std::int64_t gemm2 =
      addRunOf("Xgemm", "gemm/RTX_2080_Ti.json.gz", gemmDevice, "opevo-m", 5);
  HistoryPage page;
  ASSERT_TRUE(open(page, 4));
  ASSERT_TRUE(page.selectRuns({gemm, a100, a4000, gemm2}).empty());
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.data()->trialCount() > 0; }));
  EXPECT_EQ(page.data()->trialCount(), 6 + 5);
  int foreign = 0;
  for (const TrialPoint& p : page.data()->trials()) foreign += p.run != gemm && p.run != gemm2;
  EXPECT_EQ(foreign, 0);
  EXPECT_EQ(page.data()->info().algorithms.join(','), QStringLiteral("opevo-m"));
  EXPECT_EQ(page.data()->info().label.toStdString(), gemmDevice);
  // One dataset: its optimum is drawn.
  EXPECT_TRUE(page.data()->info().optimum.has_value());
  EXPECT_TRUE(
      caption(page).contains(QStringLiteral("runs %1, %2 not drawn: another operator, narrowed "
                                            "space or device than run %3 (Xgemm on %4)")
                                 .arg(a100)
                                 .arg(a4000)
                                 .arg(gemm)
                                 .arg(QString::fromStdString(gemmDevice))))
      << caption(page).toStdString();

  // The current run decides which: the A4000's convolution, the others named.
  int a4000Row = 0;
  while (page.model()->row(a4000Row).run.id != a4000) ++a4000Row;
  page.view()->clearSelection();
  page.view()->selectionModel()->setCurrentIndex(page.model()->index(a4000Row, 0),
                                                 QItemSelectionModel::NoUpdate);
  page.view()->selectAll();  // Ctrl+A
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.data()->trialCount() == 8; }))
      << page.data()->trialCount();
  EXPECT_TRUE(caption(page).contains(
      QStringLiteral(
          "runs %1, %2, %3 not drawn: another operator, narrowed space or device than run %4 "
          "(convolution_kernel on replay of A4000.json.gz)")
          .arg(gemm)
          .arg(a100)
          .arg(gemm2)
          .arg(a4000)))
      << caption(page).toStdString();
}

// C2 on Winograd's template beside C2 on the direct one, on the same GPU: two spaces of one
// problem, drawn on one chart (they were two charts, the second named in the note), each curve
// named by its space. MM1's loops beside its joint layouts and loops likewise (ALT's gain over
// loops alone), and a run over a narrowed space (its own "space" overrides) is not theirs: named in
// the note.
TEST_F(HistoryPageTest, RunsOfOneProblemInTwoSpacesAreDrawnTogetherNamedByTheirSpace) {
  const auto addGpuRun = [&](const std::string& name, const nlohmann::json& how, int trials) {
    Store store(m_path);
    RunRecord r;
    r.operatorName = name;
    nlohmann::json op = {{"kind", name == "C2" ? "conv2d" : "matmul"}, {"name", name}};
    op.update(how);
    r.operatorJson = op.dump();
    r.algorithm = "opevo-m";
    r.backend = "cuda";
    r.device = "NVIDIA H200, sm_90, 132 SMs, driver 13.0";
    r.label = "cuda: " + r.device;  // as the measurer names it: the device alone
    r.budgetJson = R"({"trials": 300})";
    r.speedUnit = "TFLOPS";
    std::vector<TrialRow> rows;
    for (int i = 1; i <= trials; ++i) rows.push_back(trialRow(i));
    const std::int64_t id = store.createRunWithTrials(r, rows);
    store.setRunStatus(id, RunStatus::Finished);
    return id;
  };
  const std::int64_t winograd = addGpuRun("C2", {{"target", "winograd"}}, 6);
  const std::int64_t direct = addGpuRun("C2", nlohmann::json::object(), 5);
  const std::int64_t loops = addGpuRun("MM1", nlohmann::json::object(), 4);
  const std::int64_t joint = addGpuRun("MM1", {{"mode", "joint"}}, 3);
  const std::int64_t joint2 = addGpuRun("MM1", {{"mode", "joint"}}, 2);
  const std::int64_t narrowed = addGpuRun("MM1", {{"space", {{"tile_k", {8}}}}}, 2);
  HistoryPage page;
  ASSERT_TRUE(open(page, 6));
  ASSERT_TRUE(page.selectRuns({winograd, direct}).empty());
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.data()->trialCount() == 6 + 5; }))
      << page.data()->trialCount();
  QStringList algorithms = page.data()->info().algorithms;
  algorithms.sort();
  EXPECT_EQ(algorithms.join(QStringLiteral(", ")),
            QStringLiteral("opevo-m (loop), opevo-m (winograd)"));
  EXPECT_FALSE(caption(page).contains(QStringLiteral("not drawn"))) << caption(page).toStdString();
  // The operator first: the device's label alone did not say what was drawn.
  EXPECT_EQ(page.data()->info().label.toStdString(),
            "C2 on cuda: NVIDIA H200, sm_90, 132 SMs, driver 13.0");

  page.view()->clearSelection();
  ASSERT_TRUE(page.selectRuns({loops, joint, joint2, narrowed}).empty());
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.data()->trialCount() == 4 + 3 + 2; }))
      << page.data()->trialCount();
  algorithms = page.data()->info().algorithms;
  algorithms.sort();
  EXPECT_EQ(algorithms.join(QStringLiteral(", ")),
            QStringLiteral("opevo-m (joint), opevo-m (loop)"));
  EXPECT_EQ(page.data()->info().repeats, 2);  // the two joint runs are repeats of one curve
  EXPECT_TRUE(caption(page).contains(
      QStringLiteral("run %1 not drawn: another operator, narrowed space or device than run")
          .arg(narrowed)))
      << caption(page).toStdString();

  // One space alone: the curves keep their plain names.
  page.view()->clearSelection();
  ASSERT_TRUE(page.selectRuns({joint, joint2}).empty());
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.data()->trialCount() == 3 + 2; }));
  EXPECT_EQ(page.data()->info().algorithms.join(','), QStringLiteral("opevo-m"));
}

// A description written beside a dataset after History first drew it decides whether the file's
// best is the optimum; the page kept the first verdict until a restart (its cache looked at the
// dataset's time alone).
TEST_F(HistoryPageTest, ADescriptionAddedBesideADatasetChangesItsOptimumWithoutARestart) {
  const QString gemm = m_dir.filePath(QStringLiteral("gemm"));
  ASSERT_TRUE(QDir().mkpath(gemm));
  const std::string dataset = (gemm + QStringLiteral("/RTX_2080_Ti.json.gz")).toStdString();
  ASSERT_TRUE(QFile::copy(QStringLiteral(OPEVO_DATASETS_DIR "/gemm/RTX_2080_Ti.json.gz"),
                          QString::fromStdString(dataset)));
  const std::int64_t run = addRunOf("Xgemm", "", "RTX 2080 Ti", "opevo-m", 4);
  {
    // addRunOf names a shipped file; this run's is the copy.
    Store store(m_path);
    RunRecord r = *store.run(run);
    r.operatorJson = nlohmann::json{{"replay", dataset}}.dump();
    const std::int64_t copy = store.createRunWithTrials(r, store.trials(run));
    store.setRunStatus(copy, RunStatus::Finished);
    store.deleteRuns({run});
  }
  HistoryPage page;
  ASSERT_TRUE(open(page, 1));
  const std::int64_t id = page.model()->row(0).run.id;
  ASSERT_TRUE(page.selectRuns({id}).empty());
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.data()->trialCount() == 4; }));
  // No description: 17,956 of 82,944 Cartesian points, taken as complete.
  ASSERT_TRUE(page.data()->info().optimum.has_value());

  // The shipped description with its Conditions removed allows configurations the file lacks:
  // the file is a part of that space, and its best no optimum.
  std::ifstream in(OPEVO_DATASETS_DIR "/kernels/gemm.json");
  nlohmann::json description = nlohmann::json::parse(in);
  description["ConfigurationSpace"].erase("Conditions");
  ASSERT_TRUE(QDir().mkpath(m_dir.filePath(QStringLiteral("kernels"))));
  std::ofstream(m_dir.filePath(QStringLiteral("kernels/gemm.json")).toStdString())
      << description.dump();
  page.reload();
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.model()->rowCount() == 1; }));
  ASSERT_TRUE(page.selectRuns({id}).empty());
  ASSERT_TRUE(waitUntil([&] {
    return !page.busy() && page.data()->trialCount() == 4 &&
           !page.data()->info().optimum.has_value();
  })) << "the optimum stayed drawn";
}

// After a reload (a resumed run ended) the runs selected stay selected and are drawn as they are
// now, not as they were.
TEST_F(HistoryPageTest, AReloadRedrawsTheSelectedRunsAsTheyAreNow) {
  const std::int64_t id = addRun("GFLOP/s", 5);
  HistoryPage page;
  ASSERT_TRUE(open(page, 1));
  page.selectRuns({id});
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.data()->trialCount() == 5; }));
  {
    Store store(m_path);
    for (int seq = 6; seq <= 9; ++seq) {
      TrialRow t = trialRow(seq);
      t.runId = id;
      store.appendTrial(t);
    }
    store.setRunStatus(id, RunStatus::Finished);
  }
  page.reload();
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.data()->trialCount() == 9; }))
      << page.data()->trialCount();
  EXPECT_EQ(page.view()->selectionModel()->selectedRows().size(), 1);
  EXPECT_TRUE(caption(page).contains(QStringLiteral("9 trials of 1 run:")))
      << caption(page).toStdString();
}

// A whole race selected: Resume asks for every unfinished run of it, not the top one alone.
TEST_F(HistoryPageTest, ResumeWithAWholeRaceSelectedAsksForEveryUnfinishedRun) {
  const std::int64_t race = Store(m_path).createRace(Schedule::RoundRobin, 1);
  const std::int64_t a = addRun("GFLOP/s", 3, race, 0);
  const std::int64_t done = addRun("GFLOP/s", 100, race, 1, RunStatus::Finished);
  const std::int64_t b = addRun("GFLOP/s", 4, race, 2, RunStatus::Failed);
  HistoryPage page;
  QSignalSpy one(&page, &HistoryPage::resumeRequested);
  std::vector<std::vector<RunRecord>> asked;
  QObject::connect(&page, &HistoryPage::resumeRaceRequested, &page,
                   [&](const std::vector<RunRecord>& runs) { asked.push_back(runs); });
  ASSERT_TRUE(open(page, 3));
  page.view()->setCurrentIndex(page.model()->index(0, 0));
  page.selectRace(0);
  ASSERT_TRUE(page.resumeButton()->isEnabled());
  EXPECT_EQ(page.resumeButton()->text(), QStringLiteral("Resume 2 runs"));
  page.resumeButton()->click();
  EXPECT_EQ(one.count(), 0);
  ASSERT_EQ(asked.size(), 1u);
  ASSERT_EQ(asked[0].size(), 2u);
  EXPECT_EQ(asked[0][0].id, a);
  EXPECT_EQ(asked[0][1].id, b);
  (void)done;
}

// Export kernel… and the T4 export take one run of a selection. Of one run selected, that one
// (after an import its run is selected, another row current). Of several (a whole race), the
// fastest: the rule was "the current row while selected, else the top one", and with a race
// selected the export silently took the run with the keyboard focus (7,366 GFLOP/s) rather than
// the race's best (7,393); the dialog says which run it took and why.
TEST_F(HistoryPageTest, ExportTakesTheOneSelectedRunElseTheFastestOfTheSelection) {
  addRun("GFLOP/s", 3);                               // best 30
  const std::int64_t fastest = addRun("GFLOP/s", 5);  // best 50
  const std::int64_t third = addRun("GFLOP/s", 4);    // best 40
  // Faster, but of another dataset: not drawn beside them, so never "the fastest" of them.
  std::int64_t elsewhere = 0;
  {
    Store store(m_path);
    RunRecord r;
    r.operatorName = "other";
    r.operatorJson = R"({"replay": "/nowhere/other.json.gz"})";
    r.algorithm = "random";
    r.backend = "replay";
    r.device = "A100";
    r.budgetJson = R"({"trials": 100})";
    r.speedUnit = "GFLOP/s";
    std::vector<TrialRow> rows;
    for (int i = 1; i <= 9; ++i) rows.push_back(trialRow(i));
    elsewhere = store.createRunWithTrials(r, rows);
  }
  HistoryPage page;
  ASSERT_TRUE(open(page, 4));
  const int other = page.model()->row(0).run.id == third ? 1 : 0;
  page.view()->setCurrentIndex(page.model()->index(other, 0));
  EXPECT_TRUE(page.selectRuns({third}).empty());
  ASSERT_TRUE(page.exportButton()->isEnabled());
  ASSERT_NE(page.exportRun(), nullptr);
  EXPECT_EQ(page.exportRun()->id, third);
  // Every row selected, a slower one current: the fastest.
  page.view()->selectAll();
  int thirdRow = 0;
  while (page.model()->row(thirdRow).run.id != third) ++thirdRow;
  page.view()->selectionModel()->setCurrentIndex(page.model()->index(thirdRow, 0),
                                                 QItemSelectionModel::NoUpdate);
  ASSERT_NE(page.exportRun(), nullptr);
  EXPECT_EQ(page.exportRun()->id, fastest);
  EXPECT_NE(page.exportRun()->id, elsewhere);
  KernelExportDialog* dialog = page.exportCurrent();
  ASSERT_NE(dialog, nullptr);
  auto* note = dialog->findChild<QLabel*>(QStringLiteral("exportChoice"));
  ASSERT_NE(note, nullptr);
  EXPECT_EQ(note->text().toStdString(),
            QStringLiteral("The fastest of the 3 runs drawn: run %1.").arg(fastest).toStdString());
  dialog->close();
}

// A run with no trial (a network's task its budget never reached, a run stopped before its
// first) has no kernel: Export is off and says why, where the dialog said so only once opened.
TEST_F(HistoryPageTest, ExportIsOffForARunWithNoTrial) {
  const std::int64_t none = addRun("GFLOP/s", 0, 0, 0, RunStatus::Finished);
  const std::int64_t some = addRun("GFLOP/s", 3);
  HistoryPage page;
  ASSERT_TRUE(open(page, 2));
  EXPECT_TRUE(page.selectRuns({none}).empty());
  EXPECT_FALSE(page.exportButton()->isEnabled());
  EXPECT_EQ(page.exportButton()->toolTip(),
            QStringLiteral("Run %1 has no trial: no kernel to export").arg(none));
  EXPECT_EQ(page.exportCurrent(), nullptr);
  EXPECT_TRUE(page.selectRuns({some}).empty());
  EXPECT_TRUE(page.exportButton()->isEnabled());
  EXPECT_TRUE(page.exportButton()->toolTip().startsWith(QStringLiteral("Preview the best kernel")));
}

// With no run selected the charts say so: "No trials yet" read as if the store held none. A run
// with no trial, selected, has none yet; one with trials is drawn.
TEST_F(HistoryPageTest, TheEmptyChartSaysNoRunIsSelected) {
  const std::int64_t none = addRun("GFLOP/s", 0, 0, 0, RunStatus::Finished);
  const std::int64_t some = addRun("GFLOP/s", 3);
  HistoryPage page;
  ASSERT_TRUE(open(page, 2));
  const auto notes = [&] {
    page.results()->refreshNow();
    return QStringList{page.results()->trialsChart()->emptyNote(),
                       page.results()->timeChart()->emptyNote()};
  };
  EXPECT_EQ(notes(), QStringList({"No run selected", "No run selected"}));
  EXPECT_TRUE(page.selectRuns({none}).empty());
  ASSERT_TRUE(waitUntil([&] { return !page.busy(); }));
  EXPECT_EQ(notes(), QStringList({"No trials yet", "No trials yet"}));
  EXPECT_TRUE(page.selectRuns({some}).empty());
  ASSERT_TRUE(waitUntil([&] { return !page.busy(); }));
  EXPECT_EQ(notes(), QStringList({"", ""}));
}

// Runs selected by id (`opevo-studio --open-runs`) are brought into view: the oldest of 40 runs
// sat below the fold, selected out of sight.
TEST_F(HistoryPageTest, RunsSelectedByIdAreBroughtIntoView) {
  std::int64_t oldest = 0;
  for (int i = 0; i < 40; ++i) {
    const std::int64_t id = addRun("GFLOP/s", 2);
    if (i == 0) oldest = id;
  }
  HistoryPage page;
  page.resize(1000, 600);
  page.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&page));
  ASSERT_TRUE(open(page, 40));
  EXPECT_TRUE(page.selectRuns({oldest}).empty());
  QCoreApplication::processEvents();
  const QModelIndexList selected = page.view()->selectionModel()->selectedRows();
  ASSERT_EQ(selected.size(), 1);
  EXPECT_EQ(page.model()->row(selected.front().row()).run.id, oldest);
  const QRect row = page.view()->visualRect(selected.front());
  EXPECT_TRUE(page.view()->viewport()->rect().contains(row.center()))
      << row.y() << " in " << page.view()->viewport()->height();
}

// Tab moved from cell to cell inside the table, collapsing a selection of 50 runs to one, and
// never reached a button: it leaves the table, walks the buttons, and the selection stays.
TEST_F(HistoryPageTest, TabLeavesTheTableForTheButtonsAndKeepsTheSelection) {
  for (int i = 0; i < 6; ++i) addRun("GFLOP/s", 3);
  HistoryPage page;
  page.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&page));
  page.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&page));
  ASSERT_TRUE(open(page, 6));
  page.view()->setFocus();
  page.view()->selectAll();
  QStringList reached;
  for (int i = 0; i < 4; ++i) {
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
    auto* button = qobject_cast<QPushButton*>(QApplication::focusWidget());
    ASSERT_NE(button, nullptr) << "Tab " << i + 1 << " stayed in the table";
    reached << button->text();
  }
  EXPECT_EQ(reached.join(QStringLiteral(" | ")).toStdString(),
            "Resume 6 runs | Export kernel… | Delete… | Reload");  // none of them in a race
  // On to the charts' options, not back into the table.
  QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
  EXPECT_NE(QApplication::focusWidget(), page.view());
  EXPECT_EQ(page.view()->selectionModel()->selectedRows().size(), 6);
}

// "Select whole race" did nothing with no run selected or on an empty table: disabled then, and
// for a run of no race, which its tooltip says.
TEST_F(HistoryPageTest, SelectWholeRaceIsEnabledOnlyForARunOfARace) {
  HistoryPage page;
  ASSERT_TRUE(open(page, 0));
  EXPECT_FALSE(page.selectRaceButton()->isEnabled());
  const std::int64_t race = Store(m_path).createRace(Schedule::RoundRobin, 1);
  addRun("GFLOP/s", 3, race, 0);
  addRun("GFLOP/s", 3, race, 1);
  const std::int64_t alone = addRun("GFLOP/s", 3);
  page.reload();
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.model()->rowCount() == 3; }));
  EXPECT_FALSE(page.selectRaceButton()->isEnabled());  // nothing selected
  page.selectRuns({alone});
  EXPECT_FALSE(page.selectRaceButton()->isEnabled());
  EXPECT_EQ(page.selectRaceButton()->toolTip().toStdString(),
            QStringLiteral("Run %1 belongs to no race: it was tuned on its own")
                .arg(alone)
                .toStdString());
  int raceRow = 0;
  while (page.model()->row(raceRow).run.raceId != race) ++raceRow;
  page.selectRuns({page.model()->row(raceRow).run.id});
  ASSERT_TRUE(page.selectRaceButton()->isEnabled());
  page.selectRaceButton()->click();
  EXPECT_EQ(page.view()->selectionModel()->selectedRows().size(), 2);
}

// The current row, ctrl-deselected, keeps its focus frame but is not what Export and Resume act
// on: both acted on it with nothing highlighted. Resume acts on the one run selected.
TEST_F(HistoryPageTest, ButtonsActOnTheSelectedRunsNotADeselectedCurrentRow) {
  const std::int64_t first = addRun("GFLOP/s", 3);
  const std::int64_t second = addRun("GFLOP/s", 3);
  HistoryPage page;
  std::vector<std::int64_t> resumed;
  QObject::connect(&page, &HistoryPage::resumeRequested, &page,
                   [&](const RunRecord& run) { resumed.push_back(run.id); });
  ASSERT_TRUE(open(page, 2));
  page.view()->setCurrentIndex(page.model()->index(0, 0));
  EXPECT_TRUE(page.exportButton()->isEnabled());
  page.view()->selectionModel()->select(page.model()->index(0, 0),
                                        QItemSelectionModel::Deselect | QItemSelectionModel::Rows);
  EXPECT_FALSE(page.exportButton()->isEnabled());
  EXPECT_FALSE(page.resumeButton()->isEnabled());
  EXPECT_EQ(page.exportCurrent(), nullptr);
  // Another run selected while the deselected one stays current: that one resumes.
  const int other = page.model()->row(0).run.id == first ? 1 : 0;
  page.view()->selectionModel()->select(page.model()->index(other, 0),
                                        QItemSelectionModel::Select | QItemSelectionModel::Rows);
  ASSERT_TRUE(page.resumeButton()->isEnabled());
  page.resumeButton()->click();
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_EQ(resumed[0], page.model()->row(other).run.id);
  (void)second;
}

}  // namespace
}  // namespace opevo::ui
