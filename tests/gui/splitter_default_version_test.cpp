// A split saved by an older window won over a page's changed default: History's chart, given
// three fifths of the page, stayed as small as an older version had saved it for a user who
// upgraded. A splitter whose default changed has a version (ui/widgets/split_layout.h): a split
// saved under an older one gives way to the new default once, and the user's own drag afterwards
// is kept across restarts; a splitter whose default did not change restores as before.

#include <gtest/gtest.h>

#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTest>
#include <QThreadPool>

#include "gui_test_support.h"
#include "ui/main_window.h"
#include "ui/pages/history_page.h"
#include "ui/pages/runs_page.h"
#include "ui/widgets/split_layout.h"

namespace opevo::ui {
namespace {

// The window's saved splits are left as the test found none.
class SplitterDefaultVersion : public ::testing::Test {
 protected:
  void SetUp() override { forget(); }
  void TearDown() override {
    forget();
    QThreadPool::globalInstance()->waitForDone();
  }
  static void forget() {
    QSettings settings;
    settings.remove(QStringLiteral("splitters"));
    settings.remove(QStringLiteral("splitterVersions"));
  }
  // The window on `page`, shown and laid out.
  static void show(MainWindow& window, QWidget* page) {
    window.resize(1200, 760);
    window.pages()->setCurrentWidget(page);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    QCoreApplication::processEvents();
  }
  static QSplitter* splitter(MainWindow& window, const char* name) {
    auto* s = window.findChild<QSplitter*>(QString::fromLatin1(name));
    EXPECT_NE(s, nullptr) << name;
    return s;
  }
  // The first pane's share of the two.
  static double firstShare(const QSplitter* s) {
    const QList<int> sizes = s->sizes();
    return sizes.size() == 2 && sizes[0] + sizes[1] > 0
               ? static_cast<double>(sizes[0]) / (sizes[0] + sizes[1])
               : -1;
  }
};

TEST_F(SplitterDefaultVersion, AnOlderSavedSplitGivesWayToANewDefaultOnceAndADragStays) {
  double oldHistory = 0, oldRuns = 0;  // as the older window had them (its panes' minimums hold)
  {
    // An older window: History's table over a chart of a few rows, the Runs page dragged; saved
    // with no versions, as windows before them saved.
    MainWindow older;
    show(older, older.historyPage());
    splitter(older, "historySplitter")->setSizes({560, 80});
    oldHistory = firstShare(splitter(older, "historySplitter"));
    older.pages()->setCurrentWidget(older.runsPage());
    QCoreApplication::processEvents();
    splitter(older, "runsSplitter")->setSizes({700, 300});
    oldRuns = firstShare(splitter(older, "runsSplitter"));
    older.saveSettings();
    QSettings().remove(QStringLiteral("splitterVersions"));
  }
  ASSERT_GT(oldHistory, 0.55) << "the older split shows less chart than the default";
  double drawn = 0;
  {
    MainWindow upgraded;
    upgraded.restoreSettings();
    show(upgraded, upgraded.historyPage());
    QSplitter* history = splitter(upgraded, "historySplitter");
    EXPECT_GE(defaultSplitVersion(history), 1);
    // The new default: the chart has three fifths, not what the older window left it.
    EXPECT_NEAR(firstShare(history), 0.4, 0.1) << "restored " << oldHistory;
    // A splitter whose default did not change keeps the user's split.
    upgraded.pages()->setCurrentWidget(upgraded.runsPage());
    QCoreApplication::processEvents();
    EXPECT_NEAR(firstShare(splitter(upgraded, "runsSplitter")), oldRuns, 0.02);
    // The user drags History's chart smaller again, and quits.
    upgraded.pages()->setCurrentWidget(upgraded.historyPage());
    QCoreApplication::processEvents();
    history->setSizes({450, 190});
    drawn = firstShare(history);
    upgraded.saveSettings();
  }
  ASSERT_GT(drawn, 0.5) << "a drag unlike the default";
  MainWindow again;
  again.restoreSettings();
  show(again, again.historyPage());
  EXPECT_NEAR(firstShare(splitter(again, "historySplitter")), drawn, 0.02)
      << "the user's own drag, saved with the new version, is restored";
}

}  // namespace
}  // namespace opevo::ui
