#include "ui/pages/networks_page.h"

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFontMetrics>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTemporaryDir>
#include <QValueAxis>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cli_beside.h"
#include "gui_test_support.h"
#include "probe/backend_probe.h"
#include "store/run_lock.h"
#include "store/store.h"
#include "tiny_network.h"
#include "ui/charts/legend_rows.h"
#include "ui/charts/network_curve_chart.h"
#include "ui/charts/network_graph_view.h"
#include "ui/charts/task_trials_chart.h"
#include "ui/controller/network_controller.h"
#include "ui/jobs/network_layout.h"
#include "ui/models/network_task_model.h"
#include "ui/widgets/network_setup_panel.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

using test::kTinyNetwork;

class NetworksPageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    m_db = m_dir.filePath(QStringLiteral("opevo.db"));
    m_file = m_dir.filePath(QStringLiteral("tiny.json"));
    QFile f(m_file);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(kTinyNetwork);
    f.close();
    m_page.setStorePath(m_db);
    m_page.resize(1200, 800);
    m_page.show();
    m_tester = std::make_unique<QAbstractItemModelTester>(
        m_page.taskModel(), QAbstractItemModelTester::FailureReportingMode::Warning);
  }
  void TearDown() override {
    m_page.stop();
    waitUntil([&] { return !m_page.controller()->busy(); }, 60000);
    m_tester.reset();
    EXPECT_TRUE(m_warnings.messages().isEmpty()) << m_warnings.messages().join('\n').toStdString();
  }
  NetworkSetupPanel* setup() { return m_page.setup(); }
  // The picture of the network now chosen is on show.
  bool pictureShown(std::size_t nodes) {
    return waitUntil([&] {
      return !m_page.loadingPicture() && m_page.graphView()->networkLayout() &&
             m_page.graphView()->networkLayout()->nodes.size() == nodes;
    });
  }
  void chooseTiny(const QStringList& schedulers, int trials) {
    setup()->selectNetwork(m_file);
    ASSERT_TRUE(pictureShown(6));  // the input and five layers
    ASSERT_TRUE(setup()->setAlgorithms({QStringLiteral("opevo-m")}));
    ASSERT_TRUE(setup()->setSchedulers(schedulers));
    setup()->setTrials(trials);
  }
  bool raceEnded(int timeoutMs = 240000) {
    return waitUntil([&] { return !m_page.controller()->busy(); }, timeoutMs);
  }
  std::size_t nodeIndex(const QString& name) {
    const auto& nodes = m_page.graphView()->networkLayout()->nodes;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].name == name) return i;
    return nodes.size();
  }

  test::ModelTestFailures m_warnings;
  QTemporaryDir m_dir;
  QString m_db, m_file;
  NetworksPage m_page;
  std::unique_ptr<QAbstractItemModelTester> m_tester;
};

// The latency estimate sums every task: until each has a working kernel the chart is empty, and
// its title says how many have one, not a chart that looks stalled.
TEST(NetworkCurveChart, SaysWhyItIsEmptyUntilEveryTaskHasAKernel) {
  NetworkCurveChart chart;
  // Before any race: a note over the bare axes, which would otherwise read 0 to 1 ms.
  EXPECT_EQ(chart.emptyNote(), QStringLiteral("No latency yet"));
  NetworkSnapshot s;
  ContenderState c;
  c.label = QStringLiteral("opevo-m / gradient / joint");
  c.budget = 16;
  c.trials = 4;
  c.taskBestMs = {0.5, std::nan(""), std::nan("")};
  c.curveTrials = {4};
  c.curveEstimateMs = {std::nan("")};
  s.contenders.push_back(c);
  chart.setSnapshot(s);
  EXPECT_EQ(chart.curvePointCount(0), 0);
  EXPECT_EQ(chart.emptyNote(), QStringLiteral("No latency yet"));
  EXPECT_TRUE(chart.chart()->title().contains(QStringLiteral("1 of 3")))
      << chart.chart()->title().toStdString();
  s.contenders[0].taskBestMs = {0.5, 0.2, 0.1};
  s.contenders[0].curveTrials = {4, 8};
  s.contenders[0].curveEstimateMs = {std::nan(""), 0.8};
  chart.setSnapshot(s);
  EXPECT_EQ(chart.curvePointCount(0), 1);
  EXPECT_EQ(chart.emptyNote(), QString());
  EXPECT_EQ(chart.chart()->title(),
            QStringLiteral("Network latency against trials (gradient / joint)"));
  chart.clear();
  EXPECT_EQ(chart.emptyNote(), QStringLiteral("No latency yet"));
}

// Where the untuned or mixed network ran faster than the tuned one and was kept, the chart marks
// its time too (a square beside the tuned network's circle): it marked the tuned time alone while
// the finished line named another network. None where the tuned one was kept.
TEST(NetworkCurveChart, MarksTheKeptNetworkWhereItIsNotTheTunedOne) {
  NetworkCurveChart chart;
  NetworkSnapshot s;
  for (int i = 0; i < 2; ++i) {
    ContenderState c;
    c.label = QStringLiteral("%1 / gradient / joint").arg(i == 0 ? "opevo-m" : "autotvm");
    c.budget = c.trials = 16;
    c.taskBestMs = {0.5, 0.2};
    c.curveTrials = {8, 16};
    c.curveEstimateMs = {1.2, 0.9};
    c.endToEndMs = 10.0;
    c.verified = c.checked = true;
    net::StoredEndToEnd untuned, mixed;
    untuned.ms = 9.5;
    mixed.ms = 8.0;
    untuned.verified = mixed.verified = true;
    c.comparison.untuned = untuned;
    c.comparison.mixed = mixed;
    c.comparison.kept =
        net::KeptNetwork{i == 0 ? net::NetworkChoice::Mixed : net::NetworkChoice::Tuned, {}};
    s.contenders.push_back(c);
  }
  chart.setSnapshot(s);
  const std::optional<QPointF> kept = chart.keptMarker(0);
  ASSERT_TRUE(kept);
  EXPECT_EQ(*kept, QPointF(16, 8.0));
  EXPECT_FALSE(chart.keptMarker(1)) << "the tuned network was kept: its circle says it";
  s.contenders[0].comparison.kept->choice = net::NetworkChoice::Untuned;
  chart.setSnapshot(s);
  EXPECT_EQ(chart.keptMarker(0), QPointF(16, 9.5));
  // The axis reaches the kept time where it is the lowest of all (a log axis here: 0.05 against
  // estimates of 1-1.2 and libtorch's 11 ms).
  s.contenders[0].comparison.untuned->ms = 0.05;
  s.referenceMs = 11.0;
  chart.setSnapshot(s);
  ASSERT_TRUE(chart.logScale());
  EXPECT_LE(chart.yAxis()->property("min").toDouble(), 0.05);
}

// At 1024x700 the chart beside the trials chart is about 270 px wide: its title was cut to
// "Network latency against trials (gradi". A shorter one fits, keeping what the legend omits.
TEST(NetworkCurveChart, ItsTitleFitsANarrowChart) {
  NetworkCurveChart chart;
  NetworkSnapshot s;
  ContenderState c;
  c.label = QStringLiteral("opevo-m / gradient / joint");
  c.budget = 16;
  c.trials = 8;
  c.taskBestMs = {0.5, 0.2};
  c.curveTrials = {4, 8};
  c.curveEstimateMs = {std::nan(""), 0.8};
  s.contenders.push_back(c);
  chart.resize(270, 240);
  chart.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
  chart.setSnapshot(s);
  const QString title = chart.chart()->title();
  EXPECT_TRUE(title.contains(QStringLiteral("gradient / joint"))) << title.toStdString();
  EXPECT_LE(QFontMetrics(chart.chart()->titleFont()).horizontalAdvance(title), chart.width() - 16)
      << title.toStdString();
  chart.resize(700, 300);
  QTest::qWait(20);
  EXPECT_EQ(chart.chart()->title(),
            QStringLiteral("Network latency against trials (gradient / joint)"));
}

// Four contenders and libtorch on a chart 310 pixels wide (1024x700) read "ope… aut… ope… aut…
// libt…" in one row below the plot; moved right of it, six contenders' entries left the plot 110
// pixels of the chart's 320, still cut ("random / joint + winogr"). They go in rows below the
// plot, whole, and the plot keeps the chart's width; on a wide chart they take one row.
TEST(NetworkCurveChart, ALegendTooWideForOneRowWrapsBelowThePlotWhole) {
  NetworkCurveChart chart;
  NetworkSnapshot s;
  QStringList labels;
  for (const char* label :
       {"random / gradient / loop", "opevo-m / gradient / loop", "random / gradient / joint",
        "opevo-m / gradient / joint", "random / gradient / joint + winograd",
        "opevo-m / gradient / joint + winograd"}) {
    ContenderState c;
    c.label = QString::fromLatin1(label);
    c.budget = 16;
    c.trials = 8;
    c.taskBestMs = {0.5, 0.2};
    c.curveTrials = {8};
    c.curveEstimateMs = {0.8};
    s.contenders.push_back(c);
    labels << c.label;
  }
  QStringList names = contenderNames(labels).legend;
  s.referenceMs = 1.5;
  s.referenceLegend = QStringLiteral("libtorch");
  names << QStringLiteral("libtorch 1.5 ms");
  chart.resize(320, 300);
  chart.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
  chart.setSnapshot(s);
  ASSERT_TRUE(waitUntil([&] { return chart.chart()->plotArea().height() > 0; }));
  QTest::qWait(20);
  const LegendRows* legend = chart.legend();
  EXPECT_EQ(legend->texts(), names);  // every entry whole, none elided
  EXPECT_GE(legend->rowCount(), 3);
  const QRectF plot = chart.chart()->plotArea();
  EXPECT_GE(plot.width(), 0.7 * chart.width()) << plot.width();
  // Below the plot and its axis, inside the chart.
  EXPECT_GT(legend->area().top(), plot.bottom() + chart.fontMetrics().height());
  EXPECT_LE(legend->area().bottom(), chart.chart()->size().height());
  EXPECT_GE(plot.height(), 60) << "the rows leave the plot a height";
  chart.resize(1200, 300);
  QTest::qWait(20);
  EXPECT_EQ(legend->rowCount(), 1);
  EXPECT_EQ(legend->texts(), names);
}

// The title as Qt Charts draws it, cut where it found no room ("..."): the chart's title item.
QString drawnTitle(const NetworkCurveChart& chart) {
  for (const QGraphicsItem* item : chart.scene()->items())
    if (const auto* text = dynamic_cast<const QGraphicsTextItem*>(item))
      if (text->parentItem() == chart.chart() && !text->toPlainText().isEmpty() &&
          chart.chart()->title().startsWith(text->toPlainText().left(4)))
        return text->toPlainText();
  return {};
}

// At 1024x700 the walk saw "Latency, once each task has a kernel: 1...": the title was measured
// against the whole view, and Qt Charts cut it. A shorter form is drawn whole.
TEST(NetworkCurveChart, ItsTitleIsNeverCutWhileTasksLackAKernel) {
  NetworkCurveChart chart;
  NetworkSnapshot s;
  ContenderState c;
  c.label = QStringLiteral("opevo-m / gradient / joint");
  c.budget = 64;
  c.trials = 40;
  c.taskBestMs.assign(16, 1.0);
  c.taskBestMs[15] = std::nan("");
  s.contenders.push_back(c);
  for (const int width : {300, 260, 220}) {
    chart.resize(width, 240);
    chart.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
    chart.setSnapshot(s);
    QTest::qWait(20);
    const QString drawn = drawnTitle(chart);
    EXPECT_FALSE(drawn.isEmpty());
    EXPECT_FALSE(drawn.contains(QStringLiteral("..."))) << width << ": " << drawn.toStdString();
    EXPECT_TRUE(drawn.contains(QStringLiteral("15 of 16"))) << width << ": " << drawn.toStdString();
  }
}

// The walk: a 200-trial race's latency axis ran to 400 while the trials chart beside it ran to
// 200; its ticks read 100, 60, 20, 0; and a tuned 0.01 ms lay flat on zero under libtorch's
// 11 ms.
TEST(NetworkCurveChart, ItsAxesFollowTheBudgetWithNiceTicksAndALogScaleAcrossDecades) {
  NetworkCurveChart chart;
  NetworkSnapshot s;
  ContenderState c;
  c.label = QStringLiteral("opevo-m / gradient / joint");
  c.budget = 200;
  c.trials = 80;
  c.taskBestMs = {8.0, 0.5};
  c.curveTrials = {8, 80};
  c.curveEstimateMs = {9.0, 8.5};
  s.contenders.push_back(c);
  s.referenceMs = 85.7;
  s.referenceLegend = QStringLiteral("libtorch");
  chart.setSnapshot(s);
  EXPECT_EQ(chart.trialsAxis()->max(), 200);
  EXPECT_TRUE(chart.hasReferenceLine());
  ASSERT_FALSE(chart.logScale()) << "8.5 to 85.7 ms: one decade";
  const auto* y = qobject_cast<const QValueAxis*>(chart.yAxis());
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->tickInterval(), 50);
  EXPECT_EQ(y->max(), 100);
  // A small network: 0.01 ms tuned against libtorch's 11 ms.
  s.contenders[0].curveEstimateMs = {0.02, 0.01};
  s.referenceMs = 11.16;
  chart.setSnapshot(s);
  ASSERT_TRUE(chart.logScale());
  EXPECT_LE(chart.yAxis()->property("min").toDouble(), 0.01);
  EXPECT_GE(chart.yAxis()->property("max").toDouble(), 11.16);
  EXPECT_EQ(chart.curvePointCount(0), 2);
  EXPECT_TRUE(chart.hasReferenceLine());
  // Cleared for another network: linear again, nothing of the race kept.
  chart.clear();
  EXPECT_FALSE(chart.logScale());
  EXPECT_EQ(chart.curvePointCount(0), 0);
}

// The title says once what the contenders share; each legend entry what tells it apart.
TEST(NetworkCurveChart, TheLegendKeepsWhatTellsTheContendersApart) {
  const ContenderNames two = contenderNames(
      {QStringLiteral("opevo-m / gradient / joint"), QStringLiteral("autotvm / gradient / joint")});
  EXPECT_EQ(two.shared, QStringLiteral("gradient / joint"));
  EXPECT_EQ(two.legend, QStringList({"opevo-m", "autotvm"}));
  const ContenderNames schedulers =
      contenderNames({QStringLiteral("opevo-m / gradient / loop"),
                      QStringLiteral("opevo-m / round-robin / loop + winograd")});
  EXPECT_EQ(schedulers.shared, QStringLiteral("opevo-m"));
  EXPECT_EQ(schedulers.legend, QStringList({"gradient / loop", "round-robin / loop + winograd"}));
  const ContenderNames one = contenderNames({QStringLiteral("opevo-m / gradient / joint")});
  EXPECT_EQ(one.shared, QStringLiteral("gradient / joint"));
  EXPECT_EQ(one.legend, QStringList({"opevo-m"}));
  EXPECT_TRUE(contenderNames({}).legend.isEmpty());
}

// On a short chart (an 800x600 screen) the task list would be cut: the legend shows only where
// every task fits, and hovering a line names its task either way.
TEST(TaskTrialsChart, ItsLegendShowsOnlyWhereEveryTaskFits) {
  std::vector<NetworkTaskInfo> tasks;
  for (const char* n : {"conv1", "conv2", "conv3", "conv4", "conv5", "fc6", "fc7", "fc8"})
    tasks.push_back({QString::fromLatin1(n), QStringLiteral("conv2d"), QString(), 1, 1, {}});
  ContenderState c;
  c.budget = c.trials = 40;
  for (int u = 0; u < 10; ++u) c.unitTask.push_back(u % 8), c.unitTrials.push_back(4);
  TaskTrialsChart chart;
  chart.resize(400, 200);
  chart.show();  // a hidden widget gets its resize events only once shown
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
  chart.setContender(tasks, nullptr);  // before any unit: a note over the bare axes
  EXPECT_EQ(chart.emptyNote(), QStringLiteral("No trials yet"));
  chart.setContender(tasks, &c);
  EXPECT_EQ(chart.emptyNote(), QString());
  EXPECT_EQ(chart.lineCount(), 8);
  EXPECT_FALSE(chart.chart()->legend()->isVisible());
  chart.resize(600, 360);
  EXPECT_TRUE(chart.chart()->legend()->isVisible());
  chart.setContender({tasks.begin(), tasks.begin() + 3}, &c);  // three fit a short chart
  chart.resize(400, 200);
  EXPECT_TRUE(chart.chart()->legend()->isVisible());
}

TEST_F(NetworksPageTest, ShowsAPresetsLayersAndTasksBeforeAnyRace) {
  // AlexNet: its input and 27 layers drawn, its 8 tasks listed with their weights and work.
  ASSERT_TRUE(pictureShown(28));
  NetworkTaskModel* tasks = m_page.taskModel();
  ASSERT_EQ(tasks->rowCount(), 8);
  EXPECT_EQ(tasks->index(0, NetworkTaskModel::TaskColumn).data().toString(), "conv1");
  EXPECT_EQ(tasks->index(0, NetworkTaskModel::ShapeColumn).data().toString(), "1x64x55x55");
  EXPECT_EQ(tasks->index(0, NetworkTaskModel::TrialsColumn).data().toInt(), 0);
  // Every layer of a task is in its fused kernel; pools run fixed kernels; nothing is coloured.
  const auto& nodes = m_page.graphView()->networkLayout()->nodes;
  EXPECT_EQ(nodes[nodeIndex("conv1_relu")].task, 0);
  EXPECT_EQ(nodes[nodeIndex("conv1_relu")].step, "conv1");
  EXPECT_EQ(nodes[nodeIndex("pool1")].task, -1);
  EXPECT_EQ(nodes[nodeIndex("pool1")].step, "pool1");
  EXPECT_EQ(m_page.graphView()->colorOf(nodeIndex("conv1")), QColor(Qt::white));

  // A param that the network does not take is refused by name, and the picture stays.
  setup()->paramsEdit()->setText(QStringLiteral("batch=2, heads=3"));
  emit setup()->paramsEdit()->editingFinished();
  ASSERT_TRUE(waitUntil([&] { return m_page.statusLabel()->text().contains("heads"); }))
      << m_page.statusLabel()->text().toStdString();
  EXPECT_EQ(m_page.graphView()->networkLayout()->nodes.size(), 28u);
  // Start waits for a network that reads, and comes back with one.
  EXPECT_FALSE(setup()->startButton()->isEnabled());
  setup()->paramsEdit()->setText(QStringLiteral("batch=2"));
  emit setup()->paramsEdit()->editingFinished();
  EXPECT_TRUE(waitUntil([&] { return setup()->startButton()->isEnabled(); }));
  // The same tasks at batch 2: the table's shapes and work follow (they kept batch 1's).
  EXPECT_TRUE(waitUntil([&] {
    return tasks->index(0, NetworkTaskModel::ShapeColumn).data().toString() == "2x64x55x55";
  })) << tasks->index(0, NetworkTaskModel::ShapeColumn).data().toString().toStdString();
  EXPECT_EQ(tasks->index(7, NetworkTaskModel::ShapeColumn).data().toString(), "2x1000");
  setup()->paramsEdit()->setText(QStringLiteral("batch=x"));
  QString error;
  EXPECT_FALSE(setup()->spec(&error));
  // Said in the window's terms, not the CLI's "--param 'batch=x'".
  EXPECT_EQ(error, QStringLiteral("Params: 'batch=x': the value must be an integer"));
  setup()->paramsEdit()->clear();
  emit setup()->paramsEdit()->editingFinished();
  EXPECT_TRUE(waitUntil([&] {
    return tasks->index(0, NetworkTaskModel::ShapeColumn).data().toString() == "1x64x55x55";
  }));

  // A new race tunes layouts and loops on the CPU; elsewhere only loops are offered.
  ASSERT_TRUE(setup()->jointModeBox()->isChecked());
  std::optional<NetworkSpec> spec = setup()->spec(&error);
  ASSERT_TRUE(spec) << error.toStdString();
  EXPECT_EQ(spec->modes, std::vector<layout::TuningMode>{layout::TuningMode::Joint});
  EXPECT_TRUE(spec->coldWeights) << "kernels are timed as the chain reads their weights";
  EXPECT_TRUE(spec->coldActivations) << "and as it finds their activations";
  // libtorch's reference runs eager unless asked to run as a deployed model does.
  EXPECT_EQ(spec->torchForm, net::TorchForm::Eager);
  setup()->frozenTorchBox()->setChecked(true);
  spec = setup()->spec(&error);
  ASSERT_TRUE(spec) << error.toStdString();
  EXPECT_EQ(spec->torchForm, net::TorchForm::Frozen);
  setup()->frozenTorchBox()->setChecked(false);
  QComboBox* backend = setup()->backendBox();
  const int cuda = backend->findText(QStringLiteral("cuda"));
  ASSERT_GE(cuda, 0);
  backend->setCurrentIndex(cuda);
  EXPECT_FALSE(setup()->jointModeBox()->isEnabled());
  EXPECT_FALSE(setup()->coldWeightsBox()->isEnabled());  // the GPUs have no such choice
  EXPECT_FALSE(setup()->coldActivationsBox()->isEnabled());
  EXPECT_FALSE(setup()->frozenTorchBox()->isEnabled());  // libtorch runs on the CPU only
  spec = setup()->spec(&error);
  ASSERT_TRUE(spec) << error.toStdString();
  EXPECT_EQ(spec->modes, std::vector<layout::TuningMode>{layout::TuningMode::Loop});
  // Winograd's template is one more contender, on a GPU and on the CPU.
  EXPECT_FALSE(spec->winograd);
  ASSERT_TRUE(setup()->winogradModeBox()->isEnabled());
  EXPECT_TRUE(setup()->setModes({QStringLiteral("loop"), QStringLiteral("winograd")}));
  spec = setup()->spec(&error);
  ASSERT_TRUE(spec) << error.toStdString();
  EXPECT_TRUE(spec->winograd);
  EXPECT_EQ(spec->modes, std::vector<layout::TuningMode>{layout::TuningMode::Loop});
  backend->setCurrentIndex(backend->findText(QStringLiteral("cpu")));
  EXPECT_TRUE(setup()->winogradModeBox()->isEnabled());
  EXPECT_TRUE(setup()->winogradModeBox()->isChecked());
  spec = setup()->spec(&error);
  ASSERT_TRUE(spec) << error.toStdString();
  EXPECT_TRUE(spec->winograd);
  // The matrix-vector template is every contender's dense layers', asked for on the CPU (the
  // GPUs' default: NetworkMatVecDefault).
  EXPECT_EQ(spec->matvec, false);
  setup()->matvecBox()->setChecked(true);
  spec = setup()->spec(&error);
  ASSERT_TRUE(spec) << error.toStdString();
  EXPECT_EQ(spec->matvec, true);
  setup()->matvecBox()->setChecked(false);
  EXPECT_TRUE(setup()->jointModeBox()->isEnabled());
  EXPECT_TRUE(setup()->setModes({QStringLiteral("loop"), QStringLiteral("joint")}));
  EXPECT_FALSE(setup()->setModes({QStringLiteral("layouts")}));
  // ALT's order is one of the schedulers a race can hold.
  ASSERT_TRUE(setup()->setSchedulers({QStringLiteral("gradient"), QStringLiteral("topological")}));
  EXPECT_TRUE(setup()->topologicalBox()->isChecked());
  spec = setup()->spec(&error);
  ASSERT_TRUE(spec) << error.toStdString();
  EXPECT_EQ(spec->schedulers, (std::vector<net::SchedulerKind>{net::SchedulerKind::Gradient,
                                                               net::SchedulerKind::Topological}));
  EXPECT_FALSE(setup()->setSchedulers({QStringLiteral("alphabetical")}));
  setup()->loopModeBox()->setChecked(false);
  setup()->jointModeBox()->setChecked(false);
  EXPECT_FALSE(setup()->spec(&error));
  EXPECT_TRUE(error.contains("way to tune")) << error.toStdString();
}

// The walk: AlexNet (8 tasks) at 16 trials in units of 4 tuned 4 tasks, the latency chart never
// drew, and the race ended "finished" without a word. The page says so before Start.
TEST_F(NetworksPageTest, WarnsWhenTrialsCannotReachEveryTask) {
  ASSERT_TRUE(pictureShown(28));
  ASSERT_EQ(m_page.taskModel()->rowCount(), 8);
  setup()->unitBox()->setValue(4);
  setup()->setTrials(16);
  EXPECT_TRUE(m_page.budgetNote()->isVisible());
  const QString note = m_page.budgetNote()->text();
  EXPECT_TRUE(note.contains(QStringLiteral("4 of the 8 tasks"))) << note.toStdString();
  EXPECT_TRUE(note.contains(QStringLiteral("4 tasks will get no trial"))) << note.toStdString();
  EXPECT_TRUE(note.contains(QStringLiteral("at least 32"))) << note.toStdString();
  setup()->setTrials(29);  // 8 units: the last task's one is cut short, but it has trials
  EXPECT_FALSE(m_page.budgetNote()->isVisible()) << m_page.budgetNote()->text().toStdString();
  setup()->unitBox()->setValue(8);
  EXPECT_TRUE(m_page.budgetNote()->text().contains(QStringLiteral("4 tasks will get no trial")))
      << m_page.budgetNote()->text().toStdString();
  setup()->unitBox()->setValue(4);
  // Topological gives each task its share, at least one trial: 16 trials reach all 8 tasks (the
  // note said they did not). Raced beside gradient, the note is gradient's.
  setup()->setTrials(16);
  ASSERT_TRUE(setup()->setSchedulers({QStringLiteral("topological")}));
  EXPECT_FALSE(m_page.budgetNote()->isVisible()) << m_page.budgetNote()->text().toStdString();
  ASSERT_TRUE(setup()->setSchedulers({QStringLiteral("gradient"), QStringLiteral("topological")}));
  EXPECT_TRUE(m_page.budgetNote()->text().contains(QStringLiteral("4 of the 8 tasks")))
      << m_page.budgetNote()->text().toStdString();
  setup()->setTrials(60);
  EXPECT_FALSE(m_page.budgetNote()->isVisible());
  // A network of fewer tasks needs fewer trials: the note follows the network.
  chooseTiny({QStringLiteral("gradient")}, 8);
  EXPECT_FALSE(m_page.budgetNote()->isVisible()) << m_page.budgetNote()->text().toStdString();
}

// Whether the task table shows its last column, Share, whole, with no horizontal scroll bar
// (waited for: the table settles its widths after the page's layout).
::testing::AssertionResult everyColumnShowsIn(QTableView* table, const QWidget* graph) {
  const bool shows = waitUntil(
      [&] {
        const QHeaderView* header = table->horizontalHeader();
        const int share = NetworkTaskModel::ShareColumn;
        return header->sectionViewportPosition(share) + header->sectionSizeHint(share) <=
                   table->viewport()->width() &&
               !table->horizontalScrollBar()->isVisible();
      },
      2000);
  if (shows) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "table " << table->width() << " px wide, graph " << graph->width();
}

// At 1024x700 the tasks' table got less room than its eight columns need and Share went behind
// a horizontal scroll bar: the graph beside it gives up the difference.
TEST_F(NetworksPageTest, TheTaskTableShowsEveryColumnInASmallWindow) {
  ASSERT_TRUE(pictureShown(28));
  m_page.resize(1000, 640);  // what a 1024x700 window leaves the page
  ASSERT_TRUE(everyColumnShowsIn(m_page.taskTable(), m_page.graphView()));
  EXPECT_GE(m_page.graphView()->width(), 120);
}

// AlexNet's names read at 0.967 now and then: the splitter's earlier sizes (the order of the
// page's first layout and its table's fit) left the graph a scroll bar short of 1:1 while the
// table had more than its columns need. The fit gives the graph back what the table does not
// need, whatever the sizes before it.
TEST_F(NetworksPageTest, TheGraphTakesBackFromTheTableWhatItLacksForOneToOne) {
  ASSERT_TRUE(pictureShown(28));
  auto* top = m_page.findChild<QSplitter*>(QStringLiteral("networkTopSplitter"));
  ASSERT_NE(top, nullptr);
  ASSERT_TRUE(waitUntil([&] { return m_page.graphView()->transform().m11() == 1.0; }))
      << m_page.graphView()->transform().m11();
  const int natural = m_page.graphView()->naturalWidth();
  const QList<int> sizes = top->sizes();
  const int total = sizes[0] + sizes[1];
  ASSERT_GT(total - natural, 500) << "room for the table's columns beside a 1:1 graph";
  top->setSizes({natural - 12, total - natural + 12});
  ASSERT_LT(m_page.graphView()->transform().m11(), 1.0);
  m_page.resize(m_page.width() + 1, m_page.height());  // a fit, as any resize brings
  EXPECT_TRUE(waitUntil([&] { return m_page.graphView()->transform().m11() == 1.0; }))
      << m_page.graphView()->transform().m11() << " with the graph " << top->sizes()[0] << " px of "
      << natural;
  EXPECT_TRUE(everyColumnShowsIn(m_page.taskTable(), m_page.graphView()));
}

// The give-back comes with a network loaded or the page resized, not with a race's updates: the
// user's drag of the splitter (the graph narrower than 1:1) stays while a race runs.
TEST_F(NetworksPageTest, ARacesUpdatesLeaveTheUsersSplitterAsItIs) {
  chooseTiny({QStringLiteral("gradient")}, 8);
  auto* top = m_page.findChild<QSplitter*>(QStringLiteral("networkTopSplitter"));
  ASSERT_NE(top, nullptr);
  ASSERT_TRUE(waitUntil([&] { return m_page.graphView()->transform().m11() == 1.0; }));
  const int natural = m_page.graphView()->naturalWidth();
  const int total = top->sizes()[0] + top->sizes()[1];
  top->setSizes({natural - 12, total - natural + 12});
  const QList<int> dragged = top->sizes();
  int snapshots = 0;
  QObject::connect(m_page.controller(), &NetworkController::updated, &m_page, [&] { ++snapshots; });
  m_page.start();
  ASSERT_TRUE(raceEnded());
  EXPECT_GT(snapshots, 0);
  EXPECT_EQ(top->sizes(), dragged);
}

// The walk: a network file that did not read left its name in the Network box, above AlexNet's
// graph and table, as if it had loaded. The box names the network on show again, the file
// leaves the list, and the message says what failed.
TEST_F(NetworksPageTest, AFileThatDoesNotReadIsNotLeftChosen) {
  ASSERT_TRUE(pictureShown(28));
  const QString bad = m_dir.filePath(QStringLiteral("bad.json"));
  QFile f(bad);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(R"({"name": "bad", "inputs": [{"name": "x", "shape": [1, 4, 8, 8]}],
             "layers": [{"name": "p", "op": "max_pool", "input": "x", "kernel": 64}]})");
  f.close();
  setup()->selectNetwork(bad);
  ASSERT_TRUE(waitUntil([&] {
    return !m_page.loadingPicture() && m_page.statusLabel()->text().contains("still showing");
  })) << m_page.statusLabel()->text().toStdString();
  EXPECT_TRUE(m_page.statusLabel()->text().contains(QStringLiteral("alexnet")))
      << m_page.statusLabel()->text().toStdString();
  EXPECT_EQ(setup()->networkBox()->currentText(), QStringLiteral("alexnet"));
  EXPECT_EQ(setup()->networkBox()->findText(QStringLiteral("bad.json")), -1);
  EXPECT_EQ(setup()->network(), QStringLiteral("alexnet"));
  EXPECT_TRUE(setup()->startButton()->isEnabled()) << "Start races AlexNet, on show";
  EXPECT_EQ(m_page.graphView()->networkLayout()->nodes.size(), 28u);
  // A file that is not there at all: the same.
  setup()->selectNetwork(m_dir.filePath(QStringLiteral("missing.json")));
  ASSERT_TRUE(waitUntil([&] { return setup()->networkBox()->currentText() == "alexnet"; }));
  EXPECT_EQ(setup()->networkBox()->findText(QStringLiteral("missing.json")), -1);
}

// At 1024x700 Start and Stop were below the fold, and ResNet-18's long task names left Best and
// Share cut off.
// File > Export saves both charts side by side, and in a narrow window, where the page tabs them,
// the chart on show alone: it saved the tab widget, tab bar included.
TEST_F(NetworksPageTest, ExportSavesTheChartsOnShowWithoutATabBar) {
  m_page.resize(1600, 800);
  QApplication::processEvents();
  QWidget* wide = m_page.chartsOnShow();
  EXPECT_TRUE(wide->isAncestorOf(m_page.curveChart()));
  EXPECT_TRUE(wide->isAncestorOf(m_page.trialsChart()));
  m_page.resize(560, 700);
  ASSERT_TRUE(waitUntil([&] { return m_page.chartsOnShow() != wide; }));
  EXPECT_EQ(m_page.chartsOnShow(), static_cast<QWidget*>(m_page.curveChart()));
}

TEST_F(NetworksPageTest, StartAndEveryColumnShowIn1024x700) {
  m_page.resize(1000, 640);  // what a 1024x700 window leaves the page
  setup()->selectNetwork(QStringLiteral("resnet18"));
  ASSERT_TRUE(
      waitUntil([&] { return !m_page.loadingPicture() && m_page.taskModel()->rowCount() > 8; }));
  for (QWidget* button :
       {static_cast<QWidget*>(setup()->startButton()), static_cast<QWidget*>(setup()->stopButton()),
        static_cast<QWidget*>(setup()->resumeButton())}) {
    const QRect inPage(button->mapTo(&m_page, QPoint(0, 0)), button->size());
    EXPECT_TRUE(m_page.rect().contains(inPage)) << button->objectName().toStdString();
    EXPECT_FALSE(button->visibleRegion().isEmpty()) << button->objectName().toStdString();
  }
  EXPECT_TRUE(everyColumnShowsIn(m_page.taskTable(), m_page.graphView()));
  EXPECT_TRUE(m_page.taskModel()
                  ->index(5, NetworkTaskModel::TaskColumn)
                  .data(Qt::ToolTipRole)
                  .toString()
                  .startsWith(m_page.taskModel()->index(5, 0).data().toString()));
}

// Where there is no CUDA device a cuda race ends at once, saying why, and stores nothing.
TEST_F(NetworksPageTest, ACudaRaceWithoutADeviceFailsNamingWhy) {
  for (const BackendInfo& b : probeBackends())
    if (b.name == "cuda" && b.available) GTEST_SKIP() << "a CUDA device is here";
  chooseTiny({QStringLiteral("gradient")}, 8);
  QComboBox* backend = setup()->backendBox();
  backend->setCurrentIndex(backend->findText(QStringLiteral("cuda")));
  m_page.start();
  ASSERT_TRUE(raceEnded(60000));
  const QString status = m_page.statusLabel()->text();
  EXPECT_TRUE(status.startsWith(QStringLiteral("Failed: "))) << status.toStdString();
  EXPECT_TRUE(status.contains(QStringLiteral("cuda"))) << status.toStdString();
  EXPECT_TRUE(Store(m_db.toStdString()).networks().empty());
}

TEST_F(NetworksPageTest, RacesTwoSchedulersLiveThenRunsEachNetworkEndToEnd) {
  chooseTiny({QStringLiteral("gradient"), QStringLiteral("round-robin")}, 8);
  // Weights timed warm, not as by default: the stored runs must say so (activations as by
  // default, cold).
  setup()->coldWeightsBox()->setChecked(false);
  int snapshots = 0;
  int untunedRuns = 0;  // snapshots announcing an untuned network's run, each counted once
  QString lastActivity;
  QObject::connect(m_page.controller(), &NetworkController::updated, &m_page,
                   [&](const NetworkSnapshotPtr& snap) {
                     ++snapshots;
                     if (snap->activity != lastActivity &&
                         snap->activity.contains(QStringLiteral(" untuned end to end")))
                       ++untunedRuns;
                     lastActivity = snap->activity;
                   });
  m_page.start();
  ASSERT_TRUE(m_page.controller()->busy());
  ASSERT_TRUE(raceEnded()) << m_page.statusLabel()->text().toStdString();
  const NetworkSnapshot* s = m_page.snapshot();
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->contenders.size(), 2u);
  EXPECT_GE(snapshots, 2 * 8 / 4) << "a snapshot after every unit";
  EXPECT_EQ(m_page.contenderBox()->count(), 2);
  for (int c = 0; c < 2; ++c) {
    const ContenderState& state = s->contenders[c];
    EXPECT_TRUE(state.label.endsWith(" / joint")) << state.label.toStdString();
    EXPECT_EQ(state.trials, 8);
    EXPECT_GT(m_page.curveChart()->curvePointCount(c), 0);
    EXPECT_TRUE(std::isfinite(state.endToEndMs)) << "run end to end once tuned";
    if (s->referenceMs) {
      EXPECT_TRUE(state.verified) << "checked against libtorch";
    }
  }
  // The finished line names each contender's end-to-end time on this CPU, and libtorch's.
  const QString status = m_page.statusLabel()->text();
  for (const ContenderState& state : s->contenders) {
    EXPECT_TRUE(state.device.isEmpty()) << "ran on this CPU";
    EXPECT_TRUE(status.contains(state.label + QStringLiteral(": "))) << status.toStdString();
  }
  EXPECT_TRUE(status.contains(QStringLiteral("ms end to end"))) << status.toStdString();
  // Both contenders tune the same mode: one untuned network, run once and compared with each
  // (it ran once per contender, the same network each time).
  std::vector<double> untunedMs;
  for (const ContenderState& state : s->contenders)
    if (const auto& u = state.comparison.untuned) untunedMs.push_back(u->ms);
  EXPECT_EQ(untunedRuns, untunedMs.empty() ? 0 : 1);
  if (untunedMs.size() == 2) {
    EXPECT_DOUBLE_EQ(untunedMs[0], untunedMs[1]);
    // The second says whose untuned network it was compared with, stored and on the line.
    const std::int64_t first = s->contenders[0].networkId;
    EXPECT_EQ(s->contenders[0].comparison.untunedRunBy, 0);
    EXPECT_EQ(s->contenders[1].comparison.untunedRunBy, first);
    EXPECT_TRUE(status.contains(QStringLiteral("(run %1's, tuned / untuned ").arg(first)))
        << status.toStdString();
    // And `opevo net runs` of the second, read from the store.
    const test::CliRun shown =
        test::runCli({QStringLiteral("net"), QStringLiteral("runs"),
                      QString::number(s->contenders[1].networkId), QStringLiteral("--db"), m_db});
    ASSERT_EQ(shown.exitCode, 0) << shown.err.toStdString();
    EXPECT_TRUE(shown.out.contains(
        QStringLiteral("untuned configurations, run for network run %1 in the same process")
            .arg(first)))
        << shown.out.toStdString();
  }
  if (s->referenceMs) {
    EXPECT_TRUE(m_page.curveChart()->hasReferenceLine());
    EXPECT_EQ(s->referenceLegend, QStringLiteral("libtorch"));
    EXPECT_TRUE(status.contains(s->referenceName)) << status.toStdString();
  } else
    std::printf("[ note ] no libtorch reference here: %s\n", qPrintable(s->referenceName));
  EXPECT_EQ(m_page.trialsChart()->lineCount(), 2);
  // Measured end to end: each kernel coloured by its own time, the pool's too.
  EXPECT_NE(m_page.graphView()->colorOf(nodeIndex("c1")), QColor(Qt::white));
  EXPECT_NE(m_page.graphView()->colorOf(nodeIndex("p1")), QColor(Qt::white));
  EXPECT_EQ(m_page.graphView()->colorOf(nodeIndex("f1")), QColor(Qt::white)) << "a view";
  // The table's shares are the graph's: of the latency measured end to end, the fixed layers
  // (the pool) taking the rest.
  const NetworkTaskModel* tasks = m_page.taskModel();
  EXPECT_TRUE(tasks->sharesMeasured());
  EXPECT_TRUE(tasks->headerData(NetworkTaskModel::ShareColumn, Qt::Horizontal, Qt::ToolTipRole)
                  .toString()
                  .contains(QStringLiteral("measured end to end")));
  const std::vector<double>& nodeShares = m_page.graphView()->shares();
  double shares = 0;
  for (int r = 0; r < tasks->rowCount(); ++r) {
    const QString name = tasks->index(r, NetworkTaskModel::TaskColumn).data().toString();
    const std::size_t k = nodeIndex(name);
    ASSERT_LT(k, nodeShares.size()) << name.toStdString();
    EXPECT_DOUBLE_EQ(tasks->share(r), nodeShares[k]) << name.toStdString();
    shares += tasks->share(r);
  }
  EXPECT_GT(nodeShares[nodeIndex("p1")], 0);
  EXPECT_NEAR(shares + nodeShares[nodeIndex("p1")], 1, 1e-9);

  // What the race showed, to compare with what Show reads back from the store.
  std::vector<double> endToEnd, lastEstimate;
  const QString secondLabel = s->contenders[1].label;
  for (const ContenderState& state : s->contenders) {
    endToEnd.push_back(state.endToEndMs);
    lastEstimate.push_back(state.curveEstimateMs.back());
  }
  const std::int64_t secondRun = s->contenders[1].networkId;

  // Another network chosen: the tiny race's results, contenders and curves go, rather than
  // stand under AlexNet's picture.
  setup()->selectNetwork(QStringLiteral("alexnet"));
  ASSERT_TRUE(pictureShown(28));
  EXPECT_EQ(m_page.snapshot(), nullptr);
  EXPECT_EQ(m_page.contenderBox()->count(), 0);
  // The empty box says what it will list (it was blank beside "Show").
  EXPECT_EQ(m_page.contenderBox()->currentText(), QString());
  EXPECT_EQ(m_page.contenderBox()->placeholderText(),
            QStringLiteral("none yet: start a race or show a run"));
  EXPECT_EQ(m_page.curveChart()->curvePointCount(0), 0);
  EXPECT_FALSE(m_page.statusLabel()->text().contains(QStringLiteral("end to end")))
      << m_page.statusLabel()->text().toStdString();
  EXPECT_EQ(m_page.taskModel()->index(0, NetworkTaskModel::TrialsColumn).data().toInt(), 0);

  // Both are stored network runs, finished, with their results.
  Store store(m_db.toStdString());
  const std::vector<NetworkRecord> runs = store.networks();
  ASSERT_EQ(runs.size(), 2u);
  for (const NetworkRecord& r : runs) {
    EXPECT_EQ(r.status, RunStatus::Finished);
    const nlohmann::json result = nlohmann::json::parse(r.resultJson);
    EXPECT_EQ(result["trials"], 8);
    EXPECT_EQ(result["weights"], "warm");
    EXPECT_EQ(result["activations"], "cold");
    EXPECT_TRUE(result["end_to_end_ms"].is_number());
  }

  // Show puts a stored run back on the page as the race showed it, its network with it.
  ASSERT_TRUE(waitUntil([&] { return setup()->runsBox()->count() == 2; }));
  setup()->runsBox()->setCurrentIndex(
      setup()->runsBox()->findData(QVariant::fromValue<qlonglong>(secondRun)));
  ASSERT_TRUE(setup()->showButton()->isEnabled());
  EXPECT_FALSE(setup()->resumeButton()->isEnabled()) << "finished";
  setup()->showButton()->click();
  ASSERT_TRUE(waitUntil([&] { return !m_page.loadingStored() && m_page.snapshot(); }));
  ASSERT_TRUE(pictureShown(6));
  const NetworkSnapshot* shown = m_page.snapshot();
  ASSERT_EQ(shown->contenders.size(), 1u);
  const ContenderState& stored = shown->contenders[0];
  EXPECT_EQ(stored.networkId, secondRun);
  EXPECT_EQ(stored.label, secondLabel);
  EXPECT_EQ(stored.trials, 8);
  EXPECT_DOUBLE_EQ(stored.endToEndMs, endToEnd[1]);
  EXPECT_DOUBLE_EQ(stored.curveEstimateMs.back(), lastEstimate[1]);
  EXPECT_GT(m_page.curveChart()->curvePointCount(0), 0);
  EXPECT_EQ(setup()->network(), m_file) << "the box names the network on show";
  EXPECT_TRUE(m_page.taskModel()->sharesMeasured());
  const QString shownStatus = m_page.statusLabel()->text();
  EXPECT_TRUE(
      shownStatus.startsWith(QStringLiteral("Network run %1, 8 of 8 trials: ").arg(secondRun)))
      << shownStatus.toStdString();
  EXPECT_TRUE(shownStatus.contains(QStringLiteral("ms end to end"))) << shownStatus.toStdString();
  EXPECT_EQ(m_page.taskModel()->index(0, NetworkTaskModel::TrialsColumn).data().toInt() +
                m_page.taskModel()->index(1, NetworkTaskModel::TrialsColumn).data().toInt(),
            8);
}

// joint and joint-np share their spaces and so their untuned configurations, but only joint
// propagates layouts: each mode's untuned network runs, neither compared with the other's.
TEST_F(NetworksPageTest, EachModeRunsItsOwnUntunedNetwork) {
  chooseTiny({QStringLiteral("gradient")}, 8);
  ASSERT_TRUE(setup()->setModes({QStringLiteral("joint"), QStringLiteral("joint-np")}));
  int untunedRuns = 0;
  QString lastActivity;
  QObject::connect(m_page.controller(), &NetworkController::updated, &m_page,
                   [&](const NetworkSnapshotPtr& snap) {
                     if (snap->activity != lastActivity &&
                         snap->activity.contains(QStringLiteral(" untuned end to end")))
                       ++untunedRuns;
                     lastActivity = snap->activity;
                   });
  m_page.start();
  ASSERT_TRUE(raceEnded()) << m_page.statusLabel()->text().toStdString();
  const NetworkSnapshot* s = m_page.snapshot();
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->contenders.size(), 2u);
  int compared = 0;
  for (const ContenderState& c : s->contenders) {
    EXPECT_EQ(c.comparison.untunedRunBy, 0) << c.label.toStdString();
    compared += c.comparison.untuned ? 1 : 0;
  }
  EXPECT_EQ(untunedRuns, compared);
  // Where a contender's bests were all its untuned configurations nothing ran to share.
  if (compared < 2) GTEST_SKIP() << "only " << compared << " untuned network ran";
}

// A race timed against libtorch as deployed: the live chart, the finished line, the stored run
// and the run shown again all name the frozen form, so its figure is never read as eager's.
TEST_F(NetworksPageTest, ARaceAgainstFrozenLibtorchSaysSoLiveStoredAndShown) {
  chooseTiny({QStringLiteral("gradient")}, 4);
  setup()->frozenTorchBox()->setChecked(true);
  m_page.start();
  ASSERT_TRUE(raceEnded()) << m_page.statusLabel()->text().toStdString();
  const NetworkSnapshot* s = m_page.snapshot();
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->contenders.size(), 1u);
  if (!s->referenceMs)
    GTEST_SKIP() << "no libtorch reference here: " << qPrintable(s->referenceName);
  EXPECT_TRUE(s->contenders[0].verified) << "checked against frozen libtorch";
  EXPECT_EQ(s->referenceLegend, QStringLiteral("libtorch frozen"));
  EXPECT_TRUE(s->referenceName.contains(QStringLiteral(" frozen, ")))
      << s->referenceName.toStdString();
  EXPECT_TRUE(m_page.curveChart()->hasReferenceLine());
  const QString status = m_page.statusLabel()->text();
  EXPECT_TRUE(status.contains(s->referenceName)) << status.toStdString();
  const double referenceMs = *s->referenceMs;
  const std::int64_t id = s->contenders[0].networkId;
  // The untuned network ran after the tuned one, as net tune runs it, and the line says which was
  // kept; or every task's best was its untuned configuration, and it says that.
  const net::NetworkComparison& compared = s->contenders[0].comparison;
  EXPECT_TRUE(compared.untunedError.empty()) << compared.untunedError;
  EXPECT_NE(compared.untuned.has_value(), compared.untunedIsTuned);
  EXPECT_EQ(compared.kept.has_value(), compared.untuned.has_value());
  if (compared.untuned) {
    EXPECT_TRUE(compared.untuned->verified) << "checked against the same frozen libtorch output";
    EXPECT_TRUE(status.contains(
        QStringLiteral(" kept the %1 network (")
            .arg(QString::fromUtf8(net::networkChoiceName(compared.kept->choice).data()))))
        << status.toStdString();
    EXPECT_TRUE(status.contains(QStringLiteral("opevo net export %1 writes it)").arg(id)))
        << status.toStdString();
  } else {
    EXPECT_TRUE(status.contains(QStringLiteral("every task's chosen configuration is its untuned")))
        << status.toStdString();
  }
  const std::optional<net::NetworkChoice> kept =
      compared.kept ? std::optional(compared.kept->choice) : std::nullopt;

  Store store(m_db.toStdString());
  const std::vector<NetworkRecord> runs = store.networks();
  ASSERT_EQ(runs.size(), 1u);
  const nlohmann::json result = nlohmann::json::parse(runs[0].resultJson);
  EXPECT_EQ(result["reference"]["form"], "frozen") << result["reference"].dump();

  // Another network, then the run shown again from the store.
  setup()->selectNetwork(QStringLiteral("alexnet"));
  ASSERT_TRUE(pictureShown(28));
  ASSERT_TRUE(waitUntil([&] { return setup()->runsBox()->count() == 1; }));
  setup()->runsBox()->setCurrentIndex(
      setup()->runsBox()->findData(QVariant::fromValue<qlonglong>(id)));
  setup()->showButton()->click();
  ASSERT_TRUE(waitUntil([&] { return !m_page.loadingStored() && m_page.snapshot(); }));
  const NetworkSnapshot* shown = m_page.snapshot();
  ASSERT_TRUE(shown->referenceMs);
  EXPECT_DOUBLE_EQ(*shown->referenceMs, referenceMs);
  EXPECT_EQ(shown->referenceLegend, QStringLiteral("libtorch frozen"));
  EXPECT_TRUE(m_page.statusLabel()->text().contains(QStringLiteral(" frozen")))
      << m_page.statusLabel()->text().toStdString();
  const net::NetworkComparison& again = shown->contenders.at(0).comparison;
  EXPECT_EQ(again.kept ? std::optional(again.kept->choice) : std::nullopt, kept);
  EXPECT_EQ(again.untunedIsTuned, !kept.has_value());
}

// tests/data/opevo-v8.db: network run 1 (dense_pair, task runs 1 and 2, 8 trials) and run 3.
TEST_F(NetworksPageTest, DeleteAsksThenTakesTheRunItsTasksAndWhatThePageShowsOfIt) {
  const QString path = m_dir.filePath(QStringLiteral("stored.db"));
  ASSERT_TRUE(
      QFile::copy(QStringLiteral(OPEVO_DATASETS_DIR "/../../tests/data/opevo-v8.db"), path));
  m_page.setStorePath(path);
  ASSERT_TRUE(waitUntil([&] { return setup()->deleteButton()->isEnabled(); }));
  EXPECT_EQ(setup()->selectedRun()->id, 1);
  setup()->showButton()->click();
  ASSERT_TRUE(waitUntil([&] { return !m_page.loadingStored() && m_page.snapshot(); }));
  const auto box = [&] {
    QMessageBox* b = nullptr;
    waitUntil([&] {
      b = m_page.findChild<QMessageBox*>(QStringLiteral("deleteNetworkBox"));
      return b && b->isVisible();
    });
    return b;
  };

  setup()->deleteButton()->click();
  QMessageBox* asked = box();
  ASSERT_NE(asked, nullptr);
  EXPECT_EQ(asked->text(),
            QStringLiteral("Delete network run 1 (dense_pair, 2 tasks, 8 trials) from stored.db?"));
  asked->button(QMessageBox::Cancel)->click();
  QCoreApplication::processEvents();
  EXPECT_EQ(Store(path.toStdString()).networks().size(), 1u);

  // Resumed by another program between the question and the answer: refused, and said.
  {
    setup()->deleteButton()->click();
    asked = box();
    ASSERT_NE(asked, nullptr);
    RunLock held(path.toStdString(), LockedKind::Network, 1);
    asked->findChild<QPushButton*>(QStringLiteral("confirmDelete"))->click();
    ASSERT_TRUE(waitUntil([&] { return m_page.statusLabel()->text().contains("being tuned"); }))
        << m_page.statusLabel()->text().toStdString();
    EXPECT_TRUE(m_page.statusLabel()->text().startsWith(
        QStringLiteral("The network run cannot be deleted: network run 1 is being tuned now")))
        << m_page.statusLabel()->text().toStdString();
  }
  EXPECT_EQ(Store(path.toStdString()).networks().size(), 1u);
  ASSERT_TRUE(waitUntil([&] { return setup()->deleteButton()->isEnabled(); }));

  QSignalSpy said(&m_page, &NetworksPage::statusMessage);
  setup()->deleteButton()->click();
  asked = box();
  ASSERT_NE(asked, nullptr);
  asked->findChild<QPushButton*>(QStringLiteral("confirmDelete"))->click();
  ASSERT_TRUE(waitUntil([&] { return setup()->runsBox()->count() == 0; }));
  const QString done = QStringLiteral("Deleted network run 1 (dense_pair, 2 tasks, 8 trials).");
  EXPECT_EQ(m_page.statusLabel()->text(), done);
  ASSERT_GE(said.count(), 1);
  EXPECT_EQ(said.last().at(0).toString(), done);
  EXPECT_EQ(m_page.snapshot(), nullptr);  // its tasks and curves left with it
  EXPECT_FALSE(setup()->deleteButton()->isEnabled());
  const Store store(path.toStdString());
  EXPECT_TRUE(store.networks().empty());
  ASSERT_EQ(store.runs().size(), 1u);
  EXPECT_EQ(store.runs()[0].id, 3);
}

TEST_F(NetworksPageTest, StopKeepsEveryTrialAndResumeFinishesTheBudget) {
  chooseTiny({QStringLiteral("gradient")}, 24);
  // A race stopped before: the list selects it, and kept it selected after the next one
  // stopped, so Resume continued the older run (the walk's runs 3 and 4).
  m_page.start();
  ASSERT_TRUE(waitUntil(
      [&] { return m_page.snapshot() && m_page.snapshot()->contenders.at(0).trials >= 4; },
      120000));
  m_page.stop();
  ASSERT_TRUE(raceEnded());
  ASSERT_TRUE(waitUntil([&] { return setup()->selectedRun().has_value(); }));
  const std::int64_t older = setup()->selectedRun()->id;
  m_page.start();
  // While it runs the form describes it: nothing there can name another network or budget.
  EXPECT_FALSE(setup()->networkBox()->isEnabled());
  EXPECT_FALSE(setup()->openButton()->isEnabled());
  EXPECT_FALSE(setup()->paramsEdit()->isEnabled());
  EXPECT_FALSE(setup()->trialsBox()->isEnabled());
  EXPECT_FALSE(setup()->algorithmList()->isEnabled());
  EXPECT_TRUE(setup()->stopButton()->isEnabled());
  ASSERT_TRUE(waitUntil(
      [&] { return m_page.snapshot() && m_page.snapshot()->contenders.at(0).trials >= 4; },
      120000));
  m_page.stop();
  ASSERT_TRUE(raceEnded());
  EXPECT_TRUE(setup()->networkBox()->isEnabled());
  EXPECT_TRUE(setup()->trialsBox()->isEnabled());
  const QString stopped = m_page.statusLabel()->text();
  EXPECT_TRUE(stopped.startsWith(QStringLiteral("Stopped: network run ")) &&
              stopped.contains(QStringLiteral("Resume continues it")))
      << stopped.toStdString();

  Store store(m_db.toStdString());
  std::vector<NetworkRecord> all = store.networks();
  ASSERT_EQ(all.size(), 2u);
  std::vector<NetworkRecord> runs = {all[1]};  // the race just stopped
  EXPECT_NE(runs[0].id, older);
  EXPECT_TRUE(stopped.contains(QStringLiteral("network run %1 ").arg(runs[0].id)))
      << stopped.toStdString();
  EXPECT_EQ(runs[0].status, RunStatus::Interrupted);
  const std::vector<std::int64_t> taskRuns = runs[0].taskRuns;
  int stoppedAt = 0;
  for (const NetworkUnitRow& u : store.networkUnits(runs[0].id)) stoppedAt += u.trials;

  // Show reads it as far as it got, and says Resume continues it.
  ASSERT_TRUE(waitUntil([&] { return setup()->showButton()->isEnabled(); }));
  EXPECT_EQ(setup()->selectedRun()->id, runs[0].id);
  setup()->showButton()->click();
  ASSERT_TRUE(waitUntil([&] {
    return !m_page.loadingStored() && m_page.snapshot() &&
           m_page.snapshot()->contenders.at(0).networkId == runs[0].id;
  }));
  EXPECT_EQ(m_page.snapshot()->contenders[0].trials, stoppedAt);
  EXPECT_EQ(m_page.statusLabel()->text(),
            QStringLiteral("Network run %1, %2 of 24 trials: interrupted; Resume continues it")
                .arg(runs[0].id)
                .arg(stoppedAt));
  ASSERT_EQ(taskRuns.size(), 2u);
  auto storedTrials = [&] {
    std::size_t n = 0;
    for (std::int64_t run : taskRuns) n += store.trials(run).size();
    return n;
  };
  const std::size_t kept = storedTrials();
  EXPECT_GE(kept, 4u);
  EXPECT_LT(kept, 24u);

  // The stored run is offered for resuming, and goes on to exactly its budget.
  ASSERT_TRUE(waitUntil([&] { return setup()->resumeButton()->isEnabled(); }));
  EXPECT_EQ(setup()->selectedRun()->id, runs[0].id);
  setup()->resumeButton()->click();
  // Once the store, read again, still has it interrupted.
  ASSERT_TRUE(waitUntil([&] { return m_page.controller()->busy(); }));
  ASSERT_TRUE(raceEnded()) << m_page.statusLabel()->text().toStdString();
  all = store.networks();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].status, RunStatus::Interrupted) << "the older run, untouched";
  runs = {all[1]};
  EXPECT_EQ(runs[0].status, RunStatus::Finished);
  EXPECT_EQ(storedTrials(), 24u) << "nothing measured twice, nothing lost";
  int units = 0;
  for (const NetworkUnitRow& u : store.networkUnits(runs[0].id)) units += u.trials;
  EXPECT_EQ(units, 24);
  EXPECT_EQ(m_page.snapshot()->contenders.at(0).trials, 24);
}

// After the tuning each CPU contender runs up to three networks end to end: Stop is heeded
// between contenders (it waited for every one of them), the rest left interrupted with all their
// trials, and Resume runs such a run straight to its end.
TEST_F(NetworksPageTest, StopWhileTheNetworksRunEndToEndLeavesTheRestToResume) {
  chooseTiny({QStringLiteral("gradient"), QStringLiteral("round-robin")}, 4);
  m_page.start();
  ASSERT_TRUE(waitUntil(
      [&] {
        return m_page.snapshot() &&
               m_page.snapshot()->activity.contains(QStringLiteral("end to end"));
      },
      120000));
  m_page.stop();
  ASSERT_TRUE(raceEnded());
  const QString stopped = m_page.statusLabel()->text();
  Store store(m_db.toStdString());
  std::vector<NetworkRecord> all = store.networks();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].status, RunStatus::Finished) << "its end-to-end runs were under way";
  EXPECT_EQ(all[1].status, RunStatus::Interrupted) << stopped.toStdString();
  EXPECT_TRUE(stopped.contains(QStringLiteral("network run %1 is interrupted").arg(all[1].id)))
      << stopped.toStdString();
  auto measured = [&](std::int64_t id) {
    int trials = 0;
    for (const NetworkUnitRow& u : store.networkUnits(id)) trials += u.trials;
    return trials;
  };
  EXPECT_EQ(measured(all[1].id), 4) << "tuned to its budget before the stop";

  ASSERT_TRUE(waitUntil([&] { return setup()->runsBox()->count() == 2; }));
  setup()->runsBox()->setCurrentIndex(
      setup()->runsBox()->findData(QVariant::fromValue<qlonglong>(all[1].id)));
  ASSERT_TRUE(waitUntil([&] { return setup()->resumeButton()->isEnabled(); }));
  setup()->resumeButton()->click();
  ASSERT_TRUE(waitUntil([&] { return m_page.controller()->busy(); }));
  ASSERT_TRUE(raceEnded()) << m_page.statusLabel()->text().toStdString();
  all = store.networks();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].status, RunStatus::Finished);
  EXPECT_EQ(measured(all[1].id), 4) << "nothing measured again";
  const nlohmann::json result = nlohmann::json::parse(all[1].resultJson);
  EXPECT_TRUE(result["end_to_end_ms"].is_number()) << result.dump();
  EXPECT_TRUE(m_page.statusLabel()->text().contains(QStringLiteral("ms end to end")))
      << m_page.statusLabel()->text().toStdString();
}

}  // namespace
}  // namespace opevo::ui
