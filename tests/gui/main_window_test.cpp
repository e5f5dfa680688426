#include "ui/main_window.h"

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QAction>
#include <QChartView>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QScreen>
#include <QSizeGrip>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <map>

#include "gui_test_support.h"
#include "ops/presets.h"
#include "store/store.h"
#include "ui/charts/network_graph_view.h"
#include "ui/charts/race_results_widget.h"
#include "ui/models/qwalk_model.h"
#include "ui/pages/history_page.h"
#include "ui/pages/networks_page.h"
#include "ui/pages/presets_panel.h"
#include "ui/pages/qwalk_panel.h"
#include "ui/pages/runs_page.h"
#include "ui/pages/topology_page.h"
#include "ui/widgets/dataset_picker.h"
#include "ui/widgets/form_scroll_area.h"
#include "ui/widgets/network_setup_panel.h"
#include "ui/widgets/pair_or_tabs.h"
#include "ui/widgets/race_setup_panel.h"
#include "ui/widgets/space_template_box.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

// The real window, shown on the offscreen platform and driven by mouse and keyboard events.
class MainWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&m_window));
    for (QAbstractItemModel* model : allModels())
      m_testers.push_back(std::make_unique<QAbstractItemModelTester>(
          model, QAbstractItemModelTester::FailureReportingMode::Warning));
  }
  void TearDown() override {
    m_testers.clear();
    EXPECT_TRUE(m_warnings.messages().isEmpty()) << m_warnings.messages().join('\n').toStdString();
  }

  template <typename T>
  T* child(const char* name) {
    T* widget = m_window.findChild<T*>(QString::fromLatin1(name));
    EXPECT_NE(widget, nullptr) << name;
    return widget;
  }
  std::vector<QAbstractItemModel*> allModels() {
    return {child<QTableView>("presetTable")->model(), child<QTableView>("parameterTable")->model(),
            child<QTableView>("distributionTable")->model()};
  }
  QAbstractItemModel* distribution() { return child<QTableView>("distributionTable")->model(); }
  QString errorShown() {
    auto* label = child<QLabel>("errorLabel");
    return label->isVisible() ? label->text() : QString();
  }

  void clickRow(const char* table, int row) {
    auto* view = child<QTableView>(table);
    const QRect rect = view->visualRect(view->model()->index(row, 0));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
  }
  // Select all, then type: what a user does to replace a field's text.
  void typeInto(const char* field, const QString& text) {
    auto* edit = child<QLineEdit>(field);
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(edit, text);
  }
  void chooseParameter(const QString& name) {
    auto* combo = child<QComboBox>("paramCombo");
    const int index = combo->findText(name);
    ASSERT_GE(index, 0) << name.toStdString();
    combo->setCurrentIndex(index);
  }
  // Generous: the sanitizer builds are unoptimised and the 63,700-vertex table takes a while.
  bool settled() {
    return waitUntil([&] { return !m_window.qwalkPanel()->busy(); }, 120000);
  }
  // Probability by vertex, and the sum of the column.
  std::map<QString, double> probabilities(double* total = nullptr) {
    std::map<QString, double> byVertex;
    double sum = 0;
    QAbstractItemModel* m = distribution();
    for (int r = 0; r < m->rowCount(); ++r) {
      const double p =
          m->index(r, QwalkTableModel::ProbabilityColumn).data(QwalkTableModel::RawRole).toDouble();
      byVertex[m->index(r, QwalkTableModel::VertexColumn).data().toString()] = p;
      sum += p;
    }
    if (total) *total = sum;
    return byVertex;
  }
  void openMM1TileK() {
    clickRow("presetTable", 3);  // BMM1 first, so choosing MM1 is a real change
    clickRow("presetTable", 0);
    ASSERT_EQ(m_window.presetsPanel()->selectedPreset(), "MM1");
    chooseParameter("tile_k");
    ASSERT_TRUE(settled());
  }

  test::ModelTestFailures m_warnings;  // before the window: its models' testers report here
  MainWindow m_window;
  std::vector<std::unique_ptr<QAbstractItemModelTester>> m_testers;
};

TEST_F(MainWindowTest, HasTitleVersionBackendAndEveryPreset) {
  // The database the pages use, named in the title.
  EXPECT_EQ(m_window.windowTitle(),
            QStringLiteral("OpEvo Studio — ") + QString::fromStdString(Store::defaultPath()));
  EXPECT_TRUE(child<QLabel>("versionLabel")->text().contains(OPEVO_VERSION));
  EXPECT_TRUE(waitUntil([&] { return !m_window.backendText().contains("probing"); }));
  EXPECT_TRUE(m_window.backendText().startsWith("Best backend here: "));
  QAbstractItemModel* presets = child<QTableView>("presetTable")->model();
  ASSERT_EQ(presets->rowCount(), static_cast<int>(opevo::presetNames().size()));
  EXPECT_EQ(presets->index(0, 0).data().toString(), "MM1");
  EXPECT_EQ(presets->index(0, 1).data().toString(), "MatMul 512x1024 @ 1024x1024");
  EXPECT_EQ(presets->index(7, 0).data().toString(), "C2");
}

// File > Export follows the page on show: Ctrl+E on the Kernels page wrote the Runs page's
// (empty) race chart, named race.png.
TEST_F(MainWindowTest, ExportActsOnThePageOnShowAndIsOffWhereThereIsNoChart) {
  const auto action = [&](const QString& prefix) -> QAction* {
    for (QAction* a : m_window.findChildren<QAction*>())
      if (a->text().remove(QLatin1Char('&')).startsWith(prefix)) return a;
    return nullptr;
  };
  QAction* png = action(QStringLiteral("Export chart as PNG"));
  QAction* csv = action(QStringLiteral("Export trials as CSV"));
  ASSERT_NE(png, nullptr);
  ASSERT_NE(csv, nullptr);
  const auto on = [&](MainWindow::Page page) {
    m_window.pages()->setCurrentIndex(page);
    return std::make_pair(png->isEnabled(), csv->isEnabled());
  };
  EXPECT_EQ(on(MainWindow::SpacesPage), std::make_pair(false, false));
  EXPECT_EQ(on(MainWindow::RunsPageIndex), std::make_pair(true, true));
  EXPECT_EQ(on(MainWindow::KernelsPageIndex), std::make_pair(true, false));
  EXPECT_EQ(on(MainWindow::NetworksPageIndex), std::make_pair(true, false));
  EXPECT_EQ(on(MainWindow::HistoryPageIndex), std::make_pair(true, true));
  EXPECT_EQ(on(MainWindow::ClusterPageIndex), std::make_pair(false, false));
}

TEST_F(MainWindowTest, ALongStatusMessageIsElidedWholeInItsTooltip) {
  // At 1024 pixels the permanent widgets leave the message a few hundred: QStatusBar would cut it
  // mid-word at the edge.
  m_window.resize(1024, 700);
  EXPECT_TRUE(waitUntil([&] { return !m_window.backendText().contains("probing"); }));
  QCoreApplication::processEvents();
  QStatusBar* bar = m_window.statusBar();
  const QString text = QStringLiteral(
      "Exported the best kernel of run 12 (MM1, opevo-m, 26.44 TFLOPS) with its self-checking "
      "host program to /home/someone/kernels/MM1_opevo-m_run12, where make builds and runs it");
  m_window.showStatus(text);
  const QString shown = bar->currentMessage();
  EXPECT_TRUE(shown.endsWith(QChar(0x2026))) << shown.toStdString();
  EXPECT_TRUE(text.startsWith(shown.chopped(1)));
  EXPECT_EQ(bar->toolTip(), text);
  // It fits QStatusBar's message rectangle: from 6 px in to 2 px before the first permanent
  // widget that shows.
  int right = bar->width() - 12;
  for (QWidget* w : bar->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
    if (w->isVisible() && w->x() > 0 && !qobject_cast<QSizeGrip*>(w))
      right = std::min(right, w->x() - 2);
  EXPECT_LE(bar->fontMetrics().horizontalAdvance(shown), right - 6);
  // A short one is shown whole, without a tooltip; the tooltip goes with the message.
  m_window.showStatus(QStringLiteral("Run stored"));
  EXPECT_EQ(bar->currentMessage(), "Run stored");
  EXPECT_TRUE(bar->toolTip().isEmpty());
  m_window.showStatus(text);
  bar->clearMessage();
  EXPECT_TRUE(bar->toolTip().isEmpty());
}

// The room QStatusBar leaves a message: from 6 px in to 2 px before the first permanent widget
// that shows.
int messageRoom(QStatusBar* bar) {
  int right = bar->width() - 12;
  for (QWidget* w : bar->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
    if (w->isVisible() && w->x() > 0 && !qobject_cast<QSizeGrip*>(w))
      right = std::min(right, w->x() - 2);
  return right - 6;
}

// The walk at 1024x700: during a race the device's description, the progress bar and the labels
// left a finish message 40 px ("Race…"), and a message shown before a permanent widget grew was
// cut at its edge without an ellipsis.
TEST_F(MainWindowTest, ARaceLeavesTheStatusMessageItsRoom) {
  m_window.resize(1024, 700);
  // The dataset label shows on Runs and History only.
  m_window.pages()->setCurrentWidget(m_window.runsPage());
  EXPECT_TRUE(waitUntil([&] { return !m_window.backendText().contains("probing"); }));
  QStatusBar* bar = m_window.statusBar();
  QLabel* device = m_window.runsPage()->datasetStatus();
  ASSERT_NE(device, nullptr);
  device->setText(
      QStringLiteral("replay of A100.json.gz (NVIDIA A100-PCIE-40GB, real measurements)"));
  m_window.runsPage()->progressBar()->show();
  QCoreApplication::processEvents();
  const QString finished = QStringLiteral("Race finished: 2000 trials.");
  m_window.showStatus(finished);
  EXPECT_EQ(bar->currentMessage(), finished);
  EXPECT_LE(bar->fontMetrics().horizontalAdvance(bar->currentMessage()), messageRoom(bar));
  auto* version = child<QLabel>("versionLabel");
  EXPECT_FALSE(version->isVisible());  // it gave its room (Help > About says it)
  // The room shrinks while the message shows: it is elided again, with an ellipsis.
  device->setText(device->text() + QStringLiteral(", 2 threads of a much longer CPU name here"));
  ASSERT_TRUE(waitUntil(
      [&] {
        return bar->fontMetrics().horizontalAdvance(bar->currentMessage()) <= messageRoom(bar);
      },
      2000))
      << bar->currentMessage().toStdString() << " in " << messageRoom(bar) << " px";
  if (bar->currentMessage() != finished) {
    EXPECT_TRUE(bar->currentMessage().endsWith(QChar(0x2026)))
        << bar->currentMessage().toStdString();
  }
  EXPECT_EQ(m_window.statusWhole(), finished);
  // Once it goes, the labels come back.
  bar->clearMessage();
  QCoreApplication::processEvents();
  EXPECT_TRUE(version->isVisible());
  EXPECT_TRUE(child<QLabel>("backendLabel")->isVisible());
  m_window.runsPage()->progressBar()->hide();
}

TEST_F(MainWindowTest, OnAnEightHundredBySixHundredScreenNoSetupFormIsCut) {
  // 784x560 is what resizeToFit leaves of an 800x600 screen. A form squeezed by its splitter was
  // laid out wider than what showed of it, and the Runs page cut its labels and buttons off.
  m_window.resize(784, 560);
  // With a dataset loaded: its unit in the target's box once widened the Runs form past this.
  DatasetPicker* picker = m_window.runsPage()->setup()->datasetPicker();
  picker->load(QStringLiteral(OPEVO_DATASETS_DIR "/convolution_milo/A100.json.gz"));
  ASSERT_TRUE(waitUntil([&] { return picker->dataset() != nullptr; }, 60000));
  int checked = 0;
  for (int page = 0; page < m_window.pages()->count(); ++page) {
    m_window.pages()->setCurrentIndex(page);
    QCoreApplication::processEvents();
    for (auto* scroll : m_window.pages()->widget(page)->findChildren<FormScrollArea*>()) {
      ++checked;
      QWidget* form = scroll->widget();
      EXPECT_LE(form->width(), scroll->viewport()->width())
          << scroll->objectName().toStdString() << ": the form is laid out " << form->width()
          << " px wide in " << scroll->viewport()->width() << " px";
      EXPECT_LE(form->minimumSizeHint().width(), scroll->viewport()->width())
          << scroll->objectName().toStdString() << ": the form needs "
          << form->minimumSizeHint().width() << " px";
    }
  }
  EXPECT_EQ(checked, 3);  // Runs, Networks and Kernels
  // And no page needs more: the tabs take their widest page's minimum, and a window wider than
  // the screen puts its right edge out of reach.
  EXPECT_EQ(m_window.width(), 784);
  EXPECT_LE(m_window.minimumSizeHint().width(), 784);
  // The race's chart has the larger part of the Runs page, not what the form left.
  auto* results = m_window.runsPage()->results();
  auto* raceSetup = child<QWidget>("raceSetup");
  EXPECT_GT(results->width(), raceSetup->width());
  // The Networks page's two charts take a tab each, then side by side again on a larger screen.
  m_window.pages()->setCurrentWidget(m_window.networksPage());
  auto* charts = child<PairOrTabs>("networkCharts");
  QCoreApplication::processEvents();
  EXPECT_TRUE(charts->tabbed());
  m_window.resize(1280, 800);
  QCoreApplication::processEvents();
  EXPECT_FALSE(charts->tabbed());
  for (QWidget* chart : charts->findChildren<QChartView*>())
    EXPECT_TRUE(chart->isVisible()) << chart->metaObject()->className();
}

// At 1280x800 the Networks page's budget is in view without scrolling the form (below the
// options it was under the fold), and AlexNet's graph is drawn 1:1: fitted towards the view's
// height, its layer names were 6 px high.
TEST_F(MainWindowTest, TheNetworksPagesTrialsAndLayerNamesReadAt1280x800) {
  m_window.resize(1264, 760);  // what a 1280x800 screen leaves the window (MainWindow::fitToScreen)
  m_window.pages()->setCurrentWidget(m_window.networksPage());
  auto* graph =
      m_window.networksPage()->findChild<NetworkGraphView*>(QStringLiteral("networkGraph"));
  ASSERT_NE(graph, nullptr);
  ASSERT_TRUE(test::waitUntil([&] { return graph->networkLayout() != nullptr; }, 30000));
  // 1:1 once the page's queued fit of its table has settled the columns (a fit to the height
  // left it at 0.65; the order of the page's first layout and its table's fit, at 0.967).
  EXPECT_TRUE(test::waitUntil([&] { return graph->transform().m11() == 1.0; }, 5000))
      << graph->transform().m11() << ": the graph " << graph->sceneRect().width()
      << " px wide in a view of " << graph->maximumViewportSize().width() << " x "
      << graph->maximumViewportSize().height() << " px, the window " << m_window.width() << " x "
      << m_window.height();
  QSpinBox* trials = m_window.networksPage()->setup()->trialsBox();
  auto* scroll = m_window.networksPage()->setup()->findChild<FormScrollArea*>();
  ASSERT_NE(scroll, nullptr);
  const QRect shown = scroll->viewport()->rect();
  const QRect box(trials->mapTo(scroll->viewport(), QPoint(0, 0)), trials->size());
  EXPECT_TRUE(shown.contains(box)) << box.y() << "+" << box.height() << " in " << shown.height();
}

// A page's message goes when the user turns to another page, where it read as that page's (a
// network's error under the Runs page's race); the window's own (a save) and one of the page
// turned to stay.
TEST_F(MainWindowTest, APagesMessageGoesWhenTheUserTurnsToAnotherPage) {
  m_window.pages()->setCurrentWidget(m_window.networksPage());
  emit m_window.networksPage()->statusMessage(QStringLiteral("Network failed: no such file"));
  EXPECT_EQ(m_window.statusShown(), QStringLiteral("Network failed: no such file"));
  m_window.pages()->setCurrentWidget(m_window.runsPage());
  EXPECT_EQ(m_window.statusShown(), QString());
  // Sent while another page shows (a race's end seen from History): it stays on the way back.
  m_window.pages()->setCurrentWidget(m_window.historyPage());
  emit m_window.runsPage()->statusMessage(QStringLiteral("Race finished: 20 trials."));
  m_window.pages()->setCurrentWidget(m_window.runsPage());
  EXPECT_EQ(m_window.statusShown(), QStringLiteral("Race finished: 20 trials."));
  m_window.showStatus(QStringLiteral("Saved /tmp/x.png"));
  m_window.pages()->setCurrentWidget(m_window.historyPage());
  EXPECT_EQ(m_window.statusShown(), QStringLiteral("Saved /tmp/x.png"));
}

// A layout saved on a larger screen (1264x760, restored on a 1024x700 one) is fitted to the
// screen it opens on: past its edge the window's buttons cannot be reached.
TEST_F(MainWindowTest, ARestoredGeometryLargerThanTheScreenIsFittedToIt) {
  const QRect room = m_window.screen()->availableGeometry();
  {
    MainWindow large;
    large.setGeometry(room.x() + 200, room.y() + 100, room.width() + 464, room.height() + 160);
    large.saveSettings();
  }
  MainWindow again;
  again.restoreSettings();
  again.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&again));
  EXPECT_TRUE(room.contains(again.frameGeometry()))
      << again.frameGeometry().width() << "x" << again.frameGeometry().height() << "+"
      << again.frameGeometry().x() << "+" << again.frameGeometry().y() << " on " << room.width()
      << "x" << room.height();
}

TEST_F(MainWindowTest, ChoosingAPresetShowsItsParametersAndSpaceSize) {
  clickRow("presetTable", 3);
  EXPECT_EQ(m_window.presetsPanel()->selectedPreset(), "BMM1");
  QAbstractItemModel* params = child<QTableView>("parameterTable")->model();
  ASSERT_EQ(params->rowCount(), 4);
  EXPECT_EQ(params->index(0, 0).data().toString(), "tile_b");
  EXPECT_EQ(child<QComboBox>("paramCombo")->count(), 5);  // four parameters and "Custom spec"

  clickRow("presetTable", 0);
  ASSERT_EQ(params->rowCount(), 3);
  EXPECT_EQ(params->index(0, 0).data().toString(), "tile_n");
  EXPECT_EQ(params->index(0, 2).data().toString(), "factor:512:4");
  EXPECT_EQ(params->index(0, 3).data().toString(), "220");
  EXPECT_EQ(params->index(1, 3).data().toString(), "286");
  // 220 * 286 * 66 configurations.
  EXPECT_TRUE(child<QLabel>("spaceSizeLabel")->text().contains("4,152,720"))
      << child<QLabel>("spaceSizeLabel")->text().toStdString();
  EXPECT_TRUE(child<QLabel>("presetTitle")->text().contains("MatMul 512x1024 @ 1024x1024"));
}

// The template box above the parameters: each template's space, the walk panel and a
// double-click's Topology page following it, and an operator that cannot take one told why.
TEST_F(MainWindowTest, TheTemplateBoxShowsEachSpaceAndSaysWhyOneCannotApply) {
  auto* box = child<QComboBox>("spaceTemplate");
  auto* items = qobject_cast<QStandardItemModel*>(box->model());
  ASSERT_NE(items, nullptr);
  QAbstractItemModel* params = child<QTableView>("parameterTable")->model();
  auto names = [&] {
    QStringList n;
    for (int r = 0; r < params->rowCount(); ++r) n << params->index(r, 0).data().toString();
    return n;
  };
  clickRow("presetTable", 7);
  ASSERT_EQ(m_window.presetsPanel()->selectedPreset(), "C2");
  EXPECT_EQ(box->currentIndex(), 0);  // the paper's loops first
  EXPECT_TRUE(names().contains("tile_ry"));
  box->setCurrentIndex(3);  // Winograd's template
  EXPECT_EQ(names(), QStringList({"tile_f", "tile_t", "tile_e", "tile_rc"}));
  EXPECT_EQ(params->index(1, 2).data().toString(), "factor:25088:3");  // 512 x 7 x 7 tiles
  EXPECT_TRUE(child<QLabel>("spaceSizeLabel")->text().contains("accumulators per thread"));
  EXPECT_GE(child<QComboBox>("paramCombo")->findText("tile_e"), 0);  // the walk panel follows

  // A double-click opens the parameter on the Topology page, in the same template.
  auto* view = child<QTableView>("parameterTable");
  const QRect rect = view->visualRect(params->index(2, 0));
  QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
  QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, rect.center());
  EXPECT_EQ(m_window.pages()->currentWidget(), m_window.topologyPage());
  EXPECT_EQ(m_window.topologyPage()->templateBox()->current(), SpaceTemplate::Winograd);
  EXPECT_EQ(child<QComboBox>("topologyParam")->currentText(), "tile_e");
  EXPECT_EQ(child<QLineEdit>("topologySpec")->text(), "factor:64:2");

  // C1 (stride 4) has no Winograd space: the item is off, its tooltip says why, and the box
  // falls back to the loops.
  clickRow("presetTable", 6);
  EXPECT_FALSE(items->item(3)->isEnabled());
  EXPECT_TRUE(box->itemData(3, Qt::ToolTipRole).toString().contains("stride 4"))
      << box->itemData(3, Qt::ToolTipRole).toString().toStdString();
  EXPECT_EQ(box->currentIndex(), 0);
  EXPECT_TRUE(names().contains("tile_ry"));
  EXPECT_FALSE(m_window.presetsPanel()->templateBox()->select(SpaceTemplate::Winograd));

  // MatMul's GPU loops add split_k and stages; ALT's joint space adds the tensors' layouts.
  clickRow("presetTable", 0);
  box->setCurrentIndex(1);
  EXPECT_TRUE(names().contains("split_k") && names().contains("stages"))
      << names().join(' ').toStdString();
  box->setCurrentIndex(2);
  EXPECT_TRUE(names().contains("layout.a_k")) << names().join(' ').toStdString();
  EXPECT_FALSE(names().contains("split_k"));
}

TEST_F(MainWindowTest, ClickingAParameterShowsItsWalkAndTheChoiceIsHighlighted) {
  openMM1TileK();
  auto* params = child<QTableView>("parameterTable");
  EXPECT_EQ(params->currentIndex().row(), 2);  // tile_k, chosen in the walk panel
  clickRow("parameterTable", 1);
  EXPECT_EQ(child<QComboBox>("paramCombo")->currentText(), "tile_m");
  EXPECT_EQ(child<QLineEdit>("specEdit")->text(), "factor:1024:4");
  ASSERT_TRUE(settled());
  EXPECT_EQ(distribution()->rowCount(), 286);
  chooseParameter("Custom spec…");
  EXPECT_FALSE(params->currentIndex().isValid());
}

TEST_F(MainWindowTest, StartVertexDefaultsToTheParametersFirstVertex) {
  openMM1TileK();
  EXPECT_EQ(child<QLineEdit>("startEdit")->text(), "1024,1,1");
  chooseParameter("tile_n");
  EXPECT_EQ(child<QLineEdit>("startEdit")->text(), "512,1,1,1");
  ASSERT_TRUE(settled());
  EXPECT_EQ(distribution()->rowCount(), 220);
  EXPECT_EQ(distribution()->index(0, 0).data().toString(), "512,1,1,1");
}

TEST_F(MainWindowTest, ChangingQUpdatesTheDistribution) {
  openMM1TileK();
  ASSERT_EQ(distribution()->rowCount(), 66);
  double total = 0;
  const auto atHalf = probabilities(&total);
  EXPECT_NEAR(total, 1.0, 1e-9);
  // The walk stops at once with probability 1 - q.
  EXPECT_NEAR(atHalf.at("1024,1,1"), 0.5, 0.05);

  typeInto("qEdit", "0.9");
  ASSERT_TRUE(settled());
  ASSERT_EQ(distribution()->rowCount(), 66);
  const auto atNine = probabilities(&total);
  EXPECT_NEAR(total, 1.0, 1e-9);
  EXPECT_LT(atNine.at("1024,1,1"), atHalf.at("1024,1,1") - 0.2);
  EXPECT_EQ(child<QSlider>("qSlider")->value(), 90);
  EXPECT_TRUE(errorShown().isEmpty()) << errorShown().toStdString();

  child<QSlider>("qSlider")->setValue(20);
  EXPECT_EQ(child<QLineEdit>("qEdit")->text(), "0.2");
  ASSERT_TRUE(settled());
  const auto atTwo = probabilities(&total);
  EXPECT_NEAR(total, 1.0, 1e-9);
  EXPECT_GT(atTwo.at("1024,1,1"), atHalf.at("1024,1,1"));
  EXPECT_TRUE(child<QLabel>("totalLabel")->text().contains("66 vertices"));
  EXPECT_TRUE(child<QLabel>("totalLabel")->text().contains("q = 0.2"));
}

TEST_F(MainWindowTest, BadQShowsTheMessageAndKeepsTheText) {
  openMM1TileK();
  for (const QString bad : {"1", "0", "abc", "-0.5"}) {
    typeInto("qEdit", bad);
    EXPECT_TRUE(errorShown().contains("q")) << bad.toStdString();
    EXPECT_TRUE(errorShown().contains(bad)) << errorShown().toStdString();
    EXPECT_EQ(child<QLineEdit>("qEdit")->text(), bad);
    EXPECT_EQ(distribution()->rowCount(), 0);
  }
  typeInto("qEdit", "1");
  EXPECT_TRUE(errorShown().contains("strictly between 0 and 1")) << errorShown().toStdString();
  // Fixing it brings the table back and the message goes.
  typeInto("qEdit", "0.3");
  ASSERT_TRUE(settled());
  EXPECT_TRUE(errorShown().isEmpty()) << errorShown().toStdString();
  EXPECT_EQ(distribution()->rowCount(), 66);
}

TEST_F(MainWindowTest, BadStartVertexShowsTheMessageAndKeepsTheText) {
  openMM1TileK();
  typeInto("startEdit", "3,3,3");
  EXPECT_TRUE(errorShown().contains("3,3,3")) << errorShown().toStdString();
  EXPECT_TRUE(errorShown().contains("not a factorization of 1024")) << errorShown().toStdString();
  EXPECT_EQ(distribution()->rowCount(), 0);
  // Another input changing leaves the bad vertex and its message where they are.
  typeInto("qEdit", "0.4");
  EXPECT_EQ(child<QLineEdit>("startEdit")->text(), "3,3,3");
  EXPECT_TRUE(errorShown().contains("3,3,3"));

  typeInto("startEdit", "32,32,1");
  ASSERT_TRUE(settled());
  EXPECT_TRUE(errorShown().isEmpty()) << errorShown().toStdString();
  ASSERT_EQ(distribution()->rowCount(), 66);
  EXPECT_EQ(distribution()->index(0, 0).data().toString(), "32,32,1");
}

TEST_F(MainWindowTest, CustomSpecIsValidatedAndShown) {
  openMM1TileK();
  chooseParameter("Custom spec…");
  EXPECT_EQ(child<QLineEdit>("specEdit")->text(), "factor:1024:3");  // starts from tile_k
  typeInto("specEdit", "factor:8:3");
  ASSERT_TRUE(settled());
  EXPECT_EQ(child<QLineEdit>("startEdit")->text(), "8,1,1");
  EXPECT_EQ(distribution()->rowCount(), 10);

  typeInto("specEdit", "factor:8");
  EXPECT_TRUE(errorShown().contains("factor:8")) << errorShown().toStdString();
  EXPECT_EQ(child<QLineEdit>("specEdit")->text(), "factor:8");
  EXPECT_EQ(distribution()->rowCount(), 0);

  // A custom spec survives choosing another preset.
  typeInto("specEdit", "perm:4");
  ASSERT_TRUE(settled());
  clickRow("presetTable", 1);
  ASSERT_TRUE(settled());
  EXPECT_EQ(child<QLineEdit>("specEdit")->text(), "perm:4");
  EXPECT_EQ(distribution()->rowCount(), 24);
}

TEST_F(MainWindowTest, HugeParameterShowsANoteInsteadOfATable) {
  openMM1TileK();
  typeInto("specEdit", "perm:10");  // editing the spec makes it a custom parameter
  EXPECT_EQ(child<QComboBox>("paramCombo")->currentText(), "Custom spec…");
  auto* note = child<QLabel>("noteLabel");
  EXPECT_TRUE(note->isVisible());
  EXPECT_TRUE(note->text().contains("3,628,800")) << note->text().toStdString();
  EXPECT_TRUE(errorShown().isEmpty()) << errorShown().toStdString();
  EXPECT_FALSE(m_window.qwalkPanel()->busy());
  EXPECT_EQ(distribution()->rowCount(), 0);
  typeInto("specEdit", "perm:5");
  ASSERT_TRUE(settled());
  EXPECT_FALSE(note->isVisible());
  EXPECT_EQ(distribution()->rowCount(), 120);
}

TEST_F(MainWindowTest, LargeTableIsComputedOffTheGuiThread) {
  openMM1TileK();
  typeInto("qEdit", "0.9");
  ASSERT_TRUE(settled());
  // 2^12 * 3^4 * 5 over 4 factors: C(15,3) * C(7,3) * C(4,3) = 63,700 vertices, under the limit.
  typeInto("specEdit", "factor:1658880:4");
  EXPECT_TRUE(m_window.qwalkPanel()->busy());  // the request returned before the answer
  EXPECT_TRUE(child<QLabel>("totalLabel")->text().contains("Computing"));
  ASSERT_TRUE(settled());
  EXPECT_EQ(distribution()->rowCount(), 63700);
  double total = 0;
  probabilities(&total);
  EXPECT_NEAR(total, 1.0, 1e-9);
  EXPECT_TRUE(child<QLabel>("totalLabel")->text().contains("63,700 vertices"));
}

TEST_F(MainWindowTest, ParameterChoiceSurvivesAPresetWithTheSameName) {
  openMM1TileK();
  clickRow("presetTable", 1);  // MM2: k is 1024 as well
  EXPECT_EQ(child<QComboBox>("paramCombo")->currentText(), "tile_k");
  ASSERT_TRUE(settled());
  EXPECT_EQ(distribution()->rowCount(), 66);
  clickRow("presetTable", 6);  // C1 has no tile_k: its first parameter
  EXPECT_EQ(child<QComboBox>("paramCombo")->currentText(), "tile_f");
  ASSERT_TRUE(settled());
  EXPECT_GT(distribution()->rowCount(), 0);
}

}  // namespace
}  // namespace opevo::ui
