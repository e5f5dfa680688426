// The Layouts tab of the kernel export dialog: a stored run that tuned layouts (ALT's joint mode)
// shows its best configuration's input, weight and output layouts; a loop-only run has no tab. And
// a run of Winograd's template is written for every backend.

#include "ui/widgets/layout_view.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QImage>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTemporaryDir>

#include "common/rng.h"
#include "gui_test_support.h"
#include "layout/conv2d_layout.h"
#include "ops/operator_json.h"
#include "ops/presets.h"
#include "store/store.h"
#include "ui/widgets/kernel_export_dialog.h"

namespace opevo::ui {
namespace {

// A finished run of one trial in a real database file: the configuration as the tuner stored it.
std::int64_t storeRun(Store& store, const OperatorDefinition& def, const Config& config,
                      const std::string& backend = "cpu") {
  RunRecord run;
  run.operatorName = def.op.name;
  run.operatorJson = operatorDefinitionToJson(def).dump();
  run.algorithm = "opevo-m";
  run.settingsJson = "{}";
  run.backend = backend;
  run.device = "this CPU";
  run.budgetJson = R"({"trials": 1})";
  run.status = RunStatus::Finished;
  run.speedUnit = "GFLOP/s";
  run.label = "cpu";
  TrialRow t;
  t.seq = 1;
  t.order = 1;
  t.config = def.space.format(config);
  t.timesMs = {1.0};
  t.medianMs = 1.0;
  t.speed = 100;
  t.started = t.finished = Store::nowUtc();
  return store.createRunWithTrials(run, {t});
}

TEST(LayoutView, AJointRunShowsItsBestLayouts) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("opevo.db"));
  Store store(path.toStdString());
  const OperatorDefinition joint =
      withTuningMode(loadOperator("resnet18_conv4_b1"), layout::TuningMode::Joint);
  ASSERT_TRUE(joint.space.startPoint().has_value());
  const std::int64_t id = storeRun(store, joint, *joint.space.startPoint());
  KernelExportDialog dialog(path, *store.run(id));
  dialog.show();
  ASSERT_EQ(dialog.tabs()->count(), 2);
  EXPECT_TRUE(dialog.tabs()->isTabVisible(1));
  EXPECT_EQ(dialog.tabs()->tabText(1), QStringLiteral("Layouts"));
  EXPECT_TRUE(dialog.showTab(QStringLiteral("layouts")));
  EXPECT_EQ(dialog.tabs()->currentIndex(), 1);
  ASSERT_EQ(dialog.layoutViews().size(), 3u);
  // What the views say is what core/layout says of the same configuration.
  const layout::OperandLayouts want = layout::conv2dLayouts(
      joint.op, layout::conv2dBlocking(joint.op, joint.space, *joint.space.startPoint()));
  const layout::Layout* layouts[] = {&want.a, &want.b, &want.c};
  for (std::size_t i = 0; i < 3; ++i) {
    LayoutView* v = dialog.layoutViews()[i];
    EXPECT_EQ(v->primitivesText().toStdString(), layouts[i]->describe());
    EXPECT_TRUE(v->addressText().contains(QStringLiteral("address of")));
    EXPECT_GT(v->grid()->picture().rows, 0);
    EXPECT_TRUE(v->grid()->isVisible());
  }
  // The start blocking keeps 32 input channels and 2 vectors of output channels per block, so
  // the weight plane (f x c) is cut into several tiles.
  EXPECT_GT(dialog.layoutViews()[1]->grid()->picture().tiles, 1);
  EXPECT_TRUE(dialog.layoutViews()[1]->primitivesText().contains(QStringLiteral("split")));
  const QImage shot = dialog.grab().toImage();
  EXPECT_FALSE(shot.isNull());
}

TEST(LayoutView, ALoopOnlyRunHasNoLayoutsTab) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("opevo.db"));
  Store store(path.toStdString());
  const OperatorDefinition loops = loadOperator("resnet18_conv4_b1");
  Rng rng(3);
  const auto config = loops.space.randomValid(rng, 10000);
  ASSERT_TRUE(config.has_value());
  const std::int64_t id = storeRun(store, loops, *config);
  KernelExportDialog dialog(path, *store.run(id));
  dialog.show();
  EXPECT_FALSE(dialog.tabs()->isTabVisible(1));
  EXPECT_FALSE(dialog.showTab(QStringLiteral("layouts")));
  EXPECT_TRUE(dialog.showTab(QStringLiteral("source")));
  EXPECT_TRUE(dialog.sourceView()->toPlainText().contains(QStringLiteral("opevo_cpu_kernel")));
}

TEST(LayoutView, AWinogradRunIsWrittenForEveryBackend) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("opevo.db"));
  Store store(path.toStdString());
  const OperatorDefinition winograd =
      withSpaceTarget(loadOperator("resnet18_conv4_b1"), SpaceTarget::Winograd);
  const std::int64_t id =
      storeRun(store, winograd, untunedConfig(winograd.space), std::string("cuda"));
  KernelExportDialog dialog(path, *store.run(id));
  dialog.show();
  const auto* model = qobject_cast<QStandardItemModel*>(dialog.backendBox()->model());
  ASSERT_NE(model, nullptr);
  const int cpu = dialog.backendBox()->findData(QStringLiteral("cpu"));
  EXPECT_TRUE(model->item(cpu)->isEnabled());
  EXPECT_TRUE(model->item(dialog.backendBox()->findData(QStringLiteral("cuda")))->isEnabled());
  EXPECT_EQ(dialog.backendBox()->currentData().toString(), QStringLiteral("cuda"));
  EXPECT_TRUE(dialog.sourceView()->toPlainText().contains(QStringLiteral("Winograd F(4x4, 3x3)")));
  EXPECT_FALSE(dialog.tabs()->isTabVisible(1));
  // The same configuration for the CPU: its kernel, and the weights' transform it exports.
  dialog.backendBox()->setCurrentIndex(cpu);
  const QString source = dialog.sourceView()->toPlainText();
  EXPECT_TRUE(source.contains(QStringLiteral("Winograd F(4x4, 3x3)"))) << source.toStdString();
  EXPECT_TRUE(source.contains(QStringLiteral("opevo_cpu_kernel_pack_b")));
}

}  // namespace
}  // namespace opevo::ui
