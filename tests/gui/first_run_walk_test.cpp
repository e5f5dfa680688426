// What new users found walking the window (one from the README's first steps, one checking the
// search-space views against the OpEvo paper): each finding as the behaviour that fixes it.
#include <gtest/gtest.h>

#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QTabWidget>
#include <QTableView>

#include "first_run_fixture.h"
#include "one_trial_run.h"
#include "store/store.h"
#include "ui/models/history_model.h"
#include "ui/pages/networks_page.h"
#include "ui/pages/presets_panel.h"
#include "ui/pages/qwalk_panel.h"
#include "ui/pages/runs_page.h"

namespace opevo::ui {
namespace {

using test::FirstRunTest;
using test::waitUntil;

// Dark pixels in a widget as drawn: text shows as many, an empty white table as none.
int inkIn(QWidget* widget) {
  const QImage image = widget->grab().toImage();
  int ink = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      if (qGray(image.pixel(x, y)) < 140) ++ink;
  return ink;
}

// The first window opened on Spaces with MM1 selected and an empty "Operator file" table, and
// said nothing about where to start.
TEST_F(FirstRunTest, AnEmptyDatabaseOpensWithANoteOnWhereToStart) {
  open();
  ASSERT_TRUE(historyRead());
  QLabel* hint = m_window->firstRunHint();
  ASSERT_TRUE(hint->isVisible());
  for (const char* words : {"Runs page", "Ctrl+3", "bundled", "open an operator file"})
    EXPECT_TRUE(hint->text().contains(QLatin1String(words))) << words;
  // Its link goes to the Runs page.
  emit hint->linkActivated(QStringLiteral("runs"));
  EXPECT_EQ(m_window->pages()->currentWidget(), m_window->runsPage());
}

TEST_F(FirstRunTest, TheNoteIsGoneOnceTheDatabaseHoldsARun) {
  {
    Store store(m_db.toStdString());
    opevo::test::storeOneTrialRun(store, "cpu");
  }
  open();
  ASSERT_TRUE(historyRead());
  ASSERT_EQ(m_window->historyPage()->model()->rowCount(), 1);
  EXPECT_FALSE(m_window->firstRunHint()->isVisible());
}

// The empty table of operator files says what goes there and how; once a file is listed, the
// file is what it shows.
TEST_F(FirstRunTest, TheEmptyOperatorFileTableSaysWhatGoesThere) {
  open();
  PresetsPanel* panel = m_window->presetsPanel();
  auto* files = child<QTableView>("operatorFileTable");
  const QString text = panel->emptyFilesText();
  EXPECT_TRUE(text.contains(QStringLiteral("File > Open operator file"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QDir::toNativeSeparators(m_dir.filePath(QStringLiteral("operators")))))
      << text.toStdString();
  const int emptyInk = inkIn(files->viewport());
  EXPECT_GT(emptyInk, 200);  // the text is drawn, not only returned

  const QString path = m_dir.filePath(QStringLiteral("mine.json"));
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(R"({"name": "mine", "kind": "matmul", "shape": {"n": 64, "m": 64, "k": 64}})");
  f.close();
  ASSERT_TRUE(panel->openFile(path));
  EXPECT_TRUE(panel->emptyFilesText().isEmpty());
}

// Opened with --preset C2 --param reduce_order (chosen before the window shows), neither row was
// scrolled into view.
TEST_F(FirstRunTest, RowsChosenBeforeTheWindowShowsAreScrolledIntoView) {
  m_window = std::make_unique<MainWindow>();
  PresetsPanel* panel = m_window->presetsPanel();
  // As app/studio/main.cpp applies --preset C2 --space joint --param reduce_order.
  ASSERT_TRUE(panel->selectPreset(QStringLiteral("C2")));
  ASSERT_TRUE(panel->templateBox()->select(SpaceTemplate::Joint));
  ASSERT_TRUE(m_window->qwalkPanel()->selectParameter(QStringLiteral("reduce_order")));
  m_window->resize(1024, 700);
  m_window->show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(m_window.get()));
  ASSERT_TRUE(historyRead());  // the first-run note above the tables has come
  for (const char* name : {"presetTable", "parameterTable"}) {
    auto* view = child<QTableView>(name);
    const QRect row = view->visualRect(view->currentIndex());
    EXPECT_TRUE(view->viewport()->rect().contains(row))
        << name << " row " << view->currentIndex().row() << " at " << row.y() << ".."
        << row.bottom() << " of " << view->viewport()->height();
  }
}

}  // namespace
}  // namespace opevo::ui
