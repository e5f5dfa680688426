// The kernel export dialog keeps a folder typed into it for the next export, and the Networks
// page's task table writes a tiny task's work with a prefix that shows it.

#include <gtest/gtest.h>

#include <QDir>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>

#include "gui_test_support.h"
#include "one_trial_run.h"
#include "ops/operator_json.h"
#include "ops/presets.h"
#include "store/store.h"
#include "ui/models/network_task_model.h"
#include "ui/widgets/display_format.h"
#include "ui/widgets/kernel_export_dialog.h"
#include "ui/widgets/session_memory.h"
#include "unit/temp_dir.h"

namespace opevo::ui {
namespace {

std::int64_t storeCpuRun(Store& store) {
  return opevo::test::storeOneTrialRun(store, "cpu");
}

void typeFolder(KernelExportDialog& dialog, const QString& folder) {
  QLineEdit* edit = dialog.folderEdit();
  edit->selectAll();
  QTest::keyClicks(edit, folder);  // typed, as a user does: textEdited, not setText
}

// The folder typed was forgotten: the next export proposed Documents/opevo-exports/run-N again.
TEST(KernelExportFolder, ATypedFolderIsProposedForTheNextExport) {
  opevo::test::TempDir dir;
  const QString db = QString::fromStdString(dir.file("opevo.db"));
  Store store(db.toStdString());
  const std::int64_t first = storeCpuRun(store);
  const std::int64_t second = storeCpuRun(store);
  setSessionMemoryPersists(true);

  // Typed and exported into: the same folder next time for that run, and a run folder inside it
  // for another (an export's files have fixed names: the second would overwrite the first's).
  const QString mine = QString::fromStdString(dir.file("my kernels"));
  {
    KernelExportDialog dialog(db, *store.run(first));
    typeFolder(dialog, mine);
    QSignalSpy exported(&dialog, &KernelExportDialog::exported);
    dialog.exportNow();
    ASSERT_TRUE(test::waitUntil([&] { return !dialog.busy(); }, 30000));
    ASSERT_EQ(exported.size(), 1) << dialog.message().toStdString();
  }
  {
    KernelExportDialog dialog(db, *store.run(first));
    EXPECT_EQ(dialog.folderEdit()->text(), mine);
  }
  {
    KernelExportDialog dialog(db, *store.run(second));
    EXPECT_EQ(dialog.folderEdit()->text(),
              QDir(mine).filePath(QStringLiteral("run-%1").arg(second)));
  }
  EXPECT_EQ(QSettings().value(QStringLiteral("kernelExport/folder")).toString(), mine);

  // Typed and closed without exporting: still kept. A folder named after its run, as the default
  // is, becomes the next run's sibling, so one run's files do not overwrite another's.
  const QString perRun = QString::fromStdString(dir.file("per-run/run-%1")).arg(first);
  {
    KernelExportDialog dialog(db, *store.run(first));
    typeFolder(dialog, perRun);
    dialog.reject();
  }
  {
    KernelExportDialog dialog(db, *store.run(first));
    EXPECT_EQ(dialog.folderEdit()->text(), perRun);
  }
  {
    KernelExportDialog dialog(db, *store.run(second));
    EXPECT_EQ(dialog.folderEdit()->text(),
              QString::fromStdString(dir.file("per-run/run-%1")).arg(second));
  }

  // --no-restore: kept for the session, written nowhere.
  setSessionMemoryPersists(false);
  const QString session = QString::fromStdString(dir.file("session only"));
  {
    KernelExportDialog dialog(db, *store.run(first));
    typeFolder(dialog, session);
    dialog.reject();
  }
  {
    KernelExportDialog dialog(db, *store.run(first));
    EXPECT_EQ(dialog.folderEdit()->text(), session);
  }
  EXPECT_EQ(QSettings().value(QStringLiteral("kernelExport/folder")).toString(), perRun);
  setSessionMemoryPersists(true);
}

TEST(FlopFormat, ThePrefixScalesAndFourDigitsShow) {
  EXPECT_EQ(formatWithPrefix(0), QStringLiteral("0"));
  EXPECT_EQ(formatWithPrefix(512), QStringLiteral("512.0"));
  EXPECT_EQ(formatWithPrefix(2e5), QStringLiteral("200.0k"));
  EXPECT_EQ(formatWithPrefix(1.5e6), QStringLiteral("1.500M"));
  EXPECT_EQ(formatWithPrefix(2.5e7), QStringLiteral("25.00M"));
  EXPECT_EQ(formatWithPrefix(3.7e9), QStringLiteral("3.700G"));
  EXPECT_EQ(formatWithPrefix(4.1e12), QStringLiteral("4.100T"));
  // Rounded up to the next prefix's 1, never "1,000.0M".
  EXPECT_EQ(formatWithPrefix(999.97e6), QStringLiteral("1.000G"));
}

// A tiny network's tasks read "GFLOP 0.000"; the raw value (for sorting) stays in GFLOP.
TEST(FlopFormat, TheTaskTableShowsATinyTasksWork) {
  NetworkTaskModel model;
  NetworkTaskInfo tiny;
  tiny.name = QStringLiteral("fc");
  tiny.kind = QStringLiteral("dense");
  tiny.gflops = 0.000128;  // a 64x1 dense layer at batch 1
  NetworkTaskInfo big = tiny;
  big.name = QStringLiteral("conv");
  big.gflops = 3.7;
  model.setTasks({tiny, big});
  const QModelIndex small = model.index(0, NetworkTaskModel::FlopColumn);
  EXPECT_EQ(small.data().toString(), QStringLiteral("128.0k"));
  EXPECT_DOUBLE_EQ(small.data(NetworkTaskModel::RawRole).toDouble(), 0.000128);
  EXPECT_EQ(model.index(1, NetworkTaskModel::FlopColumn).data().toString(),
            QStringLiteral("3.700G"));
  EXPECT_EQ(model.headerData(NetworkTaskModel::FlopColumn, Qt::Horizontal).toString(),
            QStringLiteral("FLOP"));
}

}  // namespace
}  // namespace opevo::ui
