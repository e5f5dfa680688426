#include "ui/widgets/help_window.h"

#include <gtest/gtest.h>

#include <QFile>
#include <QListWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTextDocument>
#include <QToolButton>

#include "gui_test_support.h"

namespace opevo::ui {
namespace {

// The guide as this build's source tree has it (README.md and docs/).
class HelpWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_help.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&m_help));
  }
  QStringList listed() const {
    QStringList pages;
    for (int i = 0; i < m_help.contents()->count(); ++i)
      pages << m_help.contents()->item(i)->data(Qt::UserRole).toString();
    return pages;
  }
  QString selected() const {
    const QListWidgetItem* item = m_help.contents()->currentItem();
    return item ? item->data(Qt::UserRole).toString() : QString();
  }

  HelpWindow m_help;
};

TEST_F(HelpWindowTest, OpensOnTheReadmeAndListsEveryPageOfTheGuide) {
  ASSERT_FALSE(HelpWindow::docsDir().isEmpty());
  EXPECT_EQ(m_help.currentPage(), QStringLiteral("README.md"));
  EXPECT_EQ(selected(), QStringLiteral("README.md"));
  const QStringList pages = listed();
  for (const char* page : {"README.md", "docs/kas.md", "docs/operators.md", "docs/results/gpu.md"})
    EXPECT_TRUE(pages.contains(QString::fromLatin1(page))) << page;
  // Titled by their first heading, not their file names.
  EXPECT_EQ(m_help.contents()->item(0)->text(), QStringLiteral("OpEvo Studio"));
  // Rendered from Markdown: no '#' or '|' of the source in the text.
  const QString text = m_help.browser()->toPlainText();
  EXPECT_TRUE(text.startsWith(QStringLiteral("OpEvo Studio"))) << text.left(80).toStdString();
  EXPECT_TRUE(m_help.message().isEmpty());
}

TEST_F(HelpWindowTest, LinksBetweenPagesStayInTheWindowAndBackReturns) {
  m_help.follow(QUrl(QStringLiteral("docs/kas.md")));
  EXPECT_EQ(m_help.currentPage(), QStringLiteral("docs/kas.md"));
  EXPECT_EQ(selected(), QStringLiteral("docs/kas.md"));
  EXPECT_TRUE(m_help.windowTitle().contains(QStringLiteral("docs/kas.md")));
  // Relative to the page shown, as the guide's links are written.
  m_help.follow(QUrl(QStringLiteral("results/canvas.md")));
  EXPECT_EQ(m_help.currentPage(), QStringLiteral("docs/results/canvas.md"));
  m_help.follow(QUrl(QStringLiteral("../kas.md")));
  EXPECT_EQ(m_help.currentPage(), QStringLiteral("docs/kas.md"));
  m_help.browser()->backward();
  EXPECT_EQ(m_help.currentPage(), QStringLiteral("docs/results/canvas.md"));
  EXPECT_EQ(selected(), QStringLiteral("docs/results/canvas.md"));
  // The contents list opens what is picked in it.
  m_help.contents()->setCurrentRow(0);
  EXPECT_EQ(m_help.currentPage(), QStringLiteral("README.md"));
}

TEST_F(HelpWindowTest, ALinkToNothingIsSaidAndThePageStays) {
  m_help.follow(QUrl(QStringLiteral("docs/no-such-page.md")));
  EXPECT_EQ(m_help.currentPage(), QStringLiteral("README.md"));
  EXPECT_TRUE(m_help.message().contains(QStringLiteral("docs/no-such-page.md")))
      << m_help.message().toStdString();
  EXPECT_FALSE(m_help.openPage(QStringLiteral("docs/screenshots/main-window.png")));
  EXPECT_EQ(m_help.currentPage(), QStringLiteral("README.md"));
  // The next page followed clears it.
  m_help.follow(QUrl(QStringLiteral("docs/kas.md")));
  EXPECT_TRUE(m_help.message().isEmpty());
}

// The document keeps the images it drew: after the window narrows they are loaded again, no
// wider than the page.
TEST_F(HelpWindowTest, ScreenshotsAreDrawnNoWiderThanThePageAsTheWindowResizes) {
  const QUrl screenshot(QStringLiteral("docs/screenshots/main-window.png"));
  const auto drawnWidth = [&] {
    const QVariant image =
        m_help.browser()->document()->resource(QTextDocument::ImageResource, screenshot);
    return image.canConvert<QImage>() ? image.value<QImage>().width() : -1;
  };
  m_help.resize(1400, 800);
  EXPECT_TRUE(test::waitUntil([&] { return drawnWidth() > 800; }, 5000)) << drawnWidth();
  const int wide = drawnWidth();
  EXPECT_LE(wide, m_help.browser()->viewport()->width());
  m_help.resize(800, 800);
  EXPECT_TRUE(test::waitUntil([&] { return drawnWidth() < wide; }, 5000)) << drawnWidth();
  const int narrow = drawnWidth();
  EXPECT_GT(narrow, 200);
  EXPECT_LT(narrow, wide);
  EXPECT_LE(narrow, m_help.browser()->viewport()->width());
  EXPECT_EQ(m_help.currentPage(), QStringLiteral("README.md"));
}

// A page the contents do not list (reached by a link) leaves no row current: picking the page
// that was, opens it again.
TEST_F(HelpWindowTest, APageTheContentsDoNotListLeavesNoRowCurrent) {
  QTemporaryDir dir;
  QFile::copy(HelpWindow::docsDir() + QStringLiteral("/README.md"),
              dir.filePath(QStringLiteral("README.md")));
  QFile extra(dir.filePath(QStringLiteral("notes.md")));
  ASSERT_TRUE(extra.open(QIODevice::WriteOnly));
  extra.write("# Notes\n\nNot listed.\n");
  extra.close();
  const QByteArray before = qgetenv("OPEVO_DOCS");
  qputenv("OPEVO_DOCS", dir.path().toLocal8Bit());
  HelpWindow help;
  qputenv("OPEVO_DOCS", before);
  if (before.isEmpty()) qunsetenv("OPEVO_DOCS");
  EXPECT_EQ(help.contents()->count(), 1);  // README alone: this folder has no docs/
  help.follow(QUrl(QStringLiteral("notes.md")));
  EXPECT_EQ(help.currentPage(), QStringLiteral("notes.md"));
  EXPECT_EQ(help.contents()->currentRow(), -1);
  help.contents()->setCurrentRow(0);
  EXPECT_EQ(help.currentPage(), QStringLiteral("README.md"));
}

// Esc closes the guide, as Ctrl+W does: it had no key to close it.
TEST_F(HelpWindowTest, EscapeClosesTheGuide) {
  m_help.activateWindow();
  QTest::keyClick(&m_help, Qt::Key_Escape);
  EXPECT_FALSE(m_help.isVisible());
}

TEST(HelpWindowWithoutGuide, SaysWhereItLooked) {
  QTemporaryDir empty;
  const QByteArray before = qgetenv("OPEVO_DOCS");
  qputenv("OPEVO_DOCS", empty.path().toLocal8Bit());
  HelpWindow help;
  qputenv("OPEVO_DOCS", before);
  if (before.isEmpty()) qunsetenv("OPEVO_DOCS");
  EXPECT_TRUE(help.currentPage().isEmpty());
  EXPECT_EQ(help.contents()->count(), 0);
  const QString text = help.browser()->toPlainText();
  EXPECT_TRUE(text.contains(QStringLiteral("was not found"))) << text.toStdString();
  EXPECT_TRUE(text.contains(empty.path())) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("OPEVO_DOCS")));
  // Only where it looked: OPEVO_DOCS set is the one place (the source tree has the guide).
  EXPECT_FALSE(text.contains(QStringLiteral("share/opevo-studio"))) << text.toStdString();
}

}  // namespace
}  // namespace opevo::ui
