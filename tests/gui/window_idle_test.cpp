// A window with nothing to do does nothing. The Runs page's algorithm settings relaid themselves
// out in a loop at 1280x800 (a table growing and losing a scroll bar): 90% of a core with the
// window idle, and on a 2-core CPU every kernel and library the window timed beside it ran at
// about half its speed.

#include <gtest/gtest.h>

#include <QApplication>
#include <QEvent>
#include <QTabWidget>
#include <QTableView>
#include <QWidget>

#include "gui_test_support.h"
#include "ui/main_window.h"
#include "ui/pages/runs_page.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/race_setup_panel.h"

namespace opevo::ui {
namespace {

// Resizes and layout requests of the window's widgets, and the last widget that had one.
class LayoutEvents : public QObject {
 public:
  explicit LayoutEvents(const QWidget& window) : m_window(window) {}
  int count = 0;
  QString last;

 protected:
  bool eventFilter(QObject* object, QEvent* event) override {
    if (event->type() != QEvent::Resize && event->type() != QEvent::LayoutRequest) return false;
    auto* widget = qobject_cast<QWidget*>(object);
    if (!widget || (widget != &m_window && !m_window.isAncestorOf(widget))) return false;
    ++count;
    last = QString::fromLatin1(widget->metaObject()->className()) + QLatin1Char(' ') +
           widget->objectName();
    return false;
  }

 private:
  const QWidget& m_window;
};

TEST(WindowIdle, NoPageRelaysItselfOutWhileItStands) {
  MainWindow window;
  window.setRemembersSettings(false);
  // The settings whose table looped: opevo's, with their long meanings.
  AlgorithmPanel* algorithms = window.runsPage()->setup()->algorithmPanel();
  algorithms->setChecked({QStringLiteral("opevo"), QStringLiteral("autotvm")});
  ASSERT_TRUE(algorithms->showSettingsOf(QStringLiteral("opevo")));
  window.resize(1264, 738);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  auto* table = algorithms->findChild<QTableView*>(QStringLiteral("settingsTable"));
  ASSERT_NE(table, nullptr);
  LayoutEvents events(window);
  qApp->installEventFilter(&events);
  for (int page = 0; page < window.pages()->count(); ++page) {
    window.pages()->setCurrentIndex(page);
    for (const QSize size : {QSize(800, 600), QSize(1024, 640), QSize(1024, 700), QSize(1180, 738),
                             QSize(1264, 700), QSize(1264, 738), QSize(1920, 1040)}) {
      window.resize(size);
      // Quiet for 150 ms within 3 s: a loaded machine may take a while over the resize's own
      // layout passes; the loop never went quiet.
      bool quiet = false;
      for (int tries = 0; tries < 20 && !quiet; ++tries) {
        events.count = 0;
        QTest::qWait(150);
        quiet = events.count == 0;
      }
      EXPECT_TRUE(quiet) << "page " << page << " at " << size.width() << "x" << size.height()
                         << " kept relaying itself out, the last: " << events.last.toStdString();
      if (page != MainWindow::RunsPageIndex) continue;
      // As tall as its rows: the last one whole in the table's own view.
      const int last = table->model()->rowCount() - 1;
      EXPECT_LE(table->rowViewportPosition(last) + table->rowHeight(last),
                table->viewport()->height())
          << size.width() << "x" << size.height();
    }
  }
  qApp->removeEventFilter(&events);
}

}  // namespace
}  // namespace opevo::ui
