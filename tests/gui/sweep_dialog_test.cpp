#include "ui/pages/sweep_dialog.h"

#include <gtest/gtest.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QProgressBar>
#include <QTemporaryDir>
#include <filesystem>

#include "gui_test_support.h"
#include "io/replay_dataset.h"
#include "support/file_size_limit.h"
#include "ui/charts/heat_map_view.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

std::shared_ptr<const ReplayDataset> gemm() {
  return std::make_shared<const ReplayDataset>(
      loadReplayDataset(OPEVO_DATASETS_DIR "/gemm/RTX_2080_Ti.json.gz"));
}

// A 2 x 2 study of the paper's OpEvo on real measurements, run off the GUI thread: the heat map
// holds one fraction of optimum per cell, and both files can be saved.
TEST(SweepDialogTest, AGridOfTwoSettingsBecomesAHeatMap) {
  SweepDialog dialog(gemm(), QStringLiteral("RTX_2080_Ti.json.gz"));
  dialog.setAlgorithm(QStringLiteral("opevo"));
  dialog.setAxis(0, QStringLiteral("q"), QStringLiteral("0.2, 0.6"));
  dialog.setAxis(1, QStringLiteral("lambda"), QStringLiteral("4, 8"));
  dialog.setRepeats(2);
  dialog.setTrials(30);
  dialog.setShownAt(25);
  dialog.show();
  test::StallProbe stall;
  dialog.run();
  ASSERT_TRUE(waitUntil([&] { return !dialog.running(); }, 60000));
  EXPECT_TRUE(dialog.message()->isHidden()) << dialog.message()->text().toStdString();
  const HeatMap& map = dialog.view()->map();
  EXPECT_EQ(map.rowName, "q");
  EXPECT_EQ(map.columnName, "lambda");
  ASSERT_EQ(map.values.size(), 2u);
  for (const auto& row : map.values) {
    ASSERT_EQ(row.size(), 2u);
    for (const auto& v : row) {
      ASSERT_TRUE(v.has_value());
      EXPECT_GT(*v, 0.0);
      EXPECT_LE(*v, 1.0);
    }
  }
  EXPECT_NE(map.title.find("after 25 trials"), std::string::npos) << map.title;
  // Named as the CLI's map names it, with each cell's standard error over the repeats beside it.
  EXPECT_NE(map.title.find("on gemm/RTX_2080_Ti.json.gz"), std::string::npos) << map.title;
  ASSERT_EQ(map.errors.size(), 2u);
  EXPECT_TRUE(map.errors[0][0].has_value());
  QTemporaryDir dir;
  EXPECT_EQ(dialog.saveSvg(dir.filePath(QStringLiteral("h.svg"))), QString());
  EXPECT_EQ(dialog.savePng(dir.filePath(QStringLiteral("h.png"))), QString());
  QFile svg(dir.filePath(QStringLiteral("h.svg")));
  ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
  EXPECT_TRUE(svg.readAll().contains(">lambda<"));
  EXPECT_FALSE(QImage(dir.filePath(QStringLiteral("h.png"))).isNull());
}

TEST(SweepDialogTest, AnUnknownValueIsNamedAndNothingRuns) {
  SweepDialog dialog(gemm(), QStringLiteral("RTX_2080_Ti.json.gz"));
  dialog.setAlgorithm(QStringLiteral("opevo"));
  dialog.setAxis(0, QStringLiteral("q"), QStringLiteral("0.2, 0.2"));
  dialog.setAxis(1, QString(), QString());
  dialog.run();
  EXPECT_FALSE(dialog.running());
  EXPECT_TRUE(dialog.message()->text().contains(QStringLiteral("twice")))
      << dialog.message()->text().toStdString();
  dialog.setAxis(0, QStringLiteral("q"), QStringLiteral("0.2, 1.5"));
  dialog.setTrials(10);
  dialog.run();
  ASSERT_TRUE(waitUntil([&] { return !dialog.running(); }, 30000));
  EXPECT_TRUE(dialog.message()->text().contains(QStringLiteral("q")))
      << dialog.message()->text().toStdString();
  EXPECT_TRUE(dialog.view()->map().rows.empty());
}

// A long study stopped from the dialog, before any repeat is done, ends at once and says so.
TEST(SweepDialogTest, RunReadsStopWhileASweepRuns) {
  SweepDialog dialog(gemm(), QStringLiteral("RTX_2080_Ti.json.gz"));
  // The default study (5 x 3 cells, 10 repeats) with runs that each measure all 17956
  // configurations: a repeat takes minutes, so however late a loaded machine wakes the wait below,
  // Stop comes before the first repeat ends (400 trials a run took about a second).
  dialog.setTrials(100000);
  dialog.run();
  ASSERT_TRUE(dialog.running());
  QTest::qWait(300);
  QElapsedTimer clock;
  clock.start();
  dialog.run();  // the Run button reads Stop now
  ASSERT_TRUE(waitUntil([&] { return !dialog.running(); }, 30000));
  EXPECT_LT(clock.elapsed(), 15000);  // not the minutes the repeat would have taken
  EXPECT_TRUE(dialog.message()->text().contains(QStringLiteral("Stopped")))
      << dialog.message()->text().toStdString();
  EXPECT_TRUE(dialog.view()->map().rows.empty());
}

// A quick one-axis sweep run to its end.
void sweepQuickly(SweepDialog& dialog, int trials = 30) {
  dialog.setAlgorithm(QStringLiteral("opevo"));
  dialog.setAxis(0, QStringLiteral("q"), QStringLiteral("0.2, 0.6"));
  dialog.setAxis(1, QString(), QString());
  dialog.setRepeats(2);
  dialog.setTrials(trials);
  dialog.run();
  ASSERT_TRUE(waitUntil([&] { return !dialog.running(); }, 60000));
  ASSERT_FALSE(dialog.view()->map().rows.empty()) << dialog.message()->text().toStdString();
}

// Stop keeps what is done: the repeats every cell completed, and the note says how many. It
// showed nothing ("a partial sweep would compare cells at different numbers of repeats").
TEST(SweepDialogTest, StopKeepsTheRepeatsEveryCellCompleted) {
  SweepDialog dialog(gemm(), QStringLiteral("RTX_2080_Ti.json.gz"));
  dialog.setAlgorithm(QStringLiteral("opevo"));
  dialog.setAxis(0, QStringLiteral("q"), QStringLiteral("0.2, 0.6"));
  dialog.setAxis(1, QString(), QString());
  dialog.setRepeats(10);
  dialog.setTrials(3000);
  dialog.run();
  auto* bar = dialog.findChild<QProgressBar*>(QStringLiteral("sweepProgress"));
  ASSERT_TRUE(bar);
  ASSERT_TRUE(waitUntil([&] { return bar->value() >= 250 || !dialog.running(); }, 60000));
  ASSERT_TRUE(dialog.running()) << "the sweep ended before it could be stopped";
  dialog.run();  // Stop
  ASSERT_TRUE(waitUntil([&] { return !dialog.running(); }, 30000));
  const HeatMap& map = dialog.view()->map();
  ASSERT_EQ(map.values.size(), 1u);
  for (const auto& v : map.values[0]) EXPECT_TRUE(v.has_value());
  const std::string note = dialog.note()->text().toStdString();
  EXPECT_NE(note.find("Stopped after "), std::string::npos) << note;
  EXPECT_NE(note.find(" of 10 repeats: the map covers "), std::string::npos) << note;
  EXPECT_EQ(map.title.find("10 repeats"), std::string::npos) << map.title;
}

// Nothing typed or computed is lost: a refused sweep keeps the map; another trial in "Heat map at
// trial" draws it again there; another dataset keeps the map and says whose it is.
TEST(SweepDialogTest, ARefusedSweepKeepsTheMapAndTheTrialFieldRedrawsIt) {
  SweepDialog dialog(gemm(), QStringLiteral("RTX_2080_Ti.json.gz"));
  sweepQuickly(dialog);
  const std::string title = dialog.view()->map().title;
  EXPECT_NE(title.find("after 30 trials"), std::string::npos) << title;
  dialog.setAxis(0, QStringLiteral("q"), QStringLiteral("0.2, 1.5, abc"));
  dialog.run();
  EXPECT_FALSE(dialog.running());  // refused before anything runs
  EXPECT_FALSE(dialog.message()->text().isEmpty());
  EXPECT_EQ(dialog.view()->map().title, title);
  dialog.setShownAt(10);
  EXPECT_NE(dialog.view()->map().title.find("after 10 trials"), std::string::npos)
      << dialog.view()->map().title;
  dialog.setDataset(gemm(), QStringLiteral("other.json.gz"));
  EXPECT_FALSE(dialog.view()->map().rows.empty());
  EXPECT_TRUE(
      dialog.note()->text().contains(QStringLiteral("RTX_2080_Ti.json.gz, swept before "
                                                    "other.json.gz")))
      << dialog.note()->text().toStdString();
}

// The Runs form's other settings of the algorithm are fixed in every cell and named in the
// title; the seed field is the CLI's --seed.
TEST(SweepDialogTest, TheFormsOtherSettingsAreFixedAndNamed) {
  SweepDialog dialog(gemm(), QStringLiteral("RTX_2080_Ti.json.gz"));
  dialog.setFixedSettings([](const std::string& algorithm) {
    return algorithm == "opevo" ? std::map<std::string, std::string>{{"lambda", "2"}, {"q", "0.9"}}
                                : std::map<std::string, std::string>{};
  });
  sweepQuickly(dialog, 20);
  // q is swept: the form's q gives way to each cell's.
  EXPECT_EQ(dialog.view()->map().title.rfind("opevo (lambda=2): ", 0), 0u)
      << dialog.view()->map().title;
  EXPECT_TRUE(dialog.fixedLabel()->text().contains(QStringLiteral("lambda=2")));
  const auto first = dialog.view()->map().values;
  dialog.setSeed(5);
  dialog.run();
  ASSERT_TRUE(waitUntil([&] { return !dialog.running(); }, 60000));
  EXPECT_NE(dialog.view()->map().values, first) << "the seed changed nothing";
}

TEST(SweepDialogTest, WhatCannotBeSweptIsSaidInTheWindowsWords) {
  SweepDialog dialog(gemm(), QStringLiteral("RTX_2080_Ti.json.gz"));
  dialog.setAlgorithm(QStringLiteral("random"));
  dialog.run();
  EXPECT_FALSE(dialog.running());
  EXPECT_EQ(dialog.message()->text(),
            QStringLiteral("random has no settings to sweep: choose an algorithm that has some"));
  dialog.setAlgorithm(QStringLiteral("opevo"));
  dialog.setAxis(0, QStringLiteral("q"), QStringLiteral("0.2,,0.4"));
  dialog.run();
  EXPECT_FALSE(dialog.running());
  EXPECT_TRUE(dialog.message()->text().contains(QStringLiteral("empty")))
      << dialog.message()->text().toStdString();
}

// A failed save says which file and why, and leaves none: the SVG once left an empty file and
// no word (here on a full disk).
TEST(SweepDialogTest, AFailedSaveIsNamedAndLeavesNoFile) {
  SweepDialog dialog(gemm(), QStringLiteral("RTX_2080_Ti.json.gz"));
  sweepQuickly(dialog, 10);
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("h.svg"));
  QString error;
  {
    const opevo::test::FileSizeLimit full(0);
    error = dialog.saveSvg(path);
  }
  EXPECT_TRUE(error.contains(path)) << error.toStdString();
  EXPECT_TRUE(error.contains(QStringLiteral("File too large"))) << error.toStdString();
  EXPECT_TRUE(QDir(dir.path()).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden));
}

}  // namespace
}  // namespace opevo::ui
