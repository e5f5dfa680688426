// What a new user found on the Kernels page at 1024x700: no field for the test images, window
// defaults other than the CLI's, a FLOPs share of 0.4% beside the CLI's "0%", a tuning chart whose
// five points for four trials and dashed lines went unexplained, and labels cut short.

#include <gtest/gtest.h>

#include <QChart>
#include <QFontMetrics>
#include <QHeaderView>
#include <QLegend>
#include <QLegendMarker>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>
#include <nlohmann/json.hpp>

#include "gui_test_support.h"
#include "kas/kas_json.h"
#include "kas/kas_search.h"
#include "kas/sampler.h"
#include "kas/share_text.h"
#include "store/store.h"
#include "ui/charts/kas_scatter_chart.h"
#include "ui/charts/kas_training_chart.h"
#include "ui/charts/kas_tuning_chart.h"
#include "ui/models/kas_candidate_model.h"
#include "ui/pages/kernels_page.h"
#include "ui/widgets/kas_search_panel.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

TEST(KasSearchPanel, HasTheTestImagesFieldAndStartsAtTheCliDefaults) {
  KasSearchPanel panel;
  const kas::KasSearchSettings cli;
  ASSERT_TRUE(panel.findChild<QSpinBox*>(QStringLiteral("kasTestImagesBox")));
  EXPECT_EQ(panel.testImagesBox()->value(), cli.training.testImages);
  EXPECT_EQ(panel.candidatesBox()->value(), cli.candidates);
  EXPECT_EQ(panel.trialsBox()->value(), cli.trials);
  EXPECT_EQ(panel.epochsBox()->value(), cli.training.epochs);
  EXPECT_EQ(panel.imagesBox()->value(), cli.training.trainImages);
  // Left as it is, the form is the CLI's search.
  EXPECT_EQ(panel.settings().toJson(), cli.toJson());
  // The CLI's --test-images range, and the value reaches the search's settings.
  EXPECT_EQ(panel.testImagesBox()->minimum(), 1);
  EXPECT_EQ(panel.testImagesBox()->maximum(), 10000);
  panel.testImagesBox()->setValue(500);
  EXPECT_EQ(panel.settings().training.testImages, 500);
}

// "tuned over 4 trials" beside five points read as an off-by-one: the fifth is the start
// schedule at trial 0, and the legend now says so, and names the dashed lines.
TEST(KasTuningChart, FourTrialsAreFivePointsFromTheStartScheduleAndTheLegendNamesEveryMark) {
  KasTuningChart chart;
  chart.resize(490, 215);  // its size in a 1024x700 window
  chart.show();
  KasCandidateRow c;
  c.seq = 1;
  c.stage = KasStage::Tuned;
  nlohmann::json layers = nlohmann::json::array();
  for (const char* name : {"layer1.0.conv1", "layer2.0.conv2"})
    layers.push_back({{"layer", name},
                      {"count", 3},
                      {"ms", 0.05},
                      {"default_ms", 0.1},
                      {"conv_ms", 0.99},
                      {"conv", std::string("oneDNN 2.6.3 convolution of ") + name},
                      {"trials", 4},
                      {"curve_ms", {0.2, 0.1, 0.08, 0.05}}});
  c.tuningJson = layers.dump();
  chart.setCandidate(&c);
  ASSERT_EQ(chart.layerCount(), 2);
  for (int layer = 0; layer < 2; ++layer) {
    const QList<QPointF> curve = chart.layerCurve(layer);
    ASSERT_EQ(curve.size(), 5);
    EXPECT_EQ(curve.front(), QPointF(0, 0.1));
    EXPECT_DOUBLE_EQ(curve.back().x(), 4);
  }
  EXPECT_EQ(chart.trialRange(), QPointF(0, 4));
  // The legend lays its markers out once the events are processed.
  EXPECT_TRUE(waitUntil([&] { return !chart.legendNames().isEmpty(); }));
  const QStringList names = chart.legendNames();
  EXPECT_TRUE(names.contains(QStringLiteral("oneDNN convolution")))
      << names.join(',').toStdString();
  EXPECT_TRUE(names.contains(QStringLiteral("start schedule (trial 0)")))
      << names.join(',').toStdString();
  auto* x = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).front());
  ASSERT_TRUE(x);
  EXPECT_TRUE(x->titleText().contains(QStringLiteral("0: start"))) << x->titleText().toStdString();
}

TEST(KasCandidateModel, TheFlopsShareReadsAsTheCliPrintsItAndNeverZero) {
  KasCandidateModel model;
  KasSnapshot s;
  s.searchId = 1;
  auto row = std::make_shared<KasCandidateRow>();
  row->seq = 1;
  row->hash = "5fdbc271d719e9f2";
  row->groups = 4;
  row->flopsRatio = 0.004;
  s.candidates.push_back(row);
  model.setSnapshot(s);
  const QString text = model.index(0, KasCandidateModel::FlopsColumn).data().toString();
  EXPECT_EQ(text.toStdString(), kas::shareText(0.004));
  EXPECT_EQ(text, QStringLiteral("0.40%"));
}

// At 1024x700 the table showed "5fdb…" and "sa…", and the training chart's axis "test accurac…".
TEST(KernelsPageLabels, TheTableAndTheTrainingChartReadWholeAt1024x700) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const std::string db = dir.filePath(QStringLiteral("opevo.db")).toStdString();
  {
    Store store(db);
    kas::KasSearchSettings settings;
    settings.candidates = 2;
    KasSearchRecord r;
    r.network = settings.network;
    r.settingsJson = settings.toJson().dump();
    const auto id = store.createKasSearch(r);
    const auto kernels = kas::sampleDistinct(3, 1, {}, [](const kas::MicroDag&) { return true; });
    ASSERT_EQ(kernels.size(), 1u);
    KasCandidateRow c;
    c.searchId = id;
    c.seq = 1;
    c.hash = "5fdbc271d719e9f2";
    c.kernelJson = kas::kernelToJson(kernels[0]).dump();
    c.groups = 4;
    c.flopsRatio = 0.004;
    c.stage = KasStage::Sampled;
    store.putKasCandidate(c);
    store.setKasSearchStatus(id, RunStatus::Interrupted);
  }
  KernelsPage page;
  page.resize(1024, 640);
  page.show();
  page.setStorePath(QString::fromStdString(db));
  ASSERT_TRUE(waitUntil([&] { return page.shownSearch() > 0 && !page.loading(); }));
  QTableView* table = page.candidateTable();
  const auto fits = [&](int column) {
    const QModelIndex i = page.candidateModel()->index(0, column);
    QFont font = table->font();
    if (const QVariant f = i.data(Qt::FontRole); f.isValid()) font = f.value<QFont>();
    return table->columnWidth(column) >=
           QFontMetrics(font).horizontalAdvance(i.data().toString()) + 4;
  };
  EXPECT_TRUE(fits(KasCandidateModel::HashColumn))
      << table->columnWidth(KasCandidateModel::HashColumn);
  EXPECT_TRUE(fits(KasCandidateModel::StageColumn))
      << table->columnWidth(KasCandidateModel::StageColumn);
  auto* y = qobject_cast<QValueAxis*>(page.trainingChart()->chart()->axes(Qt::Vertical).front());
  ASSERT_TRUE(y);
  EXPECT_EQ(y->titleText(), QStringLiteral("accuracy"));
}

// A trained candidate as the search stores it.
KasCandidatePtr trained(int seq, double speedup, double accuracy, bool diverged, bool early) {
  auto c = std::make_shared<KasCandidateRow>();
  c->seq = seq;
  c->hash = std::string(15, '0') + std::to_string(seq);
  c->stage = KasStage::Trained;
  c->kernelMs = 1;
  c->convMs = speedup;
  c->accuracy = accuracy;
  c->stoppedEarly = early;
  c->trainingJson = nlohmann::json{{"curve", {accuracy}}, {"diverged", diverged}}.dump();
  return c;
}

// The legend's names, and whether they fit below the plot: each marker's square and spacing take
// about two line heights.
bool legendFits(KasScatterChart& chart, QString* names) {
  QString all;
  int markers = 0;
  for (QLegendMarker* m : chart.chart()->legend()->markers())
    if (m->isVisible()) {
      all += m->label();
      names->append(m->label() + QLatin1Char(' '));
      ++markers;
    }
  const QFontMetrics fm(chart.chart()->legend()->font());
  return fm.horizontalAdvance(all) <= chart.width() - markers * 2 * fm.height();
}

// At 1024x700 the chart is about 275 pixels wide: the walk's search (one kernel on the front, one
// whose training diverged) read "trained, stopped, diver..., front". The legend names the kinds
// the plot has.
TEST(KasScatterChartLegend, NamesOnlyTheKindsPlottedAndFitsAt1024x700) {
  KasScatterChart chart;
  chart.resize(275, 270);
  chart.show();
  KasSnapshot s;
  s.searchId = 1;
  s.baselineAccuracy = 0.648;
  s.candidates = {trained(1, 9.09, 0.444, false, false), trained(2, 0.36, 0.11, true, false)};
  chart.setSnapshot(s);
  QTest::qWait(50);
  QString names;
  EXPECT_TRUE(legendFits(chart, &names)) << names.toStdString();
  EXPECT_EQ(names.trimmed(), QStringLiteral("diverged front"));
  // Every kind at once still fits there.
  s.candidates.push_back(trained(3, 2, 0.3, false, false));
  s.candidates.push_back(trained(4, 1, 0.2, false, true));
  chart.setSnapshot(s);
  QTest::qWait(50);
  names.clear();
  EXPECT_TRUE(legendFits(chart, &names)) << names.toStdString();
  EXPECT_EQ(names.split(' ', Qt::SkipEmptyParts).size(), 4) << names.toStdString();
}

}  // namespace
}  // namespace opevo::ui
