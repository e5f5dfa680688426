// The Runs page's bundled datasets at 1024x700.
#include <gtest/gtest.h>

#include <QPushButton>

#include "first_run_fixture.h"
#include "ui/pages/runs_page.h"
#include "ui/widgets/dataset_picker.h"
#include "ui/widgets/race_setup_panel.h"

namespace opevo::ui {
namespace {

using test::FirstRunTest;
using test::waitUntil;

// "GEMM 2080 Ti" was clipped at 1024x700: every bundled dataset's button has its whole text.
TEST_F(FirstRunTest, EveryBundledDatasetButtonShowsItsWholeName) {
  open();
  m_window->pages()->setCurrentWidget(m_window->runsPage());
  QTest::qWait(20);
  const QList<QPushButton*> buttons =
      m_window->runsPage()->setup()->datasetPicker()->findChildren<QPushButton*>();
  int shortcuts = 0;
  for (const QPushButton* b : buttons) {
    if (!b->objectName().startsWith(QStringLiteral("shortcut_"))) continue;
    ++shortcuts;
    EXPECT_GE(b->width(), b->sizeHint().width()) << b->text().toStdString();
    // Room beside the name, not the 4 pixels a side that read as clipped.
    const int room = (b->width() - b->fontMetrics().horizontalAdvance(b->text())) / 2;
    EXPECT_GE(room, b->fontMetrics().averageCharWidth()) << b->text().toStdString();
  }
  EXPECT_EQ(shortcuts, 3);
}

}  // namespace
}  // namespace opevo::ui
