// The Networks page's graph is fitted to its view's width (NetworkGraphView::fitGraph). Fitted to
// the viewport as it was, a tall network at some sizes of the view froze the window: the fit
// brought the vertical scroll bar, which narrowed the viewport, whose narrower fit took the bar
// away, and so on without end, the GUI thread busy with it (a race's first "Starting…" on a
// 1000x640 page did it for the twins' network). Now the fit does not depend on the bar.

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QEvent>
#include <QScrollBar>
#include <string>
#include <vector>

#include "gui_test_support.h"
#include "net/network_json.h"
#include "net/tasks.h"
#include "ui/charts/network_graph_view.h"
#include "ui/jobs/network_layout.h"

namespace opevo::ui {
namespace {

// Counts the viewport's resizes; past `limit` in one step it breaks an endless refit (turning the
// vertical bar off), so that the test can say where instead of hanging.
class RefitBreaker : public QObject {
 public:
  static constexpr int kLimit = 100;
  explicit RefitBreaker(QAbstractScrollArea* view) : m_view(view) {
    view->viewport()->installEventFilter(this);
  }
  int resizes = 0;
  bool eventFilter(QObject*, QEvent* event) override {
    if (event->type() == QEvent::Resize && ++resizes == kLimit)
      m_view->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return false;
  }

 private:
  QAbstractScrollArea* m_view;
};

TEST(NetworkGraphFit, NoSizeOfTheViewRefitsItWithoutEnd) {
  const net::Network n =
      net::loadNetwork(OPEVO_DATASETS_DIR "/../../tests/data/net_twins.json");  // tall and narrow
  NetworkGraphView view;
  view.setNetworkLayout(layoutNetwork(n, net::extractTasks(n)));
  view.resize(200, 400);
  view.show();
  QTest::qWait(50);
  RefitBreaker breaker(&view);
  std::vector<std::string> endless, scrolled;
  for (int width : {140, 170, 200, 260, 330})
    for (int height = 150; height <= 1200; height += 3) {
      breaker.resizes = 0;
      view.resize(width, height);
      QCoreApplication::processEvents();
      QCoreApplication::processEvents();
      if (breaker.resizes >= RefitBreaker::kLimit) {
        endless.push_back(std::to_string(width) + "x" + std::to_string(height));
        view.setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
        continue;
      }
      // Settled, the graph is never wider than the room beside the vertical bar.
      if (view.horizontalScrollBar()->isVisible())
        scrolled.push_back(std::to_string(width) + "x" + std::to_string(height));
    }
  EXPECT_TRUE(endless.empty()) << endless.size() << " sizes refitted without end, the first "
                               << endless.front();
  EXPECT_TRUE(scrolled.empty()) << scrolled.size() << " sizes scroll sideways, the first "
                                << scrolled.front();
}

}  // namespace
}  // namespace opevo::ui
