#include "ui/pages/operator_editor.h"

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
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
#include "ops/presets.h"
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
  // A k that is no integer does not hide n, still -16: both in core's words, in field order.
  EXPECT_TRUE(errorShown().contains("k must be a positive integer, got \"abc\""))
      << errorShown().toStdString();
  EXPECT_TRUE(errorShown().contains("n must be a positive integer, got -16"))
      << errorShown().toStdString();
  EXPECT_EQ(editor()->markedFields(), (QStringList{"n", "k"}));
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
// New > conv2d with height "3O", kernel_w 0 and pad -1 marked height and pad only; kernel_w's
// error came once height was fixed. Every wrong field is listed and marked at once, each kind of
// mistake in one wording (the same for matmul and batch_matmul), with the range it takes.
TEST_F(OperatorEditorTest, EveryWrongFieldIsListedAndMarkedAtOnceInOneWording) {
  open();
  startNew(OpKind::Conv2D);
  typeInto("editorName", "walk_conv");
  typeInto("shape_height", "3O");
  typeInto("shape_kernel_w", "0");
  typeInto("shape_pad", "-1");
  EXPECT_EQ(editor()->markedFields(), (QStringList{"height", "kernel_w", "pad"}));
  const QString shown = errorShown();
  EXPECT_TRUE(shown.contains("height must be a positive integer, got \"3O\""))
      << shown.toStdString();
  EXPECT_TRUE(shown.contains("kernel_w must be a positive integer, got 0")) << shown.toStdString();
  EXPECT_TRUE(shown.contains("pad must be an integer, 0 or more, got -1")) << shown.toStdString();
  typeInto("shape_height", "30");  // fixing one reveals nothing new
  EXPECT_EQ(editor()->markedFields(), (QStringList{"kernel_w", "pad"}));
  EXPECT_FALSE(errorShown().contains("height")) << errorShown().toStdString();

  m_discard = true;  // the convolution typed above
  startNew(OpKind::MatMul);
  typeInto("shape_m", "13x");
  const QString matmul = errorShown();
  EXPECT_TRUE(matmul.contains("m must be a positive integer, got \"13x\"")) << matmul.toStdString();
  child<QComboBox>("editorKind")->setCurrentIndex(static_cast<int>(OpKind::BatchMatMul));
  typeInto("shape_batch", "2");
  EXPECT_TRUE(errorShown().contains("m must be a positive integer, got \"13x\""))
      << errorShown().toStdString();
  EXPECT_FALSE(errorShown().contains("0 or more")) << errorShown().toStdString();
  EXPECT_EQ(editor()->markedFields(), QStringList{"m"});
}

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
  // Where it went, in full: the folder depends on the database in use.
  EXPECT_EQ(child<QLabel>("editorStatus")->text(), "Saved " + QDir::toNativeSeparators(path));
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
  EXPECT_EQ(op->currentText(), "prime");  // the operator's name, as the Spaces list shows it
  EXPECT_TRUE(child<QComboBox>("topologyParam")->isEnabled());
}

// The Topology page's Operator list offered the presets only, while the Runs page follows the
// Spaces page's files: the library's files are offered there too, and one saved later.
TEST_F(OperatorEditorTest, TheTopologyPageOffersTheUsersOperatorFiles) {
  writeFile(m_dir.filePath("prime.json"),
            R"({"name": "prime", "kind": "matmul", "shape": {"n": 64, "k": 64, "m": 1009}})");
  open();
  auto* op = child<QComboBox>("topologyOperator");
  const int prime = op->findText("prime");  // by the operator's name, as on Spaces
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
  EXPECT_GE(op->findText("saved_later"), 0);
  EXPECT_EQ(op->itemText(op->count() - 1), "Custom spec…");
}

// The user walk's file: a grouped convolution with an epilogue, here with the target the
// CUDA/HIP backends write too. The form has no field for the epilogue or the target; changing
// the height and saving dropped them (and groups, which the form lacked), and `opevo tune --op`
// then tuned another operator. Every field must survive, and what core reads back must be the
// file with the new height.
TEST_F(OperatorEditorTest, SavingAFileKeepsTheFieldsTheFormDoesNotEdit) {
  const QString path = m_dir.filePath("grouped.json");
  writeFile(path, R"({"name": "grouped", "kind": "conv2d", "dtype": "fp32",
      "shape": {"batch": 1, "in_channels": 32, "height": 14, "width": 14, "out_channels": 32,
                "kernel_h": 3, "kernel_w": 3, "stride": 1, "pad": 1, "groups": 4},
      "epilogue": ["bias", "relu", {"scale": 0.125}], "target": "gpu"})");
  nlohmann::json expected = operatorDefinitionToJson(loadOperator(path.toStdString()));
  expected["shape"]["height"] = 16;
  open();
  ASSERT_TRUE(panel()->openFile(path));
  panel()->editSelected();
  EXPECT_EQ(child<QLineEdit>("shape_groups")->text(), "4");
  EXPECT_TRUE(child<QLineEdit>("shape_groups")->isVisible());
  // What the form does not edit is shown, so the user knows it is there and will be saved.
  auto* kept = child<QLabel>("editorKept");
  EXPECT_TRUE(kept->isVisible());
  for (const char* field : {"epilogue", "target"})
    EXPECT_TRUE(kept->text().contains(field)) << kept->text().toStdString();
  EXPECT_FALSE(kept->text().contains("dtype")) << kept->text().toStdString();

  typeInto("shape_height", "16");
  ASSERT_NE(editor()->definition(), nullptr) << errorShown().toStdString();
  EXPECT_TRUE(sizeText().contains("groups 4")) << sizeText().toStdString();
  EXPECT_TRUE(sizeText().contains("+bias +relu *0.125")) << sizeText().toStdString();
  QTest::mouseClick(child<QPushButton>("editorSave"), Qt::LeftButton);
  EXPECT_FALSE(editor()->isModified()) << errorShown().toStdString();

  const OperatorDefinition saved = loadOperator(path.toStdString());
  EXPECT_EQ(operatorDefinitionToJson(saved), expected);
  EXPECT_EQ(saved.op.groups, 4);
  EXPECT_EQ(saved.op.height, 16);
  EXPECT_EQ(saved.op.epilogue.size(), 3u);
  EXPECT_EQ(saved.target, SpaceTarget::Gpu);
}

// ALT's joint mode, with an override of that template's unroll_k (a parameter the form has no
// field for), and an epilogue, survive a rename and a new k.
TEST_F(OperatorEditorTest, SavingAMatMulKeepsItsModeAndTheJointTemplatesOverride) {
  const QString path = m_dir.filePath("joint_mm.json");
  writeFile(path, R"({"name": "joint_mm", "kind": "matmul",
      "shape": {"n": 64, "m": 96, "k": 128, "trans_a": true}, "mode": "joint",
      "space": {"unroll_k": "choice:1,4"}, "epilogue": ["gelu"]})");
  open();
  ASSERT_TRUE(panel()->openFile(path));
  panel()->editSelected();
  EXPECT_TRUE(child<QCheckBox>("shape_trans_a")->isChecked());
  EXPECT_TRUE(child<QLabel>("editorKept")->text().contains("space.unroll_k"));
  typeInto("editorName", "joint_mm_renamed");
  typeInto("shape_k", "256");
  QTest::mouseClick(child<QPushButton>("editorSave"), Qt::LeftButton);
  ASSERT_FALSE(editor()->isModified()) << errorShown().toStdString();
  const OperatorDefinition saved = loadOperator(path.toStdString());
  EXPECT_EQ(saved.op.name, "joint_mm_renamed");
  EXPECT_EQ(saved.op.k, 256);
  EXPECT_TRUE(saved.op.transA);
  EXPECT_EQ(saved.mode, layout::TuningMode::Joint);
  EXPECT_EQ(saved.spaceOverrides, nlohmann::json({{"unroll_k", "choice:1,4"}}));
  ASSERT_EQ(saved.op.epilogue.size(), 1u);
  EXPECT_EQ(saved.op.epilogue[0].kind, EpilogueKind::Gelu);
}

TEST_F(OperatorEditorTest, GroupsAreEditedAndARefusalMarksTheChannels) {
  open();
  startNew(OpKind::Conv2D);  // C1: 3 input channels, 64 output
  EXPECT_FALSE(child<QLabel>("editorKept")->isVisible());
  EXPECT_EQ(child<QLineEdit>("shape_groups")->placeholderText(), "1");
  typeInto("shape_groups", "2");
  EXPECT_EQ(editor()->definition(), nullptr);
  EXPECT_TRUE(errorShown().contains("groups 2 must divide in_channels 3"))
      << errorShown().toStdString();
  EXPECT_EQ(editor()->markedFields(), (QStringList{"groups", "in_channels", "out_channels"}));
  typeInto("shape_in_channels", "4");
  ASSERT_NE(editor()->definition(), nullptr) << errorShown().toStdString();
  EXPECT_EQ(editor()->definition()->op.groups, 2);
  // A matmul has no groups (core refuses the field): switching kind does not write the conv2d's.
  child<QComboBox>("editorKind")->setCurrentIndex(0);
  EXPECT_FALSE(child<QLineEdit>("shape_groups")->isVisible());
  for (const char* field : {"shape_n", "shape_m", "shape_k"}) typeInto(field, "64");
  EXPECT_NE(editor()->definition(), nullptr) << errorShown().toStdString();
}

// A conv2d file's override of auto_unroll_max_step, cleared in the form, is gone from the file;
// and turned into a matmul, the file's conv2d override does not stay behind (core would refuse
// it, and the form, which hides a conv2d's fields for a matmul, could not clear it).
TEST(OperatorForm, TheFormsOwnFieldsReplaceTheFilesOthersStay) {
  const nlohmann::json file = nlohmann::json::parse(R"({"name": "c", "kind": "conv2d",
      "shape": {"in_channels": 8, "height": 8, "width": 8, "out_channels": 8, "kernel_h": 3,
                "kernel_w": 3, "kk": 1},
      "space": {"auto_unroll_max_step": "discrete:0,64", "unroll_c": "choice:1"},
      "mode": "joint", "later_field": {"a": 1}})");
  OperatorForm form = formFromJson(file);
  EXPECT_EQ(form.space.value("auto_unroll_max_step"), "discrete:0,64");
  form.space["auto_unroll_max_step"].clear();
  nlohmann::json j = formToJson(form);
  EXPECT_EQ(j["space"], nlohmann::json({{"unroll_c", "choice:1"}}));
  EXPECT_EQ(j["mode"], "joint");
  EXPECT_EQ(j["later_field"], file["later_field"]);  // core refuses it, naming it; not dropped
  EXPECT_EQ(j["dtype"], "fp32");
  EXPECT_FALSE(j["shape"].contains("kk"));  // a typo: the user types the real field instead
  EXPECT_EQ(keptFields(form), (QStringList{R"(later_field: {"a":1})", R"(mode: "joint")",
                                           R"(space.unroll_c: "choice:1")"}));

  form.space["auto_unroll_max_step"] = "discrete:0,64";
  form.kind = OpKind::MatMul;
  form.shape = {{"n", "4"}, {"m", "4"}, {"k", "4"}};
  j = formToJson(form);
  EXPECT_EQ(j["space"], nlohmann::json({{"unroll_c", "choice:1"}}));
  EXPECT_EQ(j["shape"], nlohmann::json::parse(R"({"n": 4, "m": 4, "k": 4, "trans_a": false,
                                                   "trans_b": false})"));
}

// The form has a field for every shape field core writes: one it lacked (groups) was dropped
// from every file the editor saved.
TEST(OperatorForm, HasAFieldForEveryShapeFieldCoreWrites) {
  for (const char* name : {"MM1", "BMM2", "C1"}) {
    OperatorSpec op = preset(name);
    if (op.kind == OpKind::Conv2D) {  // core writes groups only when it is not 1
      op.inChannels = op.outChannels = 8;
      op.groups = 2;
    }
    op.epilogue = {{EpilogueKind::Relu, 1}};
    const QStringList fields = shapeFields(op.kind);
    for (const auto& [field, value] : operatorToJson(op)["shape"].items()) {
      if (field == "trans_a" || field == "trans_b") continue;       // the check boxes
      if (field == "batch" && op.kind == OpKind::MatMul) continue;  // always 1: not shown
      EXPECT_TRUE(fields.contains(QString::fromStdString(field))) << name << ": " << field;
    }
  }
  EXPECT_TRUE(shapeFields(OpKind::Conv2D).contains("groups"));
}

TEST(OperatorForm, WorkShowsSignificantDigitsForSmallOperators) {
  EXPECT_EQ(formatWork(2.0 * 64 * 96 * 128), "1.57 MFLOP");
  EXPECT_EQ(formatWork(3.6e6), "3.60 MFLOP");
  EXPECT_EQ(formatWork(141e6), "141 MFLOP");
  EXPECT_EQ(formatWork(0.999e9), "999 MFLOP");
  EXPECT_EQ(formatWork(1.07374e9), "1.07 GFLOP");
  EXPECT_EQ(formatWork(229.32e9), "229.32 GFLOP");
  EXPECT_EQ(formatWork(25600), "25.6 kFLOP");
  EXPECT_EQ(formatWork(2), "2 FLOP");
  EXPECT_EQ(formatWork(0), "0 FLOP");
}

// The walk's small matmul read "0.00 GFLOP per run" in the editor and on the Space tab.
TEST_F(OperatorEditorTest, ASmallOperatorsWorkIsShownInMFLOP) {
  const QString path = m_dir.filePath("mm_small.json");
  writeFile(path,
            R"({"name": "mm_small", "kind": "matmul", "shape": {"n": 64, "m": 96, "k": 128}})");
  open();
  ASSERT_TRUE(panel()->openFile(path));
  const QString title = child<QLabel>("presetTitle")->text();
  EXPECT_TRUE(title.contains("1.57 MFLOP per run")) << title.toStdString();
  panel()->editSelected();
  EXPECT_TRUE(sizeText().contains("1.57 MFLOP per run")) << sizeText().toStdString();
  clickRow("presetTable", 0);  // MM1: GFLOP, as before
  EXPECT_TRUE(child<QLabel>("presetTitle")->text().contains("1.07 GFLOP per run"))
      << child<QLabel>("presetTitle")->text().toStdString();
}

// At 1024x700 a conv2d's Save buttons were below the fold of the scrolled editor, and at
// 1280x800 its error box: the fields scroll now, and the error and the buttons stay in view.
TEST_F(OperatorEditorTest, SaveAndTheErrorStayInViewInASmallWindow) {
  open();
  m_window->resize(1024, 700);
  startNew(OpKind::Conv2D);
  typeInto("shape_out_channels", "0");
  ASSERT_FALSE(errorShown().isEmpty());
  QTest::qWait(50);  // the layout places its widgets on the next pass of the event loop
  ASSERT_EQ(m_window->size(), QSize(1024, 700));
  for (const char* name : {"editorSave", "editorSaveAs", "editorError"}) {
    auto* w = child<QWidget>(name);
    // Nothing of it clipped by a scroll area or the window's edge.
    EXPECT_EQ(w->visibleRegion().boundingRect(), w->rect()) << name;
    const QRect inWindow(w->mapTo(m_window.get(), QPoint()), w->size());
    EXPECT_TRUE(m_window->rect().contains(inWindow)) << name;
  }
  // The field typed in stays visible above the error box.
  auto* field = child<QLineEdit>("shape_out_channels");
  EXPECT_FALSE(field->visibleRegion().isEmpty());
}

}  // namespace
}  // namespace opevo::ui
