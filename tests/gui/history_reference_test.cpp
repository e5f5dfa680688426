#include <gtest/gtest.h>

#include <QLabel>
#include <QTest>
#include <cstdint>
#include <vector>

#include "gui_test_support.h"
#include "io/run_restore.h"
#include "store/store.h"
#include "ui/charts/race_chart_view.h"
#include "ui/charts/race_results_widget.h"
#include "ui/controller/race_data.h"
#include "ui/main_window.h"
#include "ui/models/history_model.h"
#include "ui/pages/history_page.h"

// The library's line on History, drawn from runs measured on a GPU: the committed T4 files of
// the H100's lease (2026-11-27), restored as the tuning runs they were.
namespace opevo::ui {
namespace {

using test::waitUntil;

const std::string kH100 = OPEVO_DATASETS_DIR "/../measurements/h100/2026-11-27/";

std::int64_t restore(const std::string& file) {
  Store store(Store::defaultPath());
  // The suite's tests share one database, and two of them restore one file: a copy each.
  return storeRestoredRun(store, readRestoreFile(kH100 + file), true).runId;
}

// The window, shown on History.
bool showHistory(MainWindow& window) {
  window.show();
  if (!QTest::qWaitForWindowExposed(&window)) return false;
  window.pages()->setCurrentWidget(window.historyPage());
  return true;
}

// Draws the runs on History and waits for their trials.
bool draw(MainWindow& window, const std::vector<std::int64_t>& runs, std::size_t trials) {
  HistoryPage* history = window.historyPage();
  if (!waitUntil([&] { return !history->busy() && history->model()->rowCount() >= 1; }))
    return false;
  if (!history->selectRuns(runs).empty()) return false;
  return waitUntil([&] { return !history->busy() && history->data()->trials().size() == trials; });
}

TEST(HistoryReference, AConvolutionBeatenByCudnnsFftIsAlsoDrawnAgainstItsDirectAlgorithm) {
  // C2's three runs; cuDNN's fastest was its FFT in each, timed 5.14x, 5.00x and 5.10x faster
  // than its implicit precomputed GEMM, at 218.7, 229.5 and 226.2 TFLOPS-equivalent.
  const std::vector<std::int64_t> runs = {restore("C2_opevo_seed1.json.gz"),
                                          restore("C2_autotvm_seed1.json.gz"),
                                          restore("C2_opevo-m_seed2.json.gz")};
  MainWindow window;
  // Room for the lines' whole descriptions below the plot (narrower, the legend names the
  // library alone: HistorySmallWindow).
  window.resize(1280, 800);
  ASSERT_TRUE(showHistory(window));
  ASSERT_TRUE(draw(window, runs, 900));

  // The fastest of the three timings of the library, as a live race keeps it.
  const RaceData::Info& info = window.historyPage()->data()->info();
  ASSERT_TRUE(info.reference.has_value());
  EXPECT_NEAR(info.reference->speed, 229.54, 0.01);
  ASSERT_TRUE(info.reference->everyMultiplyAdd.has_value());
  EXPECT_NEAR(info.reference->everyMultiplyAddSpeed(), 229.54 / 5.00, 0.01);
  EXPECT_EQ(info.reference->everyMultiplyAdd->name, "algorithm 1 (implicit precomputed GEMM)");

  RaceChartView* chart = window.historyPage()->results()->trialsChart();
  chart->refresh(true);
  // The legend names the library without the words on how its algorithm was chosen, which the
  // legend would cut; those are the line's tooltip.
  EXPECT_EQ(chart->referenceLegend(),
            QStringLiteral("230 TFLOPS: cuDNN convolution forward, algorithm 4 (FFT) "
                           "(libcudnn.so.9)"));
  // The note under the chart says which timing it is: the fastest of three, autotvm's run's (in
  // the legend it pushed the library's name out at 1024 pixels).
  const QString note = window.historyPage()->results()->referenceNote();
  EXPECT_TRUE(note.contains(QStringLiteral("(fastest stored of 3 runs, run %1's)").arg(runs[1])))
      << note.toStdString();
  EXPECT_EQ(
      chart->everyMultiplyAddLegend(),
      QStringLiteral("45.91 TFLOPS: algorithm 1 (implicit precomputed GEMM), every multiply-add"));
}

TEST(HistoryReference, AMatMulAgainstCublasHasOneLibraryLine) {
  const std::vector<std::int64_t> runs = {restore("MM1_opevo_seed2.json.gz")};
  MainWindow window;
  ASSERT_TRUE(showHistory(window));
  ASSERT_TRUE(draw(window, runs, 300));
  RaceChartView* chart = window.historyPage()->results()->trialsChart();
  chart->refresh(true);
  const QString note = window.historyPage()->results()->referenceNote();
  EXPECT_TRUE(note.contains(QStringLiteral("(stored with run %1)").arg(runs[0])))
      << note.toStdString();
  EXPECT_TRUE(
      chart->referenceLegend().endsWith(QStringLiteral(" TFLOPS: cuBLAS sgemm (libcublas.so.13)")))
      << chart->referenceLegend().toStdString();
  EXPECT_TRUE(chart->everyMultiplyAddLegend().isEmpty());
}

// Runs of two operators were drawn as one race, with no library line: cuDNN's speed on C2 means
// nothing for MM1's curve, nor cuBLAS's for C2's. One chart is one operator on one device now:
// MM1's (the older run), against cuBLAS, and the caption says why C2's run is not drawn.
TEST(HistoryReference, RunsOfTwoOperatorsAreNotDrawnTogether) {
  const std::vector<std::int64_t> runs = {restore("MM1_autotvm_seed2.json.gz"),
                                          restore("C2_autotvm_seed1.json.gz")};
  MainWindow window;
  ASSERT_TRUE(showHistory(window));
  ASSERT_TRUE(draw(window, runs, 300));
  for (const TrialPoint& p : window.historyPage()->data()->trials()) EXPECT_EQ(p.run, runs[0]);
  RaceChartView* chart = window.historyPage()->results()->trialsChart();
  chart->refresh(true);
  EXPECT_TRUE(
      chart->referenceLegend().endsWith(QStringLiteral(" TFLOPS: cuBLAS sgemm (libcublas.so.13)")))
      << chart->referenceLegend().toStdString();
  const QString caption =
      window.historyPage()->findChild<QLabel*>(QStringLiteral("historyInfo"))->text();
  EXPECT_TRUE(caption.contains(
      QStringLiteral("run %1 not drawn: another operator, narrowed space or device than run %2")
          .arg(runs[1])
          .arg(runs[0])))
      << caption.toStdString();
}

}  // namespace
}  // namespace opevo::ui
