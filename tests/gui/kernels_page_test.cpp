#include "ui/pages/kernels_page.h"

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QChart>
#include <QFile>
#include <QFontMetrics>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLogValueAxis>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>
#include <nlohmann/json.hpp>

#include "gui_test_support.h"
#include "kas/budget_solver.h"
#include "kas/conv_targets.h"
#include "kas/kas_json.h"
#include "kas/kas_search.h"
#include "kas/kernel_fit.h"
#include "kas/sampler.h"
#include "net/network_json.h"
#include "store/run_lock.h"
#include "store/store.h"
#include "ui/charts/kas_dag_layout.h"
#include "ui/charts/kas_dag_view.h"
#include "ui/charts/kas_scatter_chart.h"
#include "ui/charts/kas_training_chart.h"
#include "ui/charts/kas_tuning_chart.h"
#include "ui/controller/kas_controller.h"
#include "ui/models/kas_candidate_model.h"
#include "ui/models/kas_search_model.h"
#include "ui/widgets/kas_search_panel.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

// A tuned layer as the search stores it: the schedule, the times and the best-time curve.
nlohmann::json tunedLayer(const std::string& layer, double ms, double convMs) {
  return {{"layer", layer},
          {"count", 2},
          {"schedule", "tile_h=8; tile_w=56; fc_block=4; fc_width=16"},
          {"ms", ms},
          {"default_ms", ms * 2},
          {"conv_ms", convMs},
          {"conv", "oneDNN 2.6.3 convolution of " + layer},
          {"trials", 3},
          {"curve_ms", {ms * 3, ms * 1.5, ms}},
          {"notes", "of 3 trials: 1 timed by one run alone (over the slow cut-off)"}};
}

// The names the chart's legend shows.
QStringList legendNames(QChartView* view) {
  QStringList names;
  for (QLegendMarker* m : view->chart()->legend()->markers())
    if (m->isVisible()) names << m->label();
  return names;
}

// A finished search of seven candidates at every stage, as KasSearch stores them, with real
// kernels (sampled and solved for ResNet-18 as the search does) so the DAG and the source can be
// made; only the figures are invented. Trained: #1 (2x, 84 %) and #2 (1.2x, 86 %) on the front,
// #3 (1.1x, 80 %) behind it, #4 (0.9x, 50 %) stopped early; #5 tuned, #6 failed, #7 sampled.
class KernelsPageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    m_db = m_dir.filePath(QStringLiteral("opevo.db")).toStdString();
    Store store(m_db);
    kas::KasSearchSettings settings;
    settings.candidates = 7;
    KasSearchRecord r;
    r.network = settings.network;
    r.settingsJson = settings.toJson().dump();
    m_search = store.createKasSearch(r);
    store.setKasSearchBaseline(m_search, R"({"accuracy": 0.85, "curve": [0.7, 0.85]})");

    const auto targets = kas::replaceableConvolutions(net::loadNetwork(settings.network));
    const auto kernels = kas::sampleDistinct(7, 7, {}, [&](const kas::MicroDag& dag) {
      return kas::fitKernel(dag, {targets}, {1}, settings.budget).has_value();
    });
    ASSERT_EQ(kernels.size(), 7u);
    m_nodes = kernels[1].nodes().size();
    m_secondLayer = targets.at(1).name;
    struct Figures {
      KasStage stage;
      double kernelMs, convMs, accuracy;
      bool early;
    };
    const Figures figures[] = {
        {KasStage::Trained, 10, 20, 0.84, false}, {KasStage::Trained, 10, 12, 0.86, false},
        {KasStage::Trained, 10, 11, 0.80, false}, {KasStage::Trained, 10, 9, 0.50, true},
        {KasStage::Tuned, 10, 15, 0, false},      {KasStage::Failed, 0, 0, 0, false},
        {KasStage::Sampled, 0, 0, 0, false}};
    for (int i = 0; i < 7; ++i) {
      const Figures& f = figures[i];
      KasCandidateRow c;
      c.searchId = m_search;
      c.seq = i + 1;
      c.hash = std::string(15, '0') + std::to_string(i + 1);
      c.kernelJson = kas::kernelToJson(kernels[i]).dump();
      c.groups = 1;
      c.stage = f.stage;
      c.flopsRatio = 0.3;
      c.paramsRatio = 0.2;
      if (f.kernelMs > 0) {
        c.kernelMs = f.kernelMs;
        c.convMs = f.convMs;
        c.tuningJson = nlohmann::json::array({tunedLayer(targets[0].name, 0.5, 0.9),
                                              tunedLayer(targets[1].name, 0.3, 0.4)})
                           .dump();
      }
      if (f.stage == KasStage::Trained) {
        c.accuracy = f.accuracy;
        c.stoppedEarly = f.early;
        c.trainingJson = nlohmann::json{{"curve", f.early ? std::vector<double>{f.accuracy}
                                                          : std::vector<double>{0.6, f.accuracy}}}
                             .dump();
      }
      if (f.stage == KasStage::Failed) c.message = "layer1.0.conv1: no schedule was verified";
      store.putKasCandidate(c);
    }
    store.setKasSearchStatus(m_search, RunStatus::Finished);
  }

  // The page on the store, its search read and its best kernel's details shown.
  void open() {
    m_page.resize(1280, 800);
    m_page.show();
    m_page.setStorePath(QString::fromStdString(m_db));
    ASSERT_TRUE(waitUntil([&] {
      return m_page.shownSearch() == m_search && !m_page.loading() && m_page.dagView()->dagLayout();
    }));
  }

  QTemporaryDir m_dir;
  std::string m_db;
  std::int64_t m_search = 0;
  std::size_t m_nodes = 0;
  std::string m_secondLayer;  // the second tuned layer's name
  KernelsPage m_page;
};

TEST_F(KernelsPageTest, ListsTheSearchAndPlotsItsTrainedKernelsWithTheFront) {
  test::ModelTestFailures warnings;
  QAbstractItemModelTester searches(m_page.panel()->model(),
                                    QAbstractItemModelTester::FailureReportingMode::Warning);
  QAbstractItemModelTester candidates(m_page.candidateModel(),
                                      QAbstractItemModelTester::FailureReportingMode::Warning);
  open();
  ASSERT_EQ(m_page.panel()->model()->rowCount(), 1);
  EXPECT_EQ(m_page.panel()->selectedSearch(), m_search);
  EXPECT_EQ(m_page.panel()->model()->search(0).trained, 4);
  EXPECT_EQ(m_page.candidateModel()->rowCount(), 7);
  EXPECT_EQ(m_page.chart()->pointCount(), 4);
  EXPECT_EQ(m_page.chart()->frontCount(), 2);
  EXPECT_EQ(m_page.chart()->earlyCount(), 1);
  EXPECT_EQ(m_page.chart()->divergedCount(), 0);
  EXPECT_FALSE(legendNames(m_page.chart()).contains(QStringLiteral("diverged")));
  EXPECT_EQ(m_page.chart()->baselineLabel(), QStringLiteral("baseline 85.0 %"));
  const auto note = [&](int row) {
    return m_page.candidateModel()
        ->index(row, KasCandidateModel::NoteColumn)
        .data()
        .toString()
        .toStdString();
  };
  EXPECT_EQ(note(0), "Pareto");
  EXPECT_EQ(note(3), "stopped early");
  EXPECT_NE(note(5).find("no schedule was verified"), std::string::npos);
  // The fastest kernel within 1 point of the baseline is selected first.
  EXPECT_EQ(m_page.selectedCandidate(), 1);
  EXPECT_EQ(m_page.chart()->selected(), 1);
  EXPECT_FALSE(m_page.panel()->resumeButton()->isEnabled());  // finished
  EXPECT_TRUE(warnings.messages().isEmpty()) << warnings.messages().join('\n').toStdString();
}

TEST_F(KernelsPageTest, AKernelWhoseTrainingDivergedIsMarkedSo) {
  {
    Store store(m_db);
    KasCandidateRow c = store.kasCandidates(m_search).at(2);  // #3: trained, 80 %
    c.accuracy = 0.10;
    c.kernelMs = 4;  // 2.75x: the fastest, which would put it on the front were it counted
    c.trainingJson = nlohmann::json{{"curve", {0.10}}, {"diverged", true}}.dump();
    c.message = "training diverged";
    store.putKasCandidate(c);
  }
  open();
  const auto cell = [&](int row, int column, int role = Qt::DisplayRole) {
    return m_page.candidateModel()->index(row, column).data(role);
  };
  EXPECT_EQ(cell(2, KasCandidateModel::StageColumn).toString(), QStringLiteral("diverged"));
  EXPECT_TRUE(cell(2, KasCandidateModel::StageColumn, Qt::ForegroundRole).isValid());
  // Its accuracy is chance's, and its cell says so.
  EXPECT_EQ(cell(2, KasCandidateModel::AccuracyColumn).toString(),
            QStringLiteral("10.00 % (chance)"));
  EXPECT_EQ(cell(1, KasCandidateModel::StageColumn).toString(), QStringLiteral("trained"));
  EXPECT_FALSE(cell(1, KasCandidateModel::StageColumn, Qt::ForegroundRole).isValid());
  EXPECT_TRUE(m_page.statusLabel()->text().contains("4 trained (1 diverged)"))
      << m_page.statusLabel()->text().toStdString();
  // On the chart too: a marker and a legend entry of its own, not a blue "trained" dot at 10 %.
  EXPECT_EQ(m_page.chart()->pointCount(), 4);
  EXPECT_EQ(m_page.chart()->divergedCount(), 1);
  EXPECT_EQ(m_page.chart()->frontCount(), 2);
  EXPECT_EQ(cell(2, KasCandidateModel::NoteColumn).toString().toStdString().find("Pareto"),
            std::string::npos);
  EXPECT_EQ(m_page.selectedCandidate(), 1);
  EXPECT_TRUE(legendNames(m_page.chart()).contains(QStringLiteral("diverged")))
      << legendNames(m_page.chart()).join(',').toStdString();
  m_page.candidateTable()->selectRow(2);
  EXPECT_TRUE(m_page.trainingChart()->chart()->title().contains("diverged"))
      << m_page.trainingChart()->chart()->title().toStdString();
  // Its one epoch is drawn inside the plot, not on the axis.
  const auto* epochs =
      qobject_cast<QValueAxis*>(m_page.trainingChart()->chart()->axes(Qt::Horizontal).value(0));
  ASSERT_NE(epochs, nullptr);
  EXPECT_LT(epochs->min(), 1.0);
  EXPECT_GT(epochs->max(), 1.0);
}

TEST_F(KernelsPageTest, SelectingARowSelectsThePointAndShowsTheKernel) {
  open();
  m_page.candidateTable()->selectRow(1);
  EXPECT_EQ(m_page.selectedCandidate(), 2);
  EXPECT_EQ(m_page.chart()->selected(), 2);
  ASSERT_TRUE(waitUntil([&] {
    return !m_page.loading() && m_page.sourceView()->toPlainText().contains("Kernel #2");
  }));
  ASSERT_TRUE(m_page.dagView()->dagLayout());
  const KasDagLayout& dag = *m_page.dagView()->dagLayout();
  EXPECT_EQ(dag.nodes.size(), m_nodes);
  EXPECT_EQ(dag.nodes.front().title, QStringLiteral("input"));
  EXPECT_EQ(dag.nodes.front().shape, QStringLiteral("[C, H, W]"));
  const QString source = m_page.sourceView()->toPlainText();
  EXPECT_TRUE(source.contains("tile_h=8; tile_w=56; fc_block=4; fc_width=16"))
      << source.left(400).toStdString();
  EXPECT_TRUE(source.contains("opevo_kas_kernel"));
  // How its trials were timed, under the tuning's figures.
  EXPECT_TRUE(
      source.contains("\n// of 3 trials: 1 timed by one run alone (over the slow cut-off)\n"))
      << source.left(400).toStdString();
  // The second tuned layer's figures and notes, though the source is the first layer's.
  EXPECT_TRUE(source.contains(
      QString::fromStdString("\n// " + m_secondLayer +
                             ": 0.3000 ms against 0.4000 ms, over 3 trials; of 3 trials: 1 "
                             "timed by one run alone (over the slow cut-off)\n")))
      << source.left(600).toStdString();
  EXPECT_TRUE(m_page.sourceView()->isReadOnly());
  EXPECT_EQ(m_page.tuningChart()->layerCount(), 2);
  EXPECT_EQ(m_page.trainingChart()->candidateEpochs(), 2);

  // A kernel not trained: its tuning, no training curve; the source of its start schedule.
  m_page.candidateTable()->selectRow(6);
  EXPECT_EQ(m_page.selectedCandidate(), 7);
  EXPECT_EQ(m_page.chart()->selected(), 7);  // not plotted: no ring
  EXPECT_EQ(m_page.trainingChart()->candidateEpochs(), 0);
  EXPECT_EQ(m_page.tuningChart()->layerCount(), 0);
  ASSERT_TRUE(waitUntil([&] {
    return !m_page.loading() && m_page.sourceView()->toPlainText().contains("Kernel #7");
  }));
  EXPECT_TRUE(m_page.sourceView()->toPlainText().contains("not tuned yet"));
}

// What each chart's title, axis titles and bottom legend need, against the room the chart gives
// them; empty when everything fits.
std::string cutTexts(QChartView* view) {
  std::string cut;
  QChart* chart = view->chart();
  const QRectF plot = chart->plotArea();
  const auto need = [&](const QString& text, const QFont& font, double room, const char* what) {
    const int width = QFontMetrics(font).horizontalAdvance(text);
    if (!text.isEmpty() && width > room)
      cut += std::string(what) + " \"" + text.toStdString() + "\" needs " + std::to_string(width) +
             " px of " + std::to_string(static_cast<int>(room)) + "; ";
  };
  need(chart->title(), chart->titleFont(), chart->size().width(), "title");
  for (QAbstractAxis* axis : chart->axes()) {
    const bool across = axis->orientation() == Qt::Horizontal;
    need(axis->titleText(), axis->titleFont(), across ? plot.width() : plot.height(), "axis");
  }
  if (chart->legend()->isVisible() && chart->legend()->alignment() == Qt::AlignBottom) {
    QString all;
    int markers = 0;
    for (QLegendMarker* m : chart->legend()->markers())
      if (m->isVisible()) {
        all += m->label();
        ++markers;
      }
    // Each marker's square and spacing take about two line heights.
    const QFontMetrics fm(chart->legend()->font());
    need(all, chart->legend()->font(), chart->size().width() - markers * 2 * fm.height(), "legend");
  }
  return cut;
}

// On an 800x600 screen the charts once cut their titles to "speed-up over th..." and
// "best time (...": they say less there, and all of it on a larger one.
TEST_F(KernelsPageTest, ChartTextsFitAnEightHundredPixelScreen) {
  open();
  m_page.candidateTable()->selectRow(0);
  for (const QSize size : {QSize(1280, 800), QSize(768, 500)}) {
    m_page.resize(size);
    QTest::qWait(50);  // the charts lay their plots out once resized
    for (QChartView* view : m_page.findChildren<QChartView*>()) {
      if (!view->isVisible()) continue;
      EXPECT_EQ(cutTexts(view), "")
          << view->metaObject()->className() << " at " << size.width() << "x" << size.height();
    }
  }
}

TEST_F(KernelsPageTest, ClickingAPointSelectsItsRow) {
  open();
  QTest::qWait(50);  // the chart lays its plot out once shown
  const auto at = m_page.chart()->viewportPosition(3);
  ASSERT_TRUE(at.has_value());
  QTest::mouseClick(m_page.chart()->viewport(), Qt::LeftButton, {}, *at);
  ASSERT_TRUE(waitUntil([&] { return m_page.selectedCandidate() == 3; }, 2000));
  const QModelIndexList rows = m_page.candidateTable()->selectionModel()->selectedRows();
  ASSERT_EQ(rows.size(), 1);
  EXPECT_EQ(rows.front().row(), 2);
  EXPECT_EQ(m_page.chart()->selected(), 3);
}

// The running search's snapshots, as KasController delivers them: rows are appended and updated
// in place (the selection stays), the chart gains the new point and the front moves.
TEST_F(KernelsPageTest, LiveSnapshotsGrowTheTableAndTheChart) {
  test::ModelTestFailures warnings;
  QAbstractItemModelTester tester(m_page.candidateModel(),
                                  QAbstractItemModelTester::FailureReportingMode::Warning);
  open();
  m_page.candidateTable()->selectRow(2);
  ASSERT_EQ(m_page.selectedCandidate(), 3);
  auto live = std::make_shared<KasSnapshot>(readKasSnapshot(Store(m_db), m_search));
  live->status = RunStatus::Running;
  live->activity = QStringLiteral("Kernel 8: training on Fashion-MNIST…");
  // #7 tuned since, and #8 trained: the fastest and the most accurate, alone on the front.
  auto tuned = std::make_shared<KasCandidateRow>(*live->candidates[6]);
  tuned->stage = KasStage::Tuned;
  tuned->kernelMs = 10;
  tuned->convMs = 5;
  tuned->tuningJson = live->candidates[0]->tuningJson;
  live->candidates[6] = tuned;
  auto best = std::make_shared<KasCandidateRow>(*live->candidates[0]);
  best->seq = 8;
  best->convMs = 40;
  best->accuracy = 0.9;
  live->candidates.push_back(best);
  emit m_page.controller()->updated(live);
  EXPECT_EQ(m_page.candidateModel()->rowCount(), 8);
  EXPECT_EQ(m_page.chart()->pointCount(), 5);
  EXPECT_EQ(m_page.chart()->frontCount(), 1);
  EXPECT_EQ(m_page.selectedCandidate(), 3);
  EXPECT_EQ(m_page.candidateTable()->selectionModel()->selectedRows().front().row(), 2);
  EXPECT_EQ(m_page.candidateModel()->index(6, KasCandidateModel::StageColumn).data().toString(),
            QStringLiteral("tuned"));
  EXPECT_EQ(m_page.candidateModel()->index(0, KasCandidateModel::NoteColumn).data().toString(),
            QString());  // off the front now
  EXPECT_TRUE(m_page.statusLabel()->text().contains("Kernel 8: training"));
  // The list of searches follows too (it stayed at what the store held when the search began).
  const KasSearchModel* searches = m_page.panel()->model();
  const int row = searches->rowOf(m_search);
  ASSERT_GE(row, 0);
  EXPECT_EQ(searches->search(row).candidates, 8);
  EXPECT_EQ(searches->search(row).record.status, RunStatus::Running);
  EXPECT_TRUE(warnings.messages().isEmpty()) << warnings.messages().join('\n').toStdString();
}

TEST_F(KernelsPageTest, AStoreThatCannotBeOpenedIsSaid) {
  QFile file(m_dir.filePath(QStringLiteral("plain-file")));
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write("not a folder");
  file.close();
  QString said;
  QObject::connect(&m_page, &KernelsPage::statusMessage, [&](const QString& s) { said = s; });
  // Not on show (another page is): the window's status bar says it.
  m_page.setStorePath(m_dir.filePath(QStringLiteral("plain-file/opevo.db")));
  ASSERT_TRUE(waitUntil([&] { return !m_page.loading(); }));
  EXPECT_TRUE(m_page.errorLabel()->text().contains("cannot be read"))
      << m_page.errorLabel()->text().toStdString();
  EXPECT_EQ(said, m_page.errorLabel()->text());
  // On show: its red line alone says it (the status bar said it a second time).
  said.clear();
  m_page.show();
  m_page.reload();
  ASSERT_TRUE(waitUntil([&] { return !m_page.loading(); }));
  EXPECT_TRUE(m_page.errorLabel()->isVisible());
  EXPECT_TRUE(m_page.errorLabel()->text().contains("cannot be read"))
      << m_page.errorLabel()->text().toStdString();
  EXPECT_EQ(said, QString());
  EXPECT_EQ(m_page.panel()->model()->rowCount(), 0);
  // A readable store again: the message goes, its search shows.
  m_page.setStorePath(QString::fromStdString(m_db));
  ASSERT_TRUE(waitUntil([&] { return m_page.shownSearch() == m_search && !m_page.loading(); }));
  EXPECT_FALSE(m_page.errorLabel()->isVisible());
}

TEST_F(KernelsPageTest, ASearchWhoseTrainerIsMissingFailsWithAMessage) {
  const QByteArray before = qgetenv("OPEVO_KAS_TRAIN");
  qputenv("OPEVO_KAS_TRAIN", m_dir.filePath(QStringLiteral("no-such-trainer")).toLocal8Bit());
  open();
  test::StallProbe probe;
  m_page.panel()->candidatesBox()->setValue(2);
  m_page.panel()->startButton()->click();
  EXPECT_TRUE(m_page.controller()->busy());
  EXPECT_FALSE(m_page.panel()->startButton()->isEnabled());
  const bool ended = waitUntil([&] { return !m_page.controller()->busy(); }, 20000);
  qputenv("OPEVO_KAS_TRAIN", before);
  ASSERT_TRUE(ended);
  EXPECT_TRUE(m_page.errorLabel()->isVisible());
  EXPECT_TRUE(m_page.errorLabel()->text().contains("failed"))
      << m_page.errorLabel()->text().toStdString();
  EXPECT_TRUE(m_page.errorLabel()->text().contains("no-such-trainer"))
      << m_page.errorLabel()->text().toStdString();
  // The failed search is stored, listed and shown; it can be resumed once the trainer is there.
  ASSERT_TRUE(
      waitUntil([&] { return m_page.panel()->model()->rowCount() == 2 && !m_page.loading(); }));
  EXPECT_EQ(m_page.shownSearch(), m_page.panel()->model()->search(0).record.id);
  EXPECT_NE(m_page.shownSearch(), m_search);
  EXPECT_TRUE(m_page.panel()->resumeButton()->isEnabled());
  EXPECT_LT(probe.longestMs(), 500);
}

// The walk: a search the CLI ran while the window was open stayed "running 0/1/2" in the list
// until Reload. Shown, the page reads the store again while a search runs elsewhere, and stops
// once none does (or it is hidden).
TEST_F(KernelsPageTest, ASearchRunningElsewhereIsFollowedUntilItEnds) {
  Store(m_db).setKasSearchStatus(m_search, RunStatus::Running);
  auto elsewhere = std::make_unique<RunLock>(m_db, LockedKind::KasSearch, m_search);
  open();
  ASSERT_TRUE(waitUntil([&] { return m_page.following(); }, 5000));
  EXPECT_EQ(m_page.panel()->model()->search(0).record.status, RunStatus::Running);
  m_page.hide();
  EXPECT_FALSE(m_page.following());
  m_page.show();
  ASSERT_TRUE(waitUntil([&] { return m_page.following(); }, 5000));

  Store(m_db).setKasSearchStatus(m_search, RunStatus::Finished);
  elsewhere.reset();
  ASSERT_TRUE(waitUntil(
      [&] {
        return !m_page.following() &&
               m_page.panel()->model()->search(0).record.status == RunStatus::Finished &&
               m_page.statusLabel()->text().contains(QStringLiteral("finished"));
      },
      15000))
      << m_page.statusLabel()->text().toStdString();
}

// The walk at 1024x700: a search from 0.27x to 9.6x labelled its speed-up axis "0.... 0.... 0.5 1
// 2 4 8 16", and "oneDNN convolution (1×)" ran off the chart. Ticks are as many as their labels
// allow, and the 1x line's label is shortened where neither side of the line has room.
TEST(KasScatterChart, SpeedUpLabelsFitANarrowChart) {
  KasSnapshot s;
  s.searchId = 1;
  s.baselineAccuracy = 0.648;
  for (const auto& [seq, speedup] : {std::pair{1, 0.27}, {2, 0.72}, {3, 9.63}}) {
    auto c = std::make_shared<KasCandidateRow>();
    c->seq = seq;
    c->hash = std::string(15, '0') + std::to_string(seq);
    c->stage = KasStage::Trained;
    c->kernelMs = 1.0;
    c->convMs = speedup;
    c->accuracy = 0.2 + 0.1 * seq;
    c->tuningJson = R"([{"conv": "oneDNN 2.6.3 convolution of layer1.0.conv1"}])";
    s.candidates.push_back(c);
  }
  for (const int width : {1000, 275}) {
    KasScatterChart chart;
    chart.resize(width, 250);
    chart.show();
    chart.setSnapshot(s);
    QTest::qWait(50);
    const QRectF plot = chart.chart()->plotArea();
    const QStringList ticks = chart.speedTickTexts();
    ASSERT_GE(ticks.size(), 2);
    const QFontMetrics metrics(chart.chart()->axes(Qt::Horizontal).front()->labelsFont());
    int widest = 0;
    for (const QString& t : ticks) widest = std::max(widest, metrics.horizontalAdvance(t));
    EXPECT_LE(widest * (ticks.size() - 1), plot.width())
        << width << " px: " << ticks.join(' ').toStdString();
    if (width == 1000) {
      EXPECT_EQ(chart.speedAxisBase(), 2.0) << ticks.join(' ').toStdString();
    } else {  // fewer ticks, each label whole
      EXPECT_GT(chart.speedAxisBase(), 2.0) << ticks.join(' ').toStdString();
    }
    EXPECT_TRUE(chart.speedLabel().startsWith(QStringLiteral("oneDNN")))
        << chart.speedLabel().toStdString();
    EXPECT_TRUE(plot.contains(chart.speedLabelRect()))
        << width << " px: " << chart.speedLabel().toStdString();
    if (width == 1000) {
      EXPECT_EQ(chart.speedLabel(), QStringLiteral("oneDNN convolution (1×)"));
    }
  }
}

// With no kernel, or one not tuned, the Tuning tab once drew empty axes (log 0.01..1 over trials
// 1..2) under its title: a sentence stands in their place.
TEST(KasTuningChart, SaysWhyInsteadOfDrawingEmptyAxes) {
  KasTuningChart chart;
  chart.resize(500, 300);
  chart.show();
  EXPECT_FALSE(chart.placeholder().isEmpty());
  for (QAbstractAxis* axis : chart.chart()->axes()) EXPECT_FALSE(axis->isVisible());
  KasCandidateRow c;
  c.seq = 4;
  c.stage = KasStage::Sampled;
  chart.setCandidate(&c);
  EXPECT_TRUE(chart.placeholder().contains("Not tuned")) << chart.placeholder().toStdString();
  c.stage = KasStage::Tuned;
  c.tuningJson = nlohmann::json::array({tunedLayer("layer1.0.conv1", 0.5, 0.9)}).dump();
  chart.setCandidate(&c);
  EXPECT_TRUE(chart.placeholder().isEmpty());
  for (QAbstractAxis* axis : chart.chart()->axes()) EXPECT_TRUE(axis->isVisible());
  chart.setCandidate(nullptr);
  EXPECT_FALSE(chart.placeholder().isEmpty());
  EXPECT_EQ(chart.layerCount(), 0);
}

// The walk's search: every trial at a layer (0.368 ms) slower than the start schedule (0.0414 ms),
// which the kernel is counted with (its "ms", the Source tab's "tuned over 2 trials: 0.0414 ms").
// The chart drew the layer flat at 0.37 ms; it starts from the start schedule at trial 0 and
// ends at the time that counts.
TEST(KasTuningChart, TheCurveStartsAtTheStartScheduleAndEndsAtTheTimeThatCounts) {
  KasTuningChart chart;
  KasCandidateRow c;
  c.seq = 1;
  c.stage = KasStage::Tuned;
  nlohmann::json layer = tunedLayer("layer1.0.conv1", 0.0414, 0.05);
  layer["default_ms"] = 0.0414;
  layer["curve_ms"] = {0.368, 0.368};
  layer["trials"] = 2;
  c.tuningJson = nlohmann::json::array({layer}).dump();
  chart.setCandidate(&c);
  ASSERT_EQ(chart.layerCount(), 1);
  const QList<QPointF> curve = chart.layerCurve(0);
  ASSERT_EQ(curve.size(), 3);
  EXPECT_EQ(curve.front(), QPointF(0, 0.0414));
  EXPECT_DOUBLE_EQ(curve.back().x(), 2);
  EXPECT_DOUBLE_EQ(curve.back().y(), 0.0414);
  auto* y = qobject_cast<QLogValueAxis*>(chart.chart()->axes(Qt::Vertical).front());
  ASSERT_TRUE(y);
  EXPECT_LE(y->min(), 0.0414);

  // A tuner that beats the start schedule: its best from the trial it did so.
  layer["curve_ms"] = {0.05, 0.03};
  c.tuningJson = nlohmann::json::array({layer}).dump();
  chart.setCandidate(&c);
  EXPECT_EQ(chart.layerCurve(0), (QList<QPointF>{{0, 0.0414}, {1, 0.0414}, {2, 0.03}}));
}

}  // namespace
}  // namespace opevo::ui
