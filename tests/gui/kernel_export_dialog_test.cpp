// The kernel export dialog (History -> Export) in a small window, and for a replay run.

#include "ui/widgets/kernel_export_dialog.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QFormLayout>
#include <QMainWindow>
#include <QPlainTextEdit>
#include <QTemporaryDir>

#include "gui_test_support.h"
#include "one_trial_run.h"
#include "ops/operator_json.h"
#include "ops/presets.h"
#include "store/store.h"

namespace opevo::ui {
namespace {

std::int64_t storeRun(Store& store, const std::string& backend) {
  return opevo::test::storeOneTrialRun(store, backend);
}

// At 1024x700 the dialog was 1040 px wide: wider than the window it opened over.
TEST(KernelExportDialog, FitsInsideTheWindowItOpensOver) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("opevo.db"));
  Store store(path.toStdString());
  const std::int64_t id = storeRun(store, "cpu");
  QMainWindow window;
  window.resize(1024, 700);
  KernelExportDialog dialog(path, *store.run(id), &window);
  EXPECT_LT(dialog.width(), window.width());
  EXPECT_LT(dialog.height(), window.height());
  dialog.show();
  EXPECT_LE(dialog.minimumSizeHint().width(), dialog.width());
  EXPECT_TRUE(dialog.backendBox()->isVisible());
  EXPECT_TRUE(dialog.backendBox()->isEnabled());
}

// A replay has no kernel of ours to write for any backend: no greyed "Backend: cpu", and the
// source pane says what is written instead.
TEST(KernelExportDialog, AReplayRunOffersNoBackend) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("opevo.db"));
  Store store(path.toStdString());
  const std::int64_t id = storeRun(store, "replay");
  KernelExportDialog dialog(path, *store.run(id));
  dialog.show();
  EXPECT_FALSE(dialog.backendBox()->isVisible());
  const auto* form = dialog.findChild<QFormLayout*>();
  ASSERT_NE(form, nullptr);
  EXPECT_FALSE(form->labelForField(dialog.backendBox())->isVisible());
  EXPECT_TRUE(dialog.sourceView()->toPlainText().contains(QStringLiteral("replay")))
      << dialog.sourceView()->toPlainText().toStdString();
}

}  // namespace
}  // namespace opevo::ui
