// trials.csv is one format wherever trials leave the program. `opevo compare --out` streamed a
// device_seconds column that `opevo export` and the window's save did not write, and no trials.csv
// said which cluster agent measured a trial (the store has kept it since schema 11). Real
// programs: a replay race stored with --db and its runs exported; a cluster run measured by two
// real agents (a redis-server, `opevo agent`), exported.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cluster_fixture.h"
#include "csv_fields.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

struct Csv {
  std::string header;
  std::vector<std::string> rows;
};

Csv readCsv(const fs::path& path) {
  Csv csv;
  std::ifstream in(path);
  std::getline(in, csv.header);
  for (std::string line; std::getline(in, line);) csv.rows.push_back(line);
  return csv;
}

std::size_t column(const std::string& header, const std::string& name) {
  const std::vector<std::string> names = csvFields(header);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return i;
  ADD_FAILURE() << "no column " << name << " in " << header;
  return names.size();
}

struct OutDir {
  fs::path path;
  OutDir() {
    char pattern[] = "/tmp/opevo-one-format-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~OutDir() { fs::remove_all(path); }
  const fs::path& dir() const { return path; }
};

// compare's stream and the export of each of the race's runs: the same columns, and every run's
// rows the same, device_seconds (here what the file says each trial cost) and agent included.
TEST(TrialsCsvOneFormat, CompareAndExportWriteTheSameColumnsAndRows) {
  const OutDir c;
  const std::string db = (c.dir() / "runs.db").string();
  const auto race =
      runProcess(OPEVO_CLI, {"compare", "--space",
                             std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz",
                             "--algos", "opevo,random", "--repeats", "2", "--trials", "15", "--out",
                             (c.dir() / "race").string(), "--db", db, "--quiet"});
  ASSERT_EQ(race.status, 0) << race.err;
  const Csv compared = readCsv(c.dir() / "race" / "trials.csv");
  ASSERT_EQ(compared.rows.size(), 2u * 2 * 15);
  const std::size_t runColumn = column(compared.header, "run");
  const std::size_t device = column(compared.header, "device_seconds");
  const std::size_t agent = column(compared.header, "agent");
  std::map<std::string, std::vector<std::string>> byRun;
  for (const std::string& row : compared.rows) byRun[csvFields(row).at(runColumn)].push_back(row);
  ASSERT_EQ(byRun.size(), 4u);

  for (const auto& [run, rows] : byRun) {
    const fs::path out = c.dir() / ("export-" + run);
    const auto exported = runProcess(OPEVO_CLI, {"export", run, "--out", out.string(), "--db", db});
    ASSERT_EQ(exported.status, 0) << exported.err;
    const Csv csv = readCsv(out / "trials.csv");
    EXPECT_EQ(csv.header, compared.header);
    EXPECT_EQ(csv.rows, rows) << "run " << run;
    // What the file charges, added up run by run: some time, growing, on this machine.
    double before = 0;
    for (const std::string& row : csv.rows) {
      const std::vector<std::string> f = csvFields(row);
      ASSERT_EQ(f.size(), csvFields(csv.header).size()) << row;
      const double seconds = std::stod(f[device]);
      EXPECT_GT(seconds, before) << row;
      before = seconds;
      EXPECT_EQ(f[agent], "") << row;
    }
  }
}

// A cluster run's export names the agent of each trial, as the store has it, and adds up the
// device time of each trial its agent measured.
TEST(TrialsCsvOneFormat, AClusterRunsExportNamesEachTrialsAgent) {
  ClusterFixture c("csv-agent");
  c.startAgent("node1", 20);
  c.startAgent("node2", 20);
  ASSERT_TRUE(c.waitForAgents(2));
  const ProcessResult tuned = runProcess(
      OPEVO_CLI, {"tune", "--cluster", c.address(), "--backend", "replay:" + kClusterDataset,
                  "--algo", "random", "--seed", "5", "--trials", "16", "--db", c.db()});
  ASSERT_EQ(tuned.status, 0) << tuned.err << c.logText("node1") << c.logText("node2");
  const std::vector<TrialRow> stored = storedTrials(c.db());
  ASSERT_EQ(stored.size(), 16u);

  const fs::path out = c.dir() / "export";
  const auto exported =
      runProcess(OPEVO_CLI, {"export", "1", "--out", out.string(), "--db", c.db()});
  ASSERT_EQ(exported.status, 0) << exported.err;
  const Csv csv = readCsv(out / "trials.csv");
  ASSERT_EQ(csv.rows.size(), stored.size());
  const std::size_t trial = column(csv.header, "trial");
  const std::size_t device = column(csv.header, "device_seconds");
  const std::size_t agent = column(csv.header, "agent");
  std::set<std::string> agents;
  double ms = 0;
  for (std::size_t i = 0; i < stored.size(); ++i) {
    const std::vector<std::string> f = csvFields(csv.rows[i]);
    ASSERT_EQ(f.at(trial), std::to_string(stored[i].seq)) << csv.rows[i];
    EXPECT_EQ(f.at(agent), stored[i].agent) << csv.rows[i];
    agents.insert(f.at(agent));
    ms += stored[i].compileMs + stored[i].measureMs;
    EXPECT_DOUBLE_EQ(std::stod(f.at(device)), ms / 1e3) << csv.rows[i];
  }
  EXPECT_EQ(agents, (std::set<std::string>{"node1", "node2"}));
}

}  // namespace
}  // namespace opevo::test
