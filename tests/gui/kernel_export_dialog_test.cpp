// The kernel export dialog (History -> Export) in a small window, and for a replay run.

#include "ui/widgets/kernel_export_dialog.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFormLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>

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

// The kernel's date: "// Exported by OpEvo Studio V on DATE" in its first line.
QString kernelDate(const QString& source) {
  return source.section(QLatin1Char('\n'), 0, 0).section(QLatin1Char(' '), -1);
}

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The walk: the heading said "Best: 95.85 GFLOP/s at trial 8" where History listed the run's
// best as 99.08 (trial 31), the side-by-side timing having chosen trial 8.
TEST(KernelExportDialog, TheHeadingNamesTheExportedTrialBesideTheFastest) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("opevo.db"));
  Store store(path.toStdString());
  const std::int64_t id = storeRun(store, "cpu");
  // A second, slower trial that the side-by-side timing found faster.
  RunRecord run = *store.run(id);
  std::vector<TrialRow> trials = store.trials(id);
  trials.push_back(trials[0]);
  trials[1].seq = trials[1].order = 2;
  trials[1].speed = 95.85;
  const OperatorDefinition def =
      operatorDefinitionFromJson(nlohmann::json::parse(run.operatorJson), "test");
  Rng rng(2);
  while (trials[1].config == trials[0].config)
    trials[1].config = def.space.format(*def.space.randomValid(rng, 10000));
  trials[0].speed = 99.08;
  const std::int64_t chosen = store.createRunWithTrials(run, trials);
  store.setRunSideBySide(
      chosen,
      nlohmann::json{{"config", trials[1].config}, {"chosen_rank", 2}, {"candidates", 2}}.dump());
  KernelExportDialog dialog(path, *store.run(chosen));
  const QString heading = dialog.findChild<QLabel*>(QStringLiteral("exportHeading"))->text();
  EXPECT_FALSE(heading.contains(QStringLiteral("Best"))) << heading.toStdString();
  EXPECT_TRUE(heading.contains(QStringLiteral(
      "Exports: <b>trial 2, 95.85 GFLOP/s (chosen side by side over trial 1's 99.08 GFLOP/s)")))
      << heading.toStdString();
}

// The walk: kernel.cpp said the preview's time, record.json the write's, 9 s later; and an export
// into a folder holding an earlier one overwrote it unasked.
TEST(KernelExportDialog, AnExportIsDatedWhenWrittenAndReplacesAnEarlierOneOnlyWhenAsked) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("opevo.db"));
  Store store(path.toStdString());
  const std::int64_t id = storeRun(store, "cpu");
  KernelExportDialog dialog(path, *store.run(id));
  const QString previewed = kernelDate(dialog.sourceView()->toPlainText());
  QThread::msleep(20);  // dates have milliseconds: the write's differs from the preview's
  const QString out = dir.filePath(QStringLiteral("out"));
  dialog.folderEdit()->setText(out);
  QSignalSpy exported(&dialog, &KernelExportDialog::exported);
  QSignalSpy failed(&dialog, &KernelExportDialog::failed);
  dialog.exportNow();
  ASSERT_TRUE(test::waitUntil([&] { return !dialog.busy(); }, 30000));
  ASSERT_EQ(exported.size(), 1) << dialog.message().toStdString();
  const QString kernel = QDir(out).filePath(QStringLiteral("kernel.cpp"));
  const QString date = kernelDate(QString::fromUtf8(readAll(kernel)));
  const QJsonObject record =
      QJsonDocument::fromJson(readAll(QDir(out).filePath(QStringLiteral("record.json")))).object();
  EXPECT_EQ(date, record.value(QStringLiteral("exported")).toString());
  EXPECT_GT(date, previewed);

  // Again into the same folder: refused, the files named, and the button offers to replace them.
  {
    QFile edited(kernel);
    ASSERT_TRUE(edited.open(QIODevice::WriteOnly));
    edited.write("// edited\n");
  }
  dialog.exportNow();
  ASSERT_TRUE(test::waitUntil([&] { return !dialog.busy(); }, 30000));
  EXPECT_EQ(failed.size(), 1);
  EXPECT_TRUE(dialog.message().contains(QStringLiteral("already holds an export")) &&
              dialog.message().contains(QStringLiteral("kernel.cpp")) &&
              dialog.message().contains(out))
      << dialog.message().toStdString();
  EXPECT_EQ(readAll(kernel), "// edited\n");
  EXPECT_EQ(dialog.exportButton()->text(), QStringLiteral("&Replace"));
  dialog.exportNow();
  ASSERT_TRUE(test::waitUntil([&] { return !dialog.busy(); }, 30000));
  ASSERT_EQ(exported.size(), 2) << dialog.message().toStdString();
  EXPECT_TRUE(readAll(kernel).startsWith("// Exported by OpEvo Studio"));
  EXPECT_EQ(dialog.exportButton()->text(), QStringLiteral("&Export"));
}

}  // namespace
}  // namespace opevo::ui
