// The Networks page's latency plot keeps its width in a small window: a race of two algorithms
// in loops, layouts+loops and Winograd (six contenders) at 1024x700 had its legend go right of
// the plot, which was left 116 pixels of the window's 1024.
#include <gtest/gtest.h>

#include <QChart>
#include <QTabWidget>
#include <memory>

#include "first_run_fixture.h"
#include "ui/charts/network_curve_chart.h"
#include "ui/charts/task_trials_chart.h"
#include "ui/controller/network_controller.h"
#include "ui/pages/networks_page.h"
#include "ui/widgets/network_setup_panel.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

// A race's snapshot as the network thread hands it over, six contenders a few units in.
NetworkSnapshotPtr sixContenders() {
  auto s = std::make_shared<NetworkSnapshot>();
  s->network = QStringLiteral("alexnet");
  int id = 1;
  for (const char* mode : {"loop", "joint", "joint + winograd"})
    for (const char* algorithm : {"random", "opevo-m"}) {
      ContenderState c;
      c.label = QStringLiteral("%1 / gradient / %2").arg(algorithm, mode);
      c.networkId = id++;
      c.budget = 32;
      c.trials = 16;
      c.taskBestMs = {10.0, 20.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0};
      c.taskTrials = {8, 8, 0, 0, 0, 0, 0, 0};
      c.curveTrials = {8, 16};
      c.curveEstimateMs = {40.0, 30.0 + id};
      c.unitTask = {0, 1};
      c.unitTrials = {8, 8};
      s->contenders.push_back(c);
    }
  s->activity = QStringLiteral("Tuning");
  return s;
}

class NetworksLatencyPlot : public test::FirstRunTest {
 protected:
  // The window at `size` on the Networks page, AlexNet chosen, a six-contender race on show:
  // the latency plot's width.
  double plotWidth(QSize size) {
    open(size);
    m_window->pages()->setCurrentWidget(m_window->networksPage());
    NetworksPage& page = *m_window->networksPage();
    // AlexNet's eight tasks, whose names the trials chart beside lists.
    page.setup()->selectNetwork(QStringLiteral("alexnet"));
    EXPECT_TRUE(
        waitUntil([&] { return !page.loadingPicture() && page.trialsChart()->lineCount() == 8; }));
    emit page.controller()->updated(sixContenders());
    EXPECT_TRUE(waitUntil([&] { return page.curveChart()->curvePointCount(5) == 2; }));
    QTest::qWait(50);  // the chart lays its plot out on the next turn of the event loop
    const QRectF plot = page.curveChart()->chart()->plotArea();
    EXPECT_GE(plot.height(), 80) << "the legend's rows leave the plot a height";
    return plot.width();
  }
};

// 116 pixels before (the legend right of it, the charts split by their size hints), 260 now.
TEST_F(NetworksLatencyPlot, KeepsAQuarterOfTheWidthOfA1024x700Window) {
  const double width = plotWidth({1024, 700});
  EXPECT_GE(width, 0.24 * 1024) << "the plot is " << width << " pixels wide";
}

// 289 pixels before, 548 now.
TEST_F(NetworksLatencyPlot, KeepsAThirdOfTheWidthOfA1600x1000Window) {
  const double width = plotWidth({1600, 1000});
  EXPECT_GE(width, 0.3 * 1600) << "the plot is " << width << " pixels wide";
}

}  // namespace
}  // namespace opevo::ui
