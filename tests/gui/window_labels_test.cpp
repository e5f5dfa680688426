// Labels that a 1024x700 window cut: the status bar's dataset, a race legend of many algorithms
// and the algorithm settings' meanings read whole, or elided with the whole in a tooltip.

#include <gtest/gtest.h>

#include <QChart>
#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>
#include <QTableView>

#include "gui_test_support.h"
#include "ui/charts/race_chart_view.h"
#include "ui/controller/race_data.h"
#include "ui/main_window.h"
#include "ui/models/settings_model.h"
#include "ui/pages/runs_page.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/elided_label.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

// "replay of A100.json.gz (NVIDIA A100-PCIE-40GB, real mea": cut mid-word beside a race's
// progress bar. Elided now, never below its least width, whole in the tooltip.
TEST(WindowLabels, TheStatusBarsDatasetElidesBesideARace) {
  MainWindow window;
  window.setRemembersSettings(false);
  window.resize(1000, 640);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  QLabel* dataset = window.runsPage()->datasetStatus();
  const QString text = QStringLiteral(
      "replay of A100.json.gz (NVIDIA A100-PCIE-40GB, real measurements), of a long file name "
      "that a user's own dataset can have");
  dataset->setText(text);
  window.runsPage()->progressBar()->show();
  window.runsPage()->etaLabel()->setText(QStringLiteral("ETA 5:14"));
  ASSERT_TRUE(waitUntil([&] { return dataset->width() < dataset->sizeHint().width(); }));
  EXPECT_LE(dataset->geometry().right(), window.runsPage()->progressBar()->geometry().left());
  const QString shown = shownText(dataset);
  EXPECT_NE(shown, text);
  EXPECT_TRUE(shown.endsWith(QChar(0x2026))) << shown.toStdString();
  EXPECT_TRUE(shown.startsWith(QStringLiteral("replay of A100"))) << shown.toStdString();
  EXPECT_GE(dataset->width(), dataset->minimumWidth());
  // Room again (the race over): whole.
  window.runsPage()->progressBar()->hide();
  dataset->setText(QStringLiteral("replay of A100.json.gz"));
  ASSERT_TRUE(waitUntil([&] { return shownText(dataset) == dataset->text(); }));
}

RaceData::Info raceOf(const QStringList& algorithms) {
  RaceData::Info i;
  i.algorithms = algorithms;
  i.repeats = 5;
  i.speedUnit = QStringLiteral("GFLOP/s");
  i.optimum = 13637.5;
  return i;
}

// Eight algorithms and the optimum on one row below the plot read "rand…", "exha…": on the
// right, one a line, whole; below again once the chart is wide enough.
TEST(WindowLabels, ALegendThatDoesNotFitBelowThePlotGoesToItsRight) {
  RaceData data;
  data.reset(raceOf(
      {"opevo", "random", "exhaustive", "annealing", "genetic", "opevo-m", "autotvm", "ansor"}));
  RaceChartView chart(&data, RaceChartView::XAxis::Trials);
  chart.resize(630, 320);  // what a 1024-pixel window leaves the Runs page's chart
  chart.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
  EXPECT_EQ(chart.legendAlignment(), Qt::AlignRight);
  EXPECT_TRUE(chart.chart()->legend()->showToolTips());
  chart.resize(1800, 500);
  ASSERT_TRUE(waitUntil([&] { return chart.legendAlignment() == Qt::AlignBottom; }));

  // Two algorithms fit below at 630 pixels, as before.
  data.reset(raceOf({"opevo-m", "autotvm"}));
  chart.resize(630, 320);
  ASSERT_TRUE(waitUntil([&] { return chart.legendAlignment() == Qt::AlignBottom; }));
}

// opevo-m's Meaning column had 60 pixels at 1024 wide: "config…", a word a line. Too narrow, the
// column goes and every setting's meaning is listed below the table; with room it is back.
TEST(WindowLabels, SettingsMeaningsAreListedBelowATableTooNarrowForThem) {
  AlgorithmPanel panel;
  ASSERT_TRUE(panel.showSettingsOf(QStringLiteral("opevo-m")));
  const SettingsModel* model = panel.settingsModel(QStringLiteral("opevo-m"));
  ASSERT_GT(model->rowCount(), 2);
  panel.resize(310, 900);
  panel.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
  ASSERT_TRUE(waitUntil([&] { return !panel.meaningsInTable(); }));
  const QString help = panel.helpLabel()->text();
  for (int row = 0; row < model->rowCount(); ++row) {
    const QString name = model->index(row, SettingsModel::NameColumn).data().toString();
    const QString meaning =
        model->index(row, SettingsModel::HelpColumn).data().toString().toHtmlEscaped();
    EXPECT_TRUE(help.contains(name) && help.contains(meaning)) << name.toStdString();
  }
  panel.resize(1200, 900);
  ASSERT_TRUE(waitUntil([&] { return panel.meaningsInTable(); }));
  // Wrapped in the table: no row's meaning elided to one line.
  auto* table = panel.findChild<QTableView*>(QStringLiteral("settingsTable"));
  ASSERT_NE(table, nullptr);
  EXPECT_TRUE(table->wordWrap());
}

}  // namespace
}  // namespace opevo::ui
