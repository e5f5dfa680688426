#include "ui/pages/operator_editor.h"

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <fstream>

#include "gui_test_support.h"
#include "ops/operator_json.h"
#include "ui/main_window.h"
#include "ui/models/operator_file_model.h"
#include "ui/pages/presets_panel.h"
#include "ui/pages/qwalk_panel.h"
#include "ui/pages/topology_page.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

void writeFile(const QString& path, const std::string& text) {
  std::ofstream(path.toStdString()) << text;
}

// The window on the offscreen platform with an operators folder of its own (OPEVO_OPERATORS_DIR),
// holding files the test writes before the window lists them.
class OperatorEditorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    qputenv("OPEVO_OPERATORS_DIR", m_dir.path().toLocal8Bit());
  }
  void TearDown() override {
    m_testers.clear();
    m_window.reset();
    qunsetenv("OPEVO_OPERATORS_DIR");
    EXPECT_TRUE(m_warnings.messages().isEmpty()) << m_warnings.messages().join('\n').toStdString();
  }
  void open() {
    m_window = std::make_unique<MainWindow>();
    m_window->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(m_window.get()));
    for (const char* table : {"presetTable", "operatorFileTable", "parameterTable"})
      m_testers.push_back(std::make_unique<QAbstractItemModelTester>(
          child<QTableView>(table)->model(),
          QAbstractItemModelTester::FailureReportingMode::Warning));
    // Nothing in these tests may be dropped by a question nobody answers.
    editor()->setDiscardQuestion([this] {
      ++m_questions;
      return m_discard;
    });
  }

  template <typename T>
  T* child(const char* name) {
    T* widget = m_window->findChild<T*>(QString::fromLatin1(name));
    EXPECT_NE(widget, nullptr) << name;
    return widget;
  }
  PresetsPanel* panel() { return m_window->presetsPanel(); }
  OperatorEditor* editor() { return panel()->editor(); }
  OperatorFileModel* files() { return panel()->fileModel(); }
  // Select all, then type, as a user replaces a field's text.
  void typeInto(const char* field, const QString& text) {
    auto* edit = child<QLineEdit>(field);
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    if (text.isEmpty())
      QTest::keyClick(edit, Qt::Key_Delete);
    else
      QTest::keyClicks(edit, text);
  }
  QString sizeText() { return child<QLabel>("editorSize")->text(); }
  QString errorShown() {
    auto* label = child<QLabel>("editorError");
    return label->isVisible() ? label->text() : QString();
  }
  void clickRow(const char* table, int row) {
    auto* view = child<QTableView>(table);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {},
                      view->visualRect(view->model()->index(row, 0)).center());
  }
  void startNew(OpKind kind) {
    panel()->newOperator(kind);
    ASSERT_EQ(child<QTabWidget>("libraryTabs")->currentIndex(), 1);
  }

  QTemporaryDir m_dir;
  test::ModelTestFailures m_warnings;
  std::unique_ptr<MainWindow> m_window;
  std::vector<std::unique_ptr<QAbstractItemModelTester>> m_testers;
  int m_questions = 0;
  bool m_discard = false;
};

TEST_F(OperatorEditorTest, NewMatMulShowsItsSpaceSize) {
  open();
  startNew(OpKind::MatMul);
  EXPECT_EQ(child<QLineEdit>("editorName")->text(), "my_matmul");
  EXPECT_EQ(child<QComboBox>("editorKind")->currentText(), "matmul");
  ASSERT_NE(editor()->definition(), nullptr);
  EXPECT_TRUE(errorShown().isEmpty()) << errorShown().toStdString();
  // MM1's shape to start from: 220 * 286 * 66 configurations.
  EXPECT_TRUE(sizeText().contains("4,152,720")) << sizeText().toStdString();
  EXPECT_FALSE(child<QLineEdit>("shape_batch")->isVisible());  // a matmul has batch 1
  EXPECT_TRUE(child<QLineEdit>("shape_k")->isVisible());
}

TEST_F(OperatorEditorTest, ImpossibleShapeNamesTheFieldAndKeepsTheText) {
  open();
  startNew(OpKind::MatMul);
  for (const QString bad : {"0", "-16"}) {
    typeInto("shape_n", bad);
    EXPECT_EQ(editor()->definition(), nullptr) << bad.toStdString();
    EXPECT_TRUE(errorShown().contains("n must be a positive integer, got " + bad))
        << errorShown().toStdString();
    EXPECT_EQ(editor()->markedFields(), QStringList{"n"});
    EXPECT_EQ(child<QLineEdit>("shape_n")->text(), bad);
    EXPECT_TRUE(sizeText().contains("No space")) << sizeText().toStdString();
  }
  typeInto("shape_k", "abc");
  // Core stops at the first problem it meets, here the type of k; n, still -16, is marked and
  // said beside it, so that fixing k does not reveal it only then.
  EXPECT_TRUE(errorShown().contains("shape field 'k' must be an integer"))
      << errorShown().toStdString();
  EXPECT_TRUE(errorShown().contains("n: '-16' is not a count")) << errorShown().toStdString();
  EXPECT_EQ(editor()->markedFields(), (QStringList{"k", "n"}));
  typeInto("shape_k", "");
  EXPECT_TRUE(errorShown().contains("lacks field 'k'")) << errorShown().toStdString();
  EXPECT_EQ(child<QLineEdit>("shape_n")->text(), "-16");

  // The window stays usable: another preset is shown, and the typed text is still there.
  clickRow("presetTable", 3);
  EXPECT_EQ(panel()->selectedPreset(), "BMM1");
  EXPECT_EQ(child<QLineEdit>("shape_n")->text(), "-16");
  EXPECT_TRUE(editor()->isModified());

  typeInto("shape_n", "512");
  typeInto("shape_k", "1024");
  ASSERT_NE(editor()->definition(), nullptr) << errorShown().toStdString();
  EXPECT_TRUE(errorShown().isEmpty());
  EXPECT_TRUE(editor()->markedFields().isEmpty());
  EXPECT_TRUE(sizeText().contains("4,152,720")) << sizeText().toStdString();
}

// Save and Save as stay where they are while the error box comes and goes (and the size line
// changes its length), so a click aimed at Save after fixing a value lands on it.
TEST_F(OperatorEditorTest, TheSaveButtonsStayStillAsTheErrorComesAndGoes) {
  open();
  startNew(OpKind::MatMul);
  auto* save = child<QPushButton>("editorSave");
  auto* saveAs = child<QPushButton>("editorSaveAs");
  const auto where = [&] {
    QTest::qWait(20);  // the layout moves its widgets on the next pass of the event loop
    return std::make_pair(save->mapTo(m_window.get(), QPoint()),
                          saveAs->mapTo(m_window.get(), QPoint()));
  };
  const auto before = where();
  typeInto("shape_n", "0");
  ASSERT_FALSE(errorShown().isEmpty());
  EXPECT_EQ(where(), before);
  typeInto("shape_k", "abc");  // a longer message, two fields marked
  EXPECT_EQ(where(), before);
  typeInto("shape_n", "512");
  typeInto("shape_k", "1024");
  ASSERT_TRUE(errorShown().isEmpty());
  EXPECT_EQ(where(), before);
}

TEST_F(OperatorEditorTest, ALargePrimeLoopLengthGivesAValidSpace) {
  open();
  startNew(OpKind::MatMul);
  typeInto("shape_m", "1009");
  ASSERT_NE(editor()->definition(), nullptr) << errorShown().toStdString();
  // The prime sits in one of tile_m's four positions: 220 * 4 * 66.
  EXPECT_EQ(editor()->definition()->space.size().toString(), "58080");
  EXPECT_TRUE(sizeText().contains("58,080")) << sizeText().toStdString();
}

TEST_F(OperatorEditorTest, ConvolutionWithAnEmptyOutputIsRefusedAndKeptAsTyped) {
  open();
  startNew(OpKind::Conv2D);
  ASSERT_NE(editor()->definition(), nullptr) << errorShown().toStdString();
  EXPECT_TRUE(child<QLineEdit>("shape_kernel_w")->isVisible());
  EXPECT_FALSE(child<QLineEdit>("shape_n")->isVisible());
  typeInto("shape_kernel_h", "500");
  EXPECT_EQ(editor()->definition(), nullptr);
  EXPECT_TRUE(errorShown().contains("output would be empty")) << errorShown().toStdString();
  EXPECT_TRUE(editor()->markedFields().contains("kernel_h"));
  EXPECT_EQ(child<QLineEdit>("shape_kernel_h")->text(), "500");
  typeInto("shape_kernel_h", "3");
  ASSERT_NE(editor()->definition(), nullptr) << errorShown().toStdString();

  // A space override that is not a spec names the parameter's field; fixing it changes the size.
  const std::string before = editor()->definition()->space.size().toString();
  typeInto("space_auto_unroll_max_step", "discrete:");
  EXPECT_EQ(editor()->definition(), nullptr);
  EXPECT_EQ(editor()->markedFields(), QStringList{"space:auto_unroll_max_step"})
      << errorShown().toStdString();
  typeInto("space_auto_unroll_max_step", "discrete:0,64,256,512,1500");
  ASSERT_NE(editor()->definition(), nullptr) << errorShown().toStdString();
  EXPECT_NE(editor()->definition()->space.size().toString(), before);

  // Switching kind hides the convolution's fields without clearing them.
  child<QComboBox>("editorKind")->setCurrentIndex(0);
  EXPECT_FALSE(child<QLineEdit>("shape_kernel_h")->isVisible());
  child<QComboBox>("editorKind")->setCurrentIndex(2);
  EXPECT_EQ(child<QLineEdit>("shape_kernel_h")->text(), "3");
  EXPECT_EQ(child<QLineEdit>("space_auto_unroll_max_step")->text(), "discrete:0,64,256,512,1500");
}

TEST_F(OperatorEditorTest, SavedOperatorAppearsInTheLibraryAndLoadsTheSameInCore) {
  open();
  std::shared_ptr<const OperatorDefinition> chosen;
  QObject::connect(panel(), &PresetsPanel::operatorChosen,
                   [&](std::shared_ptr<const OperatorDefinition> op) { chosen = std::move(op); });
  startNew(OpKind::BatchMatMul);
  typeInto("editorName", "attention_scores");
  typeInto("shape_batch", "96");
  typeInto("shape_n", "128");
  typeInto("shape_m", "128");
  typeInto("shape_k", "64");
  QTest::mouseClick(child<QCheckBox>("shape_trans_b"), Qt::LeftButton);
  ASSERT_NE(editor()->definition(), nullptr) << errorShown().toStdString();
  const OperatorDefinition typed = *editor()->definition();
  ASSERT_EQ(files()->rowCount(), 0);

  QTest::mouseClick(child<QPushButton>("editorSave"), Qt::LeftButton);
  const QString path = m_dir.filePath("attention_scores.json");
  ASSERT_TRUE(QFile::exists(path)) << errorShown().toStdString();
  EXPECT_FALSE(editor()->isModified());
  EXPECT_EQ(editor()->path(), path);
  ASSERT_EQ(files()->rowCount(), 1);
  EXPECT_EQ(files()->index(0, 0).data().toString(), "attention_scores");
  EXPECT_EQ(panel()->selectedFile(), path);
  ASSERT_NE(chosen, nullptr);
  EXPECT_EQ(chosen->op.name, "attention_scores");

  // What core (and `opevo tune --op FILE`) reads back is what the form showed.
  const OperatorDefinition loaded = loadOperator(path.toStdString());
  EXPECT_EQ(operatorDefinitionToJson(loaded), operatorDefinitionToJson(typed));
  EXPECT_EQ(loaded.op.batch, 96);
  EXPECT_TRUE(loaded.op.transB);
  EXPECT_EQ(loaded.space.size().toString(), typed.space.size().toString());
  EXPECT_EQ(chosen->space.size().toString(), typed.space.size().toString());

  // Saving again writes the same file; the library's row is read again, not doubled.
  typeInto("shape_k", "32");
  QTest::mouseClick(child<QPushButton>("editorSave"), Qt::LeftButton);
  EXPECT_EQ(files()->rowCount(), 1);
  EXPECT_EQ(loadOperator(path.toStdString()).op.k, 32);
  EXPECT_EQ(chosen->op.k, 32);
}

TEST_F(OperatorEditorTest, AFailedSaveSaysWhyAndKeepsTheText) {
  open();
  startNew(OpKind::MatMul);
  typeInto("shape_n", "0");
  QTest::mouseClick(child<QPushButton>("editorSave"), Qt::LeftButton);
  EXPECT_TRUE(errorShown().startsWith("Not saved")) << errorShown().toStdString();
  EXPECT_TRUE(errorShown().contains("n must be a positive integer")) << errorShown().toStdString();
  EXPECT_EQ(child<QLineEdit>("shape_n")->text(), "0");

  // A folder that cannot be made: under a regular file.
  typeInto("shape_n", "64");
  writeFile(m_dir.filePath("plain"), "not a folder");
  qputenv("OPEVO_OPERATORS_DIR", m_dir.filePath("plain/operators").toLocal8Bit());
  QTest::mouseClick(child<QPushButton>("editorSave"), Qt::LeftButton);
  EXPECT_TRUE(errorShown().startsWith("Not saved: cannot create the folder"))
      << errorShown().toStdString();
  EXPECT_TRUE(editor()->isModified());
  EXPECT_EQ(child<QLineEdit>("shape_n")->text(), "64");
  EXPECT_TRUE(editor()->path().isEmpty());
}

TEST_F(OperatorEditorTest, LibraryListsFilesAndShowsAFileThatFailsWithItsError) {
  writeFile(
      m_dir.filePath("a_good.json"),
      R"({"name": "bert_ffn_up", "kind": "matmul", "shape": {"n": 512, "k": 1024, "m": 4096}})");
  writeFile(m_dir.filePath("b_impossible.json"),
            R"({"name": "tiny", "kind": "conv2d", "shape": {"in_channels": 3, "height": 4,
                "width": 4, "out_channels": 8, "kernel_h": 7, "kernel_w": 7}})");
  writeFile(m_dir.filePath("c_broken.json"), "{ not json");
  open();
  ASSERT_EQ(files()->rowCount(), 3);
  EXPECT_EQ(files()->index(0, 0).data().toString(), "bert_ffn_up");
  EXPECT_TRUE(files()->index(1, 1).data().toString().contains("output would be empty"));
  EXPECT_TRUE(files()->index(2, 1).data().toString().contains("not valid JSON"));

  std::vector<std::string> chosen;
  QObject::connect(
      panel(), &PresetsPanel::operatorChosen,
      [&](std::shared_ptr<const OperatorDefinition> op) { chosen.push_back(op->op.name); });
  clickRow("operatorFileTable", 1);
  EXPECT_TRUE(child<QLabel>("presetTitle")->text().contains("output would be empty"));
  EXPECT_EQ(panel()->currentOperator(), nullptr);
  EXPECT_EQ(child<QTableView>("parameterTable")->model()->rowCount(), 0);
  EXPECT_TRUE(chosen.empty());

  clickRow("operatorFileTable", 0);
  ASSERT_EQ(chosen, std::vector<std::string>{"bert_ffn_up"});
  EXPECT_TRUE(panel()->selectedPreset().isEmpty());
  EXPECT_FALSE(child<QTableView>("presetTable")->selectionModel()->hasSelection());
  EXPECT_EQ(child<QTableView>("parameterTable")->model()->rowCount(), 3);
  EXPECT_TRUE(child<QLabel>("spaceSizeLabel")->text().contains("Total space"));
  // The q-walk panel follows a file as it follows a preset.
  EXPECT_EQ(child<QComboBox>("paramCombo")->count(), 4);
  clickRow("presetTable", 0);
  EXPECT_EQ(chosen.back(), "MM1");
  EXPECT_FALSE(child<QTableView>("operatorFileTable")->selectionModel()->hasSelection());

  // Editing the refused file starts from what it says and shows why core refuses it.
  clickRow("operatorFileTable", 1);
  panel()->editSelected();
  EXPECT_EQ(child<QLineEdit>("shape_kernel_h")->text(), "7");
  EXPECT_TRUE(errorShown().contains("output would be empty")) << errorShown().toStdString();
  typeInto("shape_height", "16");
  typeInto("shape_width", "16");
  ASSERT_NE(editor()->definition(), nullptr) << errorShown().toStdString();
  QTest::mouseClick(child<QPushButton>("editorSave"), Qt::LeftButton);
  EXPECT_EQ(files()->rowCount(), 3);
  EXPECT_EQ(files()->index(1, 0).data().toString(), "tiny");
  EXPECT_EQ(chosen.back(), "tiny");
}

// A misspelt field: the form keeps the fields it knows, so it would say the real one is missing;
// the editor says what core says of the file, naming the typo.
TEST_F(OperatorEditorTest, AMisspeltFieldIsNamedAsTheFileHasIt) {
  writeFile(m_dir.filePath("typo.json"),
            R"({"name": "typo", "kind": "matmul", "shape": {"n": 64, "m": 64, "kk": 64}})");
  open();
  ASSERT_EQ(files()->rowCount(), 1);
  clickRow("operatorFileTable", 0);
  panel()->editSelected();
  EXPECT_TRUE(errorShown().contains("unknown shape field 'kk'")) << errorShown().toStdString();
}

TEST_F(OperatorEditorTest, UnsavedEditsAreKeptUnlessTheUserAgreesToDropThem) {
  open();
  startNew(OpKind::MatMul);
  typeInto("shape_n", "-1");
  clickRow("presetTable", 1);  // MM2
  m_discard = false;
  panel()->editSelected();
  EXPECT_EQ(m_questions, 1);
  EXPECT_EQ(child<QLineEdit>("shape_n")->text(), "-1");
  EXPECT_EQ(child<QLineEdit>("editorName")->text(), "my_matmul");

  m_discard = true;
  panel()->editSelected();
  EXPECT_EQ(m_questions, 2);
  // A copy of the preset: saving it never touches MM2.
  EXPECT_EQ(child<QLineEdit>("editorName")->text(), "MM2_copy");
  EXPECT_TRUE(editor()->path().isEmpty());
  ASSERT_NE(editor()->definition(), nullptr);
  EXPECT_FALSE(editor()->isModified());
  panel()->newOperator(OpKind::Conv2D);
  EXPECT_EQ(m_questions, 2);  // nothing typed since: no question
}

TEST_F(OperatorEditorTest, DoubleClickingAParameterOfAFileShowsItsGraph) {
  writeFile(m_dir.filePath("prime.json"),
            R"({"name": "prime", "kind": "matmul", "shape": {"n": 64, "k": 64, "m": 1009}})");
  open();
  ASSERT_EQ(files()->rowCount(), 1);
  clickRow("operatorFileTable", 0);
  auto* params = child<QTableView>("parameterTable");
  const QPoint at = params->visualRect(params->model()->index(1, 0)).center();
  QTest::mouseClick(params->viewport(), Qt::LeftButton, {}, at);
  QTest::mouseDClick(params->viewport(), Qt::LeftButton, {}, at);
  ASSERT_EQ(m_window->pages()->currentWidget(), m_window->topologyPage());
  EXPECT_EQ(child<QLineEdit>("topologySpec")->text(), "factor:1009:4");
  // The file's own parameters, not a lone custom spec: the Topology page offers the file.
  auto* op = child<QComboBox>("topologyOperator");
  EXPECT_EQ(op->currentText(), "prime.json");
  EXPECT_TRUE(child<QComboBox>("topologyParam")->isEnabled());
}

// The Topology page's Operator list offered the presets only, while the Runs page follows the
// Spaces page's files: the library's files are offered there too, and one saved later.
TEST_F(OperatorEditorTest, TheTopologyPageOffersTheUsersOperatorFiles) {
  writeFile(m_dir.filePath("prime.json"),
            R"({"name": "prime", "kind": "matmul", "shape": {"n": 64, "k": 64, "m": 1009}})");
  open();
  auto* op = child<QComboBox>("topologyOperator");
  const int prime = op->findText("prime.json");
  ASSERT_GE(prime, 0);
  EXPECT_EQ(op->itemText(op->count() - 1), "Custom spec…");  // still last
  EXPECT_EQ(op->currentText(), "MM1");                       // offered, not forced on the page
  op->setCurrentIndex(prime);
  auto* param = child<QComboBox>("topologyParam");
  EXPECT_TRUE(param->isEnabled());
  EXPECT_EQ(param->currentText(), "tile_n");
  EXPECT_TRUE(m_window->topologyPage()->selectParameter("tile_m"));
  EXPECT_EQ(child<QLineEdit>("topologySpec")->text(), "factor:1009:4");

  // One saved from the editor joins them.
  startNew(OpKind::MatMul);
  typeInto("editorName", "saved_later");
  QTest::mouseClick(child<QPushButton>("editorSave"), Qt::LeftButton);
  ASSERT_TRUE(QFile::exists(m_dir.filePath("saved_later.json"))) << errorShown().toStdString();
  EXPECT_GE(op->findText("saved_later.json"), 0);
  EXPECT_EQ(op->itemText(op->count() - 1), "Custom spec…");
}

}  // namespace
}  // namespace opevo::ui
