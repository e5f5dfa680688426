// A new user's walk of operator files, spaces and the topology/q-walk views (second round):
// each finding as the behaviour that fixes it.
#include <gtest/gtest.h>

#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QTemporaryDir>
#include <fstream>

#include "gui_test_support.h"
#include "ui/charts/topology_view.h"
#include "ui/jobs/graph_layout.h"
#include "ui/main_window.h"
#include "ui/models/operator_file_model.h"
#include "ui/models/qwalk_model.h"
#include "ui/pages/presets_panel.h"
#include "ui/pages/qwalk_panel.h"
#include "ui/pages/topology_page.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

class TopologyOpsFindingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    qputenv("OPEVO_OPERATORS_DIR", m_dir.path().toLocal8Bit());
    m_window = std::make_unique<MainWindow>();
    m_window->resize(1024, 700);
    m_window->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(m_window.get()));
  }
  void TearDown() override {
    m_window.reset();
    qunsetenv("OPEVO_OPERATORS_DIR");
  }
  TopologyPage* page() { return m_window->topologyPage(); }
  bool settled() {
    return waitUntil([&] { return !page()->busy(); }, 60000);
  }
  QLineEdit* edit(const char* name) {
    return m_window->findChild<QLineEdit*>(QString::fromLatin1(name));
  }
  std::size_t layoutIndexOf(const QString& vertex) {
    const GraphLayout* layout = page()->view()->graphLayout();
    for (std::size_t i = 0; i < layout->graph.size(); ++i)
      if (QString::fromStdString(
              page()->result()->request.param->format(layout->graph.vertices[i])) == vertex)
        return i;
    ADD_FAILURE() << vertex.toStdString();
    return 0;
  }

  QTemporaryDir m_dir;
  std::unique_ptr<MainWindow> m_window;
};

// Start 32,32,1 then q = 1.5: the error was right, but the graph outlined the first vertex as the
// start while Start still said 32,32,1.
TEST_F(TopologyOpsFindingsTest, AnInvalidQKeepsTheDrawnStart) {
  m_window->pages()->setCurrentWidget(page());
  ASSERT_TRUE(page()->selectOperator(QStringLiteral("MM1")));
  ASSERT_TRUE(page()->selectParameter(QStringLiteral("tile_k")));
  page()->setStartText(QStringLiteral("32,32,1"));
  ASSERT_TRUE(settled());
  ASSERT_TRUE(page()->showingGraph());
  const std::size_t start = layoutIndexOf(QStringLiteral("32,32,1"));
  ASSERT_NE(start, 0u);
  EXPECT_EQ(page()->view()->startIndex(), start);
  page()->setQText(QStringLiteral("1.5"));
  ASSERT_TRUE(settled());
  EXPECT_FALSE(page()->errors().isEmpty());
  EXPECT_EQ(page()->view()->startIndex(), start);
  EXPECT_EQ(edit("topologyStart")->text(), "32,32,1");
}

// After a file that does not load, the Spaces q-walk pane kept the last operator's start vertex.
TEST_F(TopologyOpsFindingsTest, AFileThatDoesNotLoadClearsTheQwalkStart) {
  QwalkPanel* panel = m_window->qwalkPanel();
  ASSERT_TRUE(panel->selectParameter(QStringLiteral("tile_k")));
  panel->setStartText(QStringLiteral("32,32,1"));
  ASSERT_EQ(edit("startEdit")->text(), "32,32,1");
  const QString bad = m_dir.filePath(QStringLiteral("kk.json"));
  std::ofstream(bad.toStdString()) << R"({"name": "kk", "kind": "matmul",
                                         "shape": {"n": 64, "m": 64, "kk": 64}})";
  ASSERT_FALSE(m_window->presetsPanel()->openFile(bad));
  EXPECT_TRUE(edit("startEdit")->text().isEmpty()) << edit("startEdit")->text().toStdString();
  EXPECT_EQ(panel->model()->rowCount(), 0);
}

// Files copied into the operators folder while the window ran were listed only after a restart.
TEST_F(TopologyOpsFindingsTest, TheFileListFollowsTheFolder) {
  OperatorFileModel* files = m_window->presetsPanel()->fileModel();
  ASSERT_EQ(files->rowCount(), 0);
  const std::string op = R"({"kind": "matmul", "shape": {"n": 8, "m": 8, "k": 8}, "name": ")";
  std::ofstream(m_dir.filePath(QStringLiteral("b.json")).toStdString()) << op << "b\"}";
  ASSERT_TRUE(waitUntil([&] { return files->rowCount() == 1; }, 10000));
  std::ofstream(m_dir.filePath(QStringLiteral("a.json")).toStdString()) << op << "a\"}";
  ASSERT_TRUE(waitUntil([&] { return files->rowCount() == 2; }, 10000));
  EXPECT_EQ(files->index(0, 0).data().toString(), "a");  // in name order, as at start
  EXPECT_EQ(files->index(1, 0).data().toString(), "b");
  QFile::remove(m_dir.filePath(QStringLiteral("a.json")));
  ASSERT_TRUE(waitUntil([&] { return files->rowCount() == 1; }, 10000));
  EXPECT_EQ(files->index(0, 0).data().toString(), "b");
}

// The folder beside a new database does not exist until a file goes there; one made by hand (not
// by Save) was not watched.
TEST_F(TopologyOpsFindingsTest, AFolderMadeAfterTheStartIsFollowedToo) {
  OperatorFileModel* files = m_window->presetsPanel()->fileModel();
  const QString later = m_dir.filePath(QStringLiteral("later"));
  files->setDirectory(later);
  ASSERT_TRUE(QDir().mkpath(later));
  std::ofstream((later + "/c.json").toStdString())
      << R"({"name": "c", "kind": "matmul", "shape": {"n": 8, "m": 8, "k": 8}})";
  ASSERT_TRUE(waitUntil([&] { return files->rowCount() == 1; }, 10000));
  EXPECT_EQ(files->index(0, 0).data().toString(), "c");
}

}  // namespace
}  // namespace opevo::ui
