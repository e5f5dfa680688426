// The window's File menu against the command line: a measured file imported from the menu is a
// stored run on History, and a run exported as T4 from the window reads back with
// `opevo import --restore`. Real SQLite files in temporary folders, the real CLI.

#include <gtest/gtest.h>

#include <QAction>
#include <QComboBox>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>

#include "cli_beside.h"
#include "gui_test_support.h"
#include "store/store.h"
#include "ui/main_window.h"
#include "ui/models/history_model.h"
#include "ui/pages/history_page.h"
#include "ui/widgets/measured_file_import.h"
#include "ui/widgets/t4_export_dialog.h"
#include "unit/temp_dir.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

const QString kA100T4 = QStringLiteral(OPEVO_DATASETS_DIR "/convolution_milo/A100_T4.json.gz");
const QString kGemm = QStringLiteral(OPEVO_DATASETS_DIR "/gemm/RTX_2080_Ti.json.gz");

// The window on its own database (Store::defaultPath() reads OPEVO_DB when it is made).
class WindowFileMenuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    qputenv("OPEVO_DB", QByteArray::fromStdString(m_db));
    m_window = std::make_unique<MainWindow>();
    qunsetenv("OPEVO_DB");
    m_window->setRemembersSettings(false);
    m_window->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(m_window.get()));
  }
  void TearDown() override {
    for (QMessageBox* box : m_window->findChildren<QMessageBox*>()) box->close();
    m_window.reset();
  }

  QAction* fileAction(const char* name) {
    for (QAction* menu : m_window->menuBar()->actions())
      if (menu->menu() && menu->text() == QStringLiteral("&File"))
        for (QAction* a : menu->menu()->actions())
          if (a->objectName() == QLatin1String(name)) return a;
    return nullptr;
  }

  std::int64_t importAndWait(const QString& file, MeasuredFileImport::StoreAs as) {
    QSignalSpy imported(m_window->measuredFileImport(), &MeasuredFileImport::imported);
    m_window->measuredFileImport()->importFile(file, as);
    if (!waitUntil([&] { return !imported.isEmpty(); }, 60000)) return 0;
    return imported.first().first().toLongLong();
  }

  // `opevo tune` on the GEMM replay into the window's database, as a user runs it.
  void tuneReplay(const QStringList& args) {
    const test::CliRun cli =
        test::runCli(QStringList{QStringLiteral("tune"), QStringLiteral("--backend"),
                                 QStringLiteral("replay:") + kGemm} +
                     args + QStringList{QStringLiteral("--db"), QString::fromStdString(m_db)});
    ASSERT_EQ(cli.exitCode, 0) << cli.err.toStdString() << cli.out.toStdString();
  }

  // File > Export run as T4…, once its runs are listed; nullptr when it did not open or list them.
  T4ExportDialog* openT4FromTheMenu() {
    fileAction("exportT4Action")->trigger();
    auto* dialog = m_window->findChild<T4ExportDialog*>();
    if (!dialog) return nullptr;
    QSignalSpy listed(dialog, &T4ExportDialog::runsListed);
    return waitUntil([&] { return !listed.isEmpty(); }) ? dialog : nullptr;
  }

  std::int64_t selectedHistoryRun() const {
    const QModelIndexList rows =
        m_window->historyPage()->view()->selectionModel()->selectedRows(HistoryModel::IdColumn);
    return rows.size() == 1 ? rows.first().data().toLongLong() : 0;
  }

  opevo::test::TempDir m_dir;
  std::string m_db = m_dir.file("opevo.db");
  std::unique_ptr<MainWindow> m_window;
};

TEST_F(WindowFileMenuTest, ImportingAMeasuredFileStoresARunThatHistoryShows) {
  ASSERT_NE(fileAction("importAction"), nullptr);
  ASSERT_NE(fileAction("exportT4Action"), nullptr);
  const std::int64_t id = importAndWait(kA100T4, MeasuredFileImport::StoreAs::Ask);
  ASSERT_GT(id, 0);

  const Store store(m_db);
  const std::optional<RunRecord> run = store.run(id);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->backend, "replay-import");
  EXPECT_GT(store.trials(id).size(), 1000u);
  // History comes forward with the new run selected and drawn.
  EXPECT_EQ(m_window->pages()->currentWidget(), m_window->historyPage());
  EXPECT_TRUE(waitUntil([&] { return selectedHistoryRun() == id; }, 30000));
  EXPECT_TRUE(m_window->statusWhole().contains(QStringLiteral("A100_T4.json.gz")))
      << m_window->statusWhole().toStdString();
}

// A file that is not one: nothing stored, and the message names the file and what is wrong.
TEST_F(WindowFileMenuTest, ABadFileStoresNothingAndSaysWhy) {
  const std::string bad = m_dir.file("broken.json");
  {
    std::FILE* f = std::fopen(bad.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("{\"schema_version\": \"1.0.0\", \"results\": [{\"timestamp\": \"x\"}]}", f);
    std::fclose(f);
  }
  QSignalSpy failed(m_window->measuredFileImport(), &MeasuredFileImport::failed);
  m_window->measuredFileImport()->importFile(QString::fromStdString(bad));
  ASSERT_TRUE(waitUntil([&] { return !failed.isEmpty(); }, 30000));
  const QString message = failed.first().first().toString();
  EXPECT_TRUE(message.contains(QStringLiteral("broken.json"))) << message.toStdString();
  // Named by its JSON index, as `opevo import` and `--restore` name it.
  EXPECT_TRUE(
      message.contains(QStringLiteral("results[0] lacks the required field 'configuration'")))
      << message.toStdString();
  EXPECT_NE(m_window->findChild<QMessageBox*>(QStringLiteral("importError")), nullptr);
  EXPECT_TRUE(Store(m_db).runs().empty());
}

// A tuning run (a replay, as `opevo tune` stores it), exported from the window as T4: the CLI
// restores it as that run, and so does the menu when asked to.
TEST_F(WindowFileMenuTest, AT4ExportFromTheWindowIsRestoredByTheCli) {
  ASSERT_NO_FATAL_FAILURE(tuneReplay({QStringLiteral("--algo"), QStringLiteral("opevo-m"),
                                      QStringLiteral("--trials"), QStringLiteral("20")}));
  const std::vector<RunRecord> runs = Store(m_db).runs();
  ASSERT_EQ(runs.size(), 1u);
  const std::int64_t id = runs.front().id;

  // History's selection is the run the dialog offers first.
  m_window->pages()->setCurrentWidget(m_window->historyPage());
  ASSERT_TRUE(waitUntil([&] { return m_window->historyPage()->model()->rowCount() == 1; }));
  ASSERT_TRUE(m_window->historyPage()->selectRuns({id}).empty());
  T4ExportDialog* dialog = openT4FromTheMenu();
  ASSERT_NE(dialog, nullptr);
  EXPECT_EQ(dialog->chosenRun(), id);
  const QString file = QString::fromStdString(m_dir.file("window_T4.json.gz"));
  dialog->fileEdit()->setText(file);
  QSignalSpy exported(dialog, &T4ExportDialog::exported);
  QTest::mouseClick(dialog->exportButton(), Qt::LeftButton);
  ASSERT_TRUE(waitUntil([&] { return !exported.isEmpty() || !dialog->busy(); }, 30000));
  ASSERT_EQ(exported.size(), 1) << dialog->message().toStdString();
  EXPECT_EQ(exported.first().at(2).toLongLong(), 20);
  dialog->close();

  const QString restoredDb = QString::fromStdString(m_dir.file("restored.db"));
  const test::CliRun cli = test::runCli({QStringLiteral("import"), QStringLiteral("--restore"),
                                         file, QStringLiteral("--db"), restoredDb});
  ASSERT_EQ(cli.exitCode, 0) << cli.err.toStdString() << cli.out.toStdString();
  const QString restored = cli.out.trimmed();
  const Store back(restoredDb.toStdString());
  const std::optional<RunRecord> run = back.run(restored.toLongLong());
  ASSERT_TRUE(run) << restored.toStdString();
  EXPECT_EQ(run->algorithm, "opevo-m");
  EXPECT_EQ(run->backend, "replay");
  EXPECT_EQ(back.trials(run->id).size(), 20u);

  // The menu asks how to store our own export; restored into the database that holds its run,
  // it is refused as that run (two copies of one history), and nothing is stored.
  m_window->measuredFileImport()->importFile(file);
  QMessageBox* question = nullptr;
  ASSERT_TRUE(waitUntil([&] {
    question = m_window->findChild<QMessageBox*>(QStringLiteral("importQuestion"));
    return question != nullptr;
  }));
  QSignalSpy failed(m_window->measuredFileImport(), &MeasuredFileImport::failed);
  QTest::mouseClick(question->findChild<QPushButton*>(QStringLiteral("restoreRun")),
                    Qt::LeftButton);
  ASSERT_TRUE(waitUntil([&] { return !failed.isEmpty(); }, 30000));
  const QString message = failed.first().first().toString();
  EXPECT_TRUE(message.contains(QStringLiteral("run %1 of ").arg(id))) << message.toStdString();
  EXPECT_TRUE(message.contains(QStringLiteral("is this file's run already")))
      << message.toStdString();
  EXPECT_EQ(Store(m_db).runs().size(), 1u);
}

// History's run with no trial (a network's task its budget never reached): the dialog offers it,
// says at once that it has nothing to write, and exports another run once chosen. Export was on,
// and the file was refused only once clicked.
TEST_F(WindowFileMenuTest, AT4ExportOfARunWithNoTrialSaysSoBeforeExportIsClicked) {
  ASSERT_NO_FATAL_FAILURE(tuneReplay({QStringLiteral("--trials"), QStringLiteral("5")}));
  std::int64_t some = 0;
  std::int64_t none = 0;
  {
    Store store(m_db);
    RunRecord run = store.runs().front();
    some = run.id;
    none = store.createRunWithTrials(run, {});
    store.setRunStatus(none, RunStatus::Finished);
  }
  m_window->pages()->setCurrentWidget(m_window->historyPage());
  m_window->historyPage()->reload();
  ASSERT_TRUE(waitUntil([&] { return m_window->historyPage()->model()->rowCount() == 2; }));
  ASSERT_TRUE(m_window->historyPage()->selectRuns({none}).empty());
  T4ExportDialog* dialog = openT4FromTheMenu();
  ASSERT_NE(dialog, nullptr);
  EXPECT_EQ(dialog->chosenRun(), none);
  // Listed as History lists it, once ("finished, no trial, 0 trials" said it twice).
  EXPECT_TRUE(dialog->runBox()->currentText().endsWith(QStringLiteral(", finished, no trial")))
      << dialog->runBox()->currentText().toStdString();
  EXPECT_TRUE(dialog->runBox()
                  ->itemText(dialog->runBox()->findData(static_cast<qlonglong>(some)))
                  .endsWith(QStringLiteral(", finished (trials), 5 trials")));
  EXPECT_FALSE(dialog->chosenHasTrials());
  EXPECT_FALSE(dialog->exportButton()->isEnabled());
  EXPECT_EQ(dialog->message(),
            QStringLiteral("Run %1 has no trial: a T4 file needs at least one result. Choose a "
                           "run with trials.")
                .arg(none));

  // The other run, chosen in the list: Export is on again, and writes it.
  dialog->runBox()->setCurrentIndex(dialog->runBox()->findData(static_cast<qlonglong>(some)));
  EXPECT_TRUE(dialog->exportButton()->isEnabled());
  EXPECT_EQ(dialog->message(), QString());
  dialog->fileEdit()->setText(QString::fromStdString(m_dir.file("some_T4.json")));
  QSignalSpy exported(dialog, &T4ExportDialog::exported);
  QTest::mouseClick(dialog->exportButton(), Qt::LeftButton);
  ASSERT_TRUE(waitUntil([&] { return !exported.isEmpty() || !dialog->busy(); }, 30000));
  ASSERT_EQ(exported.size(), 1) << dialog->message().toStdString();
  EXPECT_EQ(exported.first().at(2).toLongLong(), 5);
  dialog->close();
}

// A run that cannot be written (no such folder): the dialog says which file and why.
TEST_F(WindowFileMenuTest, AT4ExportThatCannotBeWrittenSaysWhy) {
  ASSERT_NO_FATAL_FAILURE(tuneReplay({QStringLiteral("--trials"), QStringLiteral("5")}));
  T4ExportDialog* dialog = openT4FromTheMenu();
  ASSERT_NE(dialog, nullptr);
  ASSERT_NE(dialog->chosenRun(), 0);
  dialog->fileEdit()->setText(QString::fromStdString(m_dir.file("no/such/folder/run.json")));
  QSignalSpy failed(dialog, &T4ExportDialog::failed);
  dialog->exportNow();
  ASSERT_TRUE(waitUntil([&] { return !failed.isEmpty(); }, 30000));
  EXPECT_TRUE(dialog->message().contains(QStringLiteral("no/such/folder")))
      << dialog->message().toStdString();
  dialog->close();
}

// Shrunk by hand the window stops at a size where the pages still work, which a 1024x700 screen
// (less a panel and the frame) holds; a smaller screen bounds it to its own room.
TEST_F(WindowFileMenuTest, TheWindowHasAMinimumSizeThatFitsA1024x700Screen) {
  const QSize wanted = MainWindow::minimumWindowSize();
  EXPECT_GE(wanted.width(), 900);
  EXPECT_GE(wanted.height(), 560);
  EXPECT_LE(wanted.width() + 16, 1024);
  EXPECT_LE(wanted.height() + 40, 700 - 40);
  const QSize room = m_window->screen()->availableSize() - QSize(16, 40);
  EXPECT_EQ(m_window->minimumSize(), wanted.boundedTo(room));
  m_window->resize(400, 300);
  EXPECT_GE(m_window->width(), m_window->minimumSize().width());
  EXPECT_GE(m_window->height(), m_window->minimumSize().height());
}

}  // namespace
}  // namespace opevo::ui
