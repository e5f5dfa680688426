// The window's "Save trials as CSV" writes trials.csv as `opevo compare` and `opevo export` do:
// the same columns, device_seconds and agent among them. It lacked both, and its tuner_ms read 0
// for stored trials though the store keeps it. A stored run's trials are read back from the store,
// which has what the window's points lack (each trial's measurement time).
//
// The window's save of stored runs is `opevo export`'s trials.csv, byte for byte: it read the runs
// through the charts' points (storedTrialPoints), whose time of a trial stored before schema 2 is
// the wall clock since the run's start, where export (core's trialRecords) writes the 0 stored.
#include <gtest/gtest.h>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QThreadPool>
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "gui_test_support.h"
#include "io/trials_csv.h"
#include "store/store.h"
#include "support/csv_fields.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/race_results_widget.h"
#include "ui/controller/race_data.h"
#include "ui/models/history_model.h"
#include "ui/pages/history_page.h"

namespace opevo::ui {
namespace {

using opevo::test::csvFields;
using test::waitUntil;

// A cluster run: each trial measured by an agent (one by this machine), with its build,
// measurement and tuner times.
std::vector<TrialRow> clusterTrials() {
  const std::vector<std::string> agents = {"node1", "node2", "", "rack 3, node 7", "node1"};
  std::vector<TrialRow> rows;
  for (int i = 1; i <= 5; ++i) {
    TrialRow t;
    t.seq = i;
    t.order = i;
    t.config = "x=" + std::to_string(i);
    t.speed = 2.0 * i;
    t.medianMs = 1.0 / i;
    t.compileMs = 400.0 + 10 * i;
    t.measureMs = 1200.25 + i;
    t.tunerMs = 3.5 * i;
    t.seconds = 0.75 * i;
    t.agent = agents[static_cast<std::size_t>(i - 1)];
    rows.push_back(t);
  }
  return rows;
}

// A saved trials.csv, its header checked: the format's, the one compare streams and export
// writes.
std::istringstream savedCsv(const QString& path) {
  QFile file(path);
  EXPECT_TRUE(file.open(QIODevice::ReadOnly | QIODevice::Text)) << path.toStdString();
  std::istringstream in(file.readAll().toStdString());
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header + "\n", trialsCsvHeader());
  in.seekg(0);
  return in;
}

TEST(TrialsCsvWindowSave, AStoredRunSavesItsDeviceTimeAndAgentsAsExportDoes) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const std::string db = dir.filePath(QStringLiteral("runs.db")).toStdString();
  const std::vector<TrialRow> rows = clusterTrials();
  std::int64_t id = 0;
  {
    Store store(db);
    RunRecord r;
    r.operatorName = "mm";
    r.operatorJson = R"({"replay": "/nowhere/A100_T4.json.gz"})";
    r.algorithm = "random";
    r.backend = "replay";
    r.device = "A100";
    r.budgetJson = R"({"trials": 5})";
    r.speedUnit = "GFLOP/s";
    id = store.createRunWithTrials(r, rows);
    store.setRunStatus(id, RunStatus::Finished);
  }
  HistoryPage page;
  page.resize(1200, 700);
  page.show();
  page.setStorePath(QString::fromStdString(db));
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.model()->rowCount() == 1; }));
  page.selectRuns({id});
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.data()->trials().size() == 5; }));
  const QString path = dir.filePath(QStringLiteral("trials.csv"));
  ASSERT_EQ(page.results()->exportCsv(path), QString());
  std::istringstream in = savedCsv(path);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = csvFields(line);
  const auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    ADD_FAILURE() << "no column " << name << " in " << line;
    return header.size();
  };
  const std::size_t device = column("device_seconds"), agent = column("agent"),
                    tuner = column("tuner_ms"), trial = column("trial"), space = column("space");
  ASSERT_LT(std::max({device, agent, tuner, trial, space}), header.size());
  double ms = 0;
  for (const TrialRow& t : rows) {
    ASSERT_TRUE(std::getline(in, line)) << "trial " << t.seq;
    const std::vector<std::string> f = csvFields(line);
    ASSERT_EQ(f.size(), header.size()) << line;
    EXPECT_EQ(f[trial], std::to_string(t.seq)) << line;
    ms += t.compileMs + t.measureMs;
    EXPECT_DOUBLE_EQ(std::stod(f[device]), ms / 1e3) << line;
    EXPECT_EQ(f[agent], t.agent) << line;
    EXPECT_DOUBLE_EQ(std::stod(f[tuner]), t.tunerMs) << line;
    EXPECT_EQ(f[space], "replay") << line;
  }
  EXPECT_FALSE(std::getline(in, line)) << line;
  QThreadPool::globalInstance()->waitForDone();
}

// A run stored before schema 2 (no tuning time: each trial's seconds 0, its start and end times
// alone), with a trial answered from an earlier run's history: the window's save of it is what
// `opevo export` writes, byte for byte.
TEST(TrialsCsvWindowSave, AnOldRunSavesWhatExportWrites) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const std::string db = dir.filePath(QStringLiteral("runs.db")).toStdString();
  std::int64_t id = 0;
  {
    Store store(db);
    RunRecord r;
    r.operatorName = "mm";
    r.operatorJson = R"({"replay": "/nowhere/A100_T4.json.gz"})";
    r.algorithm = "random";
    r.backend = "replay";
    r.device = "A100";
    r.budgetJson = R"({"trials": 4})";
    r.speedUnit = "GFLOP/s";
    r.started = "2024-03-01T10:00:00.000Z";
    std::vector<TrialRow> rows;
    for (int i = 1; i <= 4; ++i) {
      TrialRow t;
      t.seq = i;
      t.order = i;
      t.config = "x=" + std::to_string(i);
      t.speed = 1.5 * i;
      t.medianMs = 2.0 / i;
      t.compileMs = 300.0 + i;
      t.measureMs = 900.5 + i;
      t.started = "2024-03-01T10:00:0" + std::to_string(2 * i - 1) + ".000Z";
      t.finished = "2024-03-01T10:00:0" + std::to_string(2 * i) + ".500Z";
      rows.push_back(t);
    }
    // Answered from history: it cost this run's device nothing (engine/device_time.h).
    rows[2].message = "from history: run 1";
    id = store.createRunWithTrials(r, rows);
    store.setRunStatus(id, RunStatus::Finished);
  }

  const QString out = dir.filePath(QStringLiteral("export"));
  QProcess cli;
  cli.start(QStringLiteral(OPEVO_CLI),
            {QStringLiteral("export"), QString::number(id), QStringLiteral("--out"), out,
             QStringLiteral("--db"), QString::fromStdString(db)});
  ASSERT_TRUE(cli.waitForFinished(60000));
  ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
  QFile exported(out + QStringLiteral("/trials.csv"));
  ASSERT_TRUE(exported.open(QIODevice::ReadOnly));

  HistoryPage page;
  page.resize(1200, 700);
  page.show();
  page.setStorePath(QString::fromStdString(db));
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.model()->rowCount() == 1; }));
  page.selectRuns({id});
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.data()->trials().size() == 4; }));
  // The chart still draws the old run against its wall clock: its trials took time.
  EXPECT_GT(page.data()->trials().back().seconds, 0);
  const QString path = dir.filePath(QStringLiteral("trials.csv"));
  ASSERT_EQ(page.results()->exportCsv(path), QString());
  QFile saved(path);
  ASSERT_TRUE(saved.open(QIODevice::ReadOnly));
  EXPECT_EQ(saved.readAll().toStdString(), exported.readAll().toStdString());
  QThreadPool::globalInstance()->waitForDone();
}

// A race in two spaces that is not stored (its store broke): the window holds every trial, and
// its save names each curve's algorithm and space, as `opevo export` writes a stored race's.
TEST(TrialsCsvWindowSave, ARaceNotStoredSavesEachCurvesSpace) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  RaceData data;
  RaceData::Info info;
  info.algorithms = {QStringLiteral("opevo (loop)"), QStringLiteral("opevo (joint)")};
  info.runs = {{QStringLiteral("opevo"), QStringLiteral("loop")},
               {QStringLiteral("opevo"), QStringLiteral("joint")}};
  data.reset(info);
  std::vector<TrialPoint> points;
  for (int i = 0; i < 4; ++i) {
    TrialPoint p;
    p.algorithm = i % 2;
    p.seq = i / 2 + 1;
    p.order = i + 1;
    p.run = p.algorithm + 1;
    p.speed = p.best = 1.0 + i;
    points.push_back(p);
  }
  data.append(points);
  const QString path = dir.filePath(QStringLiteral("trials.csv"));
  ASSERT_EQ(saveTrialsCsv(data, path), QString());
  std::istringstream in = savedCsv(path);
  std::string line;
  std::getline(in, line);
  ASSERT_EQ(csvFields(line).back(), "space");
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(std::getline(in, line)) << i;
    const std::vector<std::string> f = csvFields(line);
    EXPECT_EQ(f[2], "opevo") << line;  // the algorithm's own name: the space says which
    EXPECT_EQ(f.back(), i % 2 == 0 ? "loop" : "joint") << line;
  }
}

}  // namespace
}  // namespace opevo::ui
