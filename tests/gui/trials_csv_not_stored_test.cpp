// The window's "Save trials as CSV" of a race it holds whole without its store (a race that is
// not stored, or whose store cannot be read now) wrote device_seconds from the builds alone: the
// window's trials did not carry their measurement's time, so a replay's device time read a few
// percent of what `opevo compare` and `opevo export` say of the same trials. Now each trial
// carries it, and the file is the one the store's twin of the race gives.
#include <gtest/gtest.h>

#include <QFile>
#include <QTemporaryDir>
#include <QThreadPool>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "engine/device_time.h"
#include "gui_test_support.h"
#include "io/trials_csv.h"
#include "store/history.h"
#include "store/store.h"
#include "support/csv_fields.h"
#include "ui/charts/race_results_widget.h"
#include "ui/controller/race_data.h"
#include "ui/main_window.h"
#include "ui/pages/runs_page.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/dataset_picker.h"
#include "ui/widgets/race_setup_panel.h"

namespace opevo::ui {
namespace {

using opevo::test::csvFields;
using test::waitUntil;

const QString kGemm = QStringLiteral(OPEVO_DATASETS_DIR "/gemm/RTX_2080_Ti.json.gz");

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  std::size_t column(const std::string& name) const {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    ADD_FAILURE() << "no column " << name;
    return 0;
  }
};

Csv readCsv(const QString& path) {
  Csv csv;
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
    ADD_FAILURE() << "cannot read " << path.toStdString();
    return csv;
  }
  const QList<QByteArray> lines = file.readAll().split('\n');
  for (const QByteArray& line : lines) {
    if (line.isEmpty()) continue;
    if (csv.header.empty())
      csv.header = csvFields(line.toStdString());
    else
      csv.rows.push_back(csvFields(line.toStdString()));
  }
  return csv;
}

class TrialsCsvNotStored : public ::testing::Test {
 protected:
  void SetUp() override {
    m_window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&m_window));
    m_window.pages()->setCurrentWidget(runs());
  }
  void TearDown() override {
    runs()->stop();
    waitUntil([&] { return !runs()->controller()->busy(); }, 60000);
    QThreadPool::globalInstance()->waitForDone();
  }

  RunsPage* runs() { return m_window.runsPage(); }
  RaceSetupPanel* setup() { return runs()->setup(); }

  // Two algorithms, two repeats, seed 1 each time: the same trials whatever stores them.
  void raceAndSave(const QString& storePath, const QString& csvPath) {
    runs()->setStorePath(storePath);
    setup()->datasetPicker()->load(kGemm);
    ASSERT_TRUE(waitUntil([&] { return !setup()->datasetPicker()->loading(); }, 60000));
    ASSERT_TRUE(setup()->datasetPicker()->dataset());
    setup()->algorithmPanel()->setChecked({QStringLiteral("random"), QStringLiteral("opevo")});
    setup()->setRepeats(2);
    setup()->setTrials(25);
    setup()->setPaceMs(0);
    setup()->setSeed(1);
    ASSERT_TRUE(runs()->start()) << runs()->message().toStdString();
    ASSERT_TRUE(waitUntil([&] { return !runs()->controller()->busy(); }, 180000));
    ASSERT_EQ(runs()->data()->trialCount(), 2 * 2 * 25);
    ASSERT_EQ(runs()->data()->info().storePath, storePath);
    ASSERT_EQ(runs()->results()->exportCsv(csvPath), QString());
  }

  MainWindow m_window;
};

// A race that is not stored, saved from the window, against its twin that is (whose file is read
// back from the store, as `opevo export` writes it): each trial's device time is its build and
// its measurement, as the twin's, not its build alone.
TEST_F(TrialsCsvNotStored, ARaceThatIsNotStoredSavesTheDeviceTimeOfItsMeasurementsToo) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString unstored = dir.filePath(QStringLiteral("unstored.csv"));
  const QString stored = dir.filePath(QStringLiteral("stored.csv"));
  const QString db = dir.filePath(QStringLiteral("twin.db"));
  ASSERT_NO_FATAL_FAILURE(raceAndSave(QString(), unstored));
  ASSERT_NO_FATAL_FAILURE(raceAndSave(db, stored));

  const Csv a = readCsv(unstored);
  const Csv b = readCsv(stored);
  ASSERT_EQ(a.header, b.header);
  ASSERT_EQ(a.rows.size(), 100u);
  ASSERT_EQ(b.rows.size(), 100u);
  // Matched by run and trial: a run's id is its place in the race here, its store id there.
  const std::size_t algorithm = a.column("algorithm"), repeat = a.column("repeat"),
                    trial = a.column("trial"), config = a.column("config"),
                    compile = a.column("compile_ms"), device = a.column("device_seconds");
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, const std::vector<std::string>*> twin;
  for (const auto& row : b.rows) twin[{row[algorithm], row[repeat], row[trial]}] = &row;
  std::map<Key, double> builds;  // each run's compile_ms so far, in seconds
  for (const auto& row : a.rows) {
    ASSERT_EQ(row.size(), a.header.size());
    const Key key{row[algorithm], row[repeat], row[trial]};
    ASSERT_TRUE(twin.count(key)) << row[algorithm] << " repeat " << row[repeat] << " trial "
                                 << row[trial];
    const std::vector<std::string>& same = *twin.at(key);
    // The same trial of the same run: the comparison is of one trial's two files.
    ASSERT_EQ(row[config], same[config]) << "the twin races measured different configurations";
    EXPECT_EQ(row[compile], same[compile]);
    EXPECT_EQ(row[device], same[device])
        << row[algorithm] << " repeat " << row[repeat] << " trial " << row[trial];
    double& build = builds[{row[algorithm], row[repeat], ""}];
    build += std::stod(row[compile]) / 1e3;
    // The file charges each configuration a measurement beside its build.
    EXPECT_GT(std::stod(row[device]), build + 1e-9) << "only the builds are counted";
  }

  // And the twin's file is the store's trials as core's trials.csv has them.
  Store store(db.toStdString(), Store::Opening::ExistingOnly);
  double total = 0;
  for (const RunRecord& run : store.runs())
    for (const TrialRow& t : store.trials(run.id)) total += deviceMs(measurementOf(t));
  double last = 0;
  std::map<std::string, double> ends;  // each run's device time at its last trial
  const std::size_t runColumn = b.column("run");
  for (const auto& row : b.rows) ends[row[runColumn]] = std::stod(row[device]);
  for (const auto& [run, seconds] : ends) last += seconds;
  EXPECT_NEAR(last, total / 1e3, 1e-9);
}

}  // namespace
}  // namespace opevo::ui
