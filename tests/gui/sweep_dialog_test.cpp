#include "ui/pages/sweep_dialog.h"

#include <gtest/gtest.h>

#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QTemporaryDir>

#include "gui_test_support.h"
#include "io/replay_dataset.h"
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

// A long study stopped from the dialog ends at once, says so, and shows no partial heat map.
TEST(SweepDialogTest, RunReadsStopWhileASweepRuns) {
  SweepDialog dialog(gemm(), QStringLiteral("RTX_2080_Ti.json.gz"));
  dialog.setTrials(400);  // the default study: 5 x 3 cells, 10 repeats
  dialog.run();
  ASSERT_TRUE(dialog.running());
  QTest::qWait(300);
  QElapsedTimer clock;
  clock.start();
  dialog.run();  // the Run button reads Stop now
  ASSERT_TRUE(waitUntil([&] { return !dialog.running(); }, 30000));
  EXPECT_LT(clock.elapsed(), 5000);
  EXPECT_TRUE(dialog.message()->text().contains(QStringLiteral("Stopped")))
      << dialog.message()->text().toStdString();
  EXPECT_TRUE(dialog.view()->map().rows.empty());
}

}  // namespace
}  // namespace opevo::ui
