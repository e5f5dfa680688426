// `opevo net tune`'s progress says which trials of a unit were its twins' best (net/twin_tasks.h):
// a task's best that jumps with its twin's configuration is not its own tuner's find. Its closing
// round (NetworkTuning) ends the tuning with each twin having measured the other's final best.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

struct TempFolder {
  std::filesystem::path path;
  TempFolder() {
    char pattern[] = "/tmp/opevo-nettwins-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempFolder() { std::filesystem::remove_all(path); }
};

TEST(CliNetTwins, AUnitNamesTheTwinItsFirstTrialsCameFrom) {
  const TempFolder f;
  const std::string network = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_twins.json";
  const auto r =
      runProcess(OPEVO_CLI, {"net", "tune",           network, "--backend",
                             "cpu", "--mode",         "loop",  "--trials",
                             "24",  "--unit",         "2",     "--min-time-ms",
                             "1",   "--runs",         "1",     "--warmup",
                             "0",   "--no-reference", "--db",  (f.path / "runs.db").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  // Tasks a (bias, relu) and b (bias, add, relu) are twins: a unit of one begins with the other's
  // best once it has one.
  const bool fromB = r.err.find(" from twin b") != std::string::npos;
  const bool fromA = r.err.find(" from twin a") != std::string::npos;
  EXPECT_TRUE(fromA || fromB) << r.err;
  // The layers without a twin never take one.
  EXPECT_EQ(r.err.find(" from twin p"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(" from twin d"), std::string::npos) << r.err;
}

// The fastest working configuration of a stored run, and whether the run measured `config`.
const TrialRow* fastest(const std::vector<TrialRow>& trials) {
  const TrialRow* best = nullptr;
  for (const TrialRow& t : trials)
    if (t.status == TrialStatus::Ok && (!best || t.speed > best->speed)) best = &t;
  return best;
}

bool measured(const std::vector<TrialRow>& trials, const std::string& config) {
  return std::any_of(trials.begin(), trials.end(),
                     [&](const TrialRow& t) { return t.config == config; });
}

TEST(CliNetTwins, TheClosingRoundMeasuresEachTwinsFinalBestWithinTheBudget) {
  const TempFolder f;
  const std::string network = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_twins.json";
  const std::string db = (f.path / "runs.db").string();
  // Topological: a is tuned to its share before b begins, so b's finds come after a's last unit.
  // 16 trials reach the 4 tasks with 12; the round keeps 2 for each twin.
  const std::vector<std::string> args = {
      "net",         "tune",           network, "--backend", "cpu", "--mode",
      "loop",        "--trials",       "16",    "--unit",    "2",   "--scheduler",
      "topological", "--min-time-ms",  "1",     "--runs",    "1",   "--warmup",
      "0",           "--no-reference", "--db",  db};
  for (const bool json : {false, true}) {
    std::vector<std::string> run = args;
    if (json) run.push_back("--json");
    const auto r = runProcess(OPEVO_CLI, run);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::int64_t id = json ? 2 : 1;
    Store store(db);
    const auto net = store.network(id);
    ASSERT_TRUE(net.has_value());
    std::map<std::string, std::vector<TrialRow>> trials;
    const std::vector<std::string> names = {"a", "b", "p", "d"};  // the tasks, in task order
    ASSERT_EQ(net->taskRuns.size(), names.size());
    int total = 0;
    for (std::size_t i = 0; i < names.size(); ++i) {
      trials[names[i]] = store.trials(net->taskRuns[i]);
      total += static_cast<int>(trials[names[i]].size());
    }
    // Each twin measured the other's final best, and the budget held.
    for (const auto& [task, twin] : {std::pair{"a", "b"}, std::pair{"b", "a"}}) {
      const TrialRow* best = fastest(trials[twin]);
      ASSERT_NE(best, nullptr) << twin;
      EXPECT_TRUE(measured(trials[task], best->config)) << task << " lacks " << twin << "'s best";
    }
    EXPECT_LE(total, 16);
    // The round's units are those after the scheduler's 12 trials.
    int seen = 0, closing = 0;
    for (const NetworkUnitRow& u : store.networkUnits(id)) {
      if (seen >= 12) closing += u.trials;
      seen += u.trials;
    }
    EXPECT_EQ(total, 12 + closing);
    if (json) {
      const nlohmann::json j = nlohmann::json::parse(r.out)["closing_round"];
      EXPECT_EQ(j["reserve"], 4);
      EXPECT_EQ(j["trials"], closing);
      for (const nlohmann::json& u : j["units"]) {
        const std::string twin = u["task"] == "a" ? "b" : "a";
        EXPECT_TRUE(u["task"] == "a" || u["task"] == "b") << j.dump();
        EXPECT_LE(u["trials"].get<int>(), 2);
        for (const nlohmann::json& from : u["from"]) EXPECT_EQ(from, twin);
      }
    } else {
      // The progress line names the round: "[ 14/16 trials] a ... ; closing: 2 from twin b".
      EXPECT_EQ(r.err.find("; closing: ") != std::string::npos, closing > 0) << r.err;
    }
    // The stored run says it too: "closing round: a 1 from twin b; b 1 from twin a".
    const auto shown = runProcess(OPEVO_CLI, {"net", "runs", std::to_string(id), "--db", db});
    ASSERT_EQ(shown.status, 0) << shown.err;
    EXPECT_EQ(shown.out.find("closing round: ") != std::string::npos, closing > 0) << shown.out;
    if (closing > 0) {
      EXPECT_NE(shown.out.find(" from twin "), std::string::npos) << shown.out;
    }
  }
}

}  // namespace
}  // namespace opevo::test
