// A window with nothing to do does nothing, empty or with a race drawn. The Runs page's algorithm
// settings relaid themselves out in a loop at 1280x800 (a table growing and losing a scroll bar):
// 90% of a core with the window idle, and on a 2-core CPU every kernel and library the window timed
// beside it ran at about half its speed.

#include <gtest/gtest.h>

#include <QApplication>
#include <QEvent>
#include <QItemSelectionModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QWidget>

#include "gui_test_support.h"
#include "ui/controller/engine_controller.h"
#include "ui/main_window.h"
#include "ui/models/history_model.h"
#include "ui/models/trials_model.h"
#include "ui/pages/history_page.h"
#include "ui/pages/runs_page.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/dataset_picker.h"
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

const QList<QSize> kSizes = {QSize(800, 600),  QSize(1024, 640), QSize(1024, 700), QSize(1180, 738),
                             QSize(1264, 700), QSize(1264, 738), QSize(1920, 1040)};

// Whether the window goes quiet (no widget resized or laid out for 150 ms) within 3 s: a loaded
// machine may take a while over a resize's own layout passes; the loop never went quiet.
bool quietWithin3s(LayoutEvents& events) {
  for (int tries = 0; tries < 20; ++tries) {
    events.count = 0;
    QTest::qWait(150);
    if (events.count == 0) return true;
  }
  return false;
}

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
    for (const QSize size : kSizes) {
      window.resize(size);
      EXPECT_TRUE(quietWithin3s(events))
          << "page " << page << " at " << size.width() << "x" << size.height()
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

// The pages as a race leaves them: the Runs page's curves, bands and trials after a replay race
// of two algorithms, History with that race drawn, at every size. Empty pages were the only ones
// covered; the ones with content were checked by hand.
TEST(WindowIdle, PagesWithARaceDrawnStandStill) {
  QTemporaryDir home;
  ASSERT_TRUE(home.isValid());
  // Its own folders (History must list this race's four runs alone), put back after it for the
  // tests that follow in this process.
  struct FoldersBack {
    QByteArray data = qgetenv("XDG_DATA_HOME"), config = qgetenv("XDG_CONFIG_HOME"),
               cache = qgetenv("XDG_CACHE_HOME");
    ~FoldersBack() {
      for (const auto& [name, value] : {std::pair{"XDG_DATA_HOME", data},
                                        {"XDG_CONFIG_HOME", config},
                                        {"XDG_CACHE_HOME", cache}})
        value.isEmpty() ? qunsetenv(name) : qputenv(name, value);
    }
  } back;
  test::useFoldersIn(home);
  MainWindow window;
  window.setRemembersSettings(false);
  window.resize(1264, 738);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  RaceSetupPanel* setup = window.runsPage()->setup();
  setup->datasetPicker()->load(QStringLiteral(OPEVO_DATASETS_DIR "/convolution_milo/A100.json.gz"));
  ASSERT_TRUE(test::waitUntil([&] { return !setup->datasetPicker()->loading(); }, 60000));
  ASSERT_TRUE(setup->datasetPicker()->dataset());
  setup->algorithmPanel()->setChecked({QStringLiteral("opevo"), QStringLiteral("autotvm")});
  setup->setRepeats(2);
  setup->setTrials(40);
  ASSERT_TRUE(window.runsPage()->start()) << window.runsPage()->message().toStdString();
  ASSERT_TRUE(test::waitUntil([&] { return !window.runsPage()->controller()->busy(); }, 120000));
  ASSERT_EQ(window.runsPage()->trialsModel()->rowCount(), 2 * 2 * 40);
  HistoryPage* history = window.historyPage();
  window.pages()->setCurrentWidget(history);
  ASSERT_TRUE(test::waitUntil([&] { return !history->busy() && history->model()->rowCount() == 4; },
                              30000));
  history->selectRace(0);
  ASSERT_TRUE(test::waitUntil([&] { return !history->busy(); }, 30000));
  ASSERT_EQ(history->view()->selectionModel()->selectedRows().size(), 4);

  LayoutEvents events(window);
  qApp->installEventFilter(&events);
  for (QWidget* page : {static_cast<QWidget*>(window.runsPage()), static_cast<QWidget*>(history)}) {
    window.pages()->setCurrentWidget(page);
    for (const QSize size : kSizes) {
      window.resize(size);
      EXPECT_TRUE(quietWithin3s(events))
          << page->metaObject()->className() << " at " << size.width() << "x" << size.height()
          << " kept relaying itself out, the last: " << events.last.toStdString();
    }
  }
  qApp->removeEventFilter(&events);
}

}  // namespace
}  // namespace opevo::ui
