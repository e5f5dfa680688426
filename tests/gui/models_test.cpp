#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QSignalSpy>

#include "gui_test_support.h"
#include "ops/presets.h"
#include "space/param_spec.h"
#include "ui/jobs/qwalk_runner.h"
#include "ui/models/parameter_model.h"
#include "ui/models/preset_model.h"
#include "ui/models/qwalk_model.h"
#include "ui/widgets/display_format.h"

namespace opevo::ui {
namespace {

using Tester = QAbstractItemModelTester;
using test::ModelTestFailures;

TEST(PresetTableModel, ListsThePaperPresetsWithTheirDescriptions) {
  ModelTestFailures warnings;
  PresetTableModel model;
  Tester tester(&model, Tester::FailureReportingMode::Warning);
  const std::vector<std::string> names = presetNames();
  // The paper's eight first, then AlexNet's layers (8 at batch 1, 8 at 128), ResNet-18's 4 and
  // MobileNetV2's 2 depthwise ones.
  ASSERT_EQ(model.rowCount(), static_cast<int>(names.size()));
  ASSERT_EQ(names.size(), 30u);
  EXPECT_EQ(model.index(0, 0).data().toString(), "MM1");
  EXPECT_EQ(model.index(7, 0).data().toString(), "C2");
  for (int r = 0; r < model.rowCount(); ++r) {
    const OperatorSpec op = preset(names[static_cast<std::size_t>(r)]);
    EXPECT_EQ(model.index(r, PresetTableModel::NameColumn).data().toString().toStdString(),
              op.name);
    EXPECT_EQ(model.index(r, PresetTableModel::DescriptionColumn).data().toString().toStdString(),
              op.describe());
    EXPECT_FALSE(model.index(r, PresetTableModel::FlopColumn).data().toString().isEmpty());
  }
  // Each operator's work with its prefix, small ones too (a depthwise layer read "0.00" GFLOP).
  EXPECT_EQ(model.headerData(PresetTableModel::FlopColumn, Qt::Horizontal).toString(), "FLOP");
  EXPECT_EQ(model.index(model.rowOf("MM1"), PresetTableModel::FlopColumn).data().toString(),
            "1.074G");
  EXPECT_EQ(model.index(model.rowOf("mobilenet_v2_dw8_b1"), PresetTableModel::FlopColumn)
                .data()
                .toString(),
            "1.355M");
  EXPECT_EQ(model.rowOf("BMM2"), 4);
  EXPECT_EQ(model.rowOf("nope"), -1);
  EXPECT_TRUE(warnings.messages().isEmpty()) << warnings.messages().join('\n').toStdString();
}

TEST(ParameterTableModel, ShowsNameKindSpecAndSizeAcrossSpaces) {
  ModelTestFailures warnings;
  ParameterTableModel model;
  Tester tester(&model, Tester::FailureReportingMode::Warning);
  EXPECT_EQ(model.rowCount(), 0);
  model.setSpace(defaultSpace(preset("MM1")));
  ASSERT_EQ(model.rowCount(), 3);
  auto cell = [&](int r, int c) { return model.index(r, c).data().toString(); };
  EXPECT_EQ(cell(2, ParameterTableModel::NameColumn), "tile_k");
  EXPECT_EQ(cell(2, ParameterTableModel::KindColumn), "factor");
  EXPECT_EQ(cell(2, ParameterTableModel::SpecColumn), "factor:1024:3");
  // 1024 = 2^10 spread over 3 ordered factors: C(12, 2) = 66.
  EXPECT_EQ(cell(2, ParameterTableModel::SizeColumn), "66");
  model.setSpace(defaultSpace(preset("C1")));
  ASSERT_EQ(model.rowCount(), 8);
  EXPECT_EQ(cell(6, ParameterTableModel::KindColumn), "discrete");
  EXPECT_EQ(cell(7, ParameterTableModel::KindColumn), "choice");
  EXPECT_TRUE(warnings.messages().isEmpty()) << warnings.messages().join('\n').toStdString();
}

TEST(QwalkTableModel, SortsNearestFirstThenLikeliestAndSumsToOne) {
  ModelTestFailures warnings;
  QwalkTableModel model;
  Tester tester(&model, Tester::FailureReportingMode::Warning);
  const ParameterPtr param = makeParameter("f", "factor:8:3");
  model.setResult(QwalkRunner::compute({param, param->parse("8,1,1"), 0.5}));
  // The OpEvo paper's figure 2: ordered triples with product 8, ten of them.
  ASSERT_EQ(model.rowCount(), 10);
  EXPECT_EQ(model.index(0, QwalkTableModel::VertexColumn).data().toString(), "8,1,1");
  EXPECT_EQ(model.index(0, QwalkTableModel::DistanceColumn).data().toInt(), 0);
  const auto distance =
      test::column(model, QwalkTableModel::DistanceColumn, QwalkTableModel::RawRole);
  const auto p = test::column(model, QwalkTableModel::ProbabilityColumn, QwalkTableModel::RawRole);
  double total = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    total += p[i];
    if (i == 0) continue;
    EXPECT_LE(distance[i - 1], distance[i]) << "row " << i;
    if (distance[i - 1] == distance[i]) {
      EXPECT_GE(p[i - 1], p[i]) << "row " << i;
    }
  }
  EXPECT_NEAR(total, 1.0, 1e-9);
  // Degree is the number of neighbours: from 8,1,1 one factor 2 moves to either other slot.
  EXPECT_EQ(model.index(0, QwalkTableModel::DegreeColumn).data().toInt(), 2);
  model.clear();
  EXPECT_EQ(model.rowCount(), 0);
  EXPECT_TRUE(warnings.messages().isEmpty()) << warnings.messages().join('\n').toStdString();
}

TEST(QwalkRunner, ReportsOnlyTheNewestRequest) {
  QwalkRunner runner;
  QSignalSpy spy(&runner, &QwalkRunner::finished);
  const ParameterPtr param = makeParameter("", "perm:7");
  for (double q : {0.1, 0.2, 0.3, 0.4, 0.95}) runner.request({param, param->first(), q});
  EXPECT_TRUE(runner.busy());
  ASSERT_TRUE(test::waitUntil([&] { return !runner.busy(); }));
  QTest::qWait(50);  // a stale report would arrive now
  ASSERT_EQ(spy.count(), 1);
  const auto result = spy.at(0).at(0).value<std::shared_ptr<const QwalkResult>>();
  ASSERT_TRUE(result);
  EXPECT_DOUBLE_EQ(result->request.q, 0.95);
  EXPECT_EQ(result->order.size(), 5040u);
  EXPECT_NEAR(result->total, 1.0, 1e-9);
}

TEST(QwalkRunner, CancelDropsTheRunningResult) {
  QwalkRunner runner;
  QSignalSpy spy(&runner, &QwalkRunner::finished);
  const ParameterPtr param = makeParameter("", "perm:7");
  runner.request({param, param->first(), 0.9});
  runner.cancel();
  EXPECT_FALSE(runner.busy());
  QTest::qWait(500);
  EXPECT_EQ(spy.count(), 0);
}

TEST(DisplayFormat, GroupsDigitsAndKeepsSmallProbabilitiesReadable) {
  EXPECT_EQ(groupDigits("4152720"), "4,152,720");
  EXPECT_EQ(groupDigits("100"), "100");
  EXPECT_EQ(groupDigits("1000"), "1,000");
  EXPECT_EQ(groupDigits("more than 3.4e38"), "more than 3.4e38");
  EXPECT_EQ(formatProbability(0.5), "0.5000000000");
  EXPECT_EQ(formatProbability(1.5e-20), "1.5000e-20");
}

}  // namespace
}  // namespace opevo::ui
