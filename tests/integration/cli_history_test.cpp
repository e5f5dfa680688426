#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_process.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

struct Db {
  fs::path path;
  Db() {
    char pattern[] = "/tmp/opevo-history-XXXXXX";
    path = fs::path(mkdtemp(pattern)) / "runs.db";
  }
  ~Db() { fs::remove_all(path.parent_path()); }
};

const std::string kReplay = std::string("replay:") + OPEVO_DATASETS_DIR + "/convolution_milo/A100.json.gz";

nlohmann::json tune(const Db& db, std::vector<std::string> extra) {
  std::vector<std::string> args = {"tune", "--backend", kReplay, "--db", db.path.string(), "--json", "--seed", "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = runProcess(OPEVO_CLI, args);
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

std::vector<std::string> configs(const Db& db, int run) {
  const auto r = runProcess(OPEVO_CLI, {"show", std::to_string(run), "--db", db.path.string(), "--json"});
  std::vector<std::string> out;
  const auto shown = nlohmann::json::parse(r.out);  // the loop below refers into it
  for (const auto& t : shown["trials"]) out.push_back(t["config"]);
  return out;
}

TEST(CliHistory, ReplayAnswersKnownConfigurationsFromTheStore) {
  Db db;
  const auto first = tune(db, {"--algo", "random", "--trials", "30"});
  EXPECT_EQ(first["reused_from_history"], 0);
  const auto again = tune(db, {"--algo", "random", "--trials", "30"});
  EXPECT_EQ(again["reused_from_history"], 30);  // same seed, same proposals, all known
  const auto fresh = tune(db, {"--algo", "random", "--trials", "30", "--no-history"});
  EXPECT_EQ(fresh["reused_from_history"], 0);
}

TEST(CliHistory, WarmStartChangesAutoTvmsFirstProposals) {
  Db db;
  tune(db, {"--algo", "autotvm", "--trials", "128", "--no-history"});
  const int cold = tune(db, {"--algo", "autotvm", "--trials", "16", "--no-history", "--no-warm-start"})["run"];
  const int warm = tune(db, {"--algo", "autotvm", "--trials", "16", "--no-history"})["run"];
  const auto coldConfigs = configs(db, cold), warmConfigs = configs(db, warm);
  ASSERT_EQ(coldConfigs.size(), 16u);
  ASSERT_EQ(warmConfigs.size(), 16u);
  EXPECT_EQ(configs(db, 1).front(), coldConfigs.front());  // cold runs repeat themselves
  EXPECT_NE(coldConfigs, warmConfigs);
}

}  // namespace
}  // namespace opevo::test
