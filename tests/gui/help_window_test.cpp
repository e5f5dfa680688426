#include "ui/widgets/help_window.h"

#include <gtest/gtest.h>

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

TEST_F(HelpWindowTest, ScreenshotsAreDrawnNoWiderThanThePage) {
  const QVariant image = m_help.browser()->loadResource(
      QTextDocument::ImageResource, QUrl(QStringLiteral("docs/screenshots/main-window.png")));
  ASSERT_TRUE(image.canConvert<QImage>());
  const QImage drawn = image.value<QImage>();
  ASSERT_FALSE(drawn.isNull());
  EXPECT_LE(drawn.width(), m_help.browser()->viewport()->width());
  EXPECT_GT(drawn.width(), 200);
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
}

}  // namespace
}  // namespace opevo::ui
