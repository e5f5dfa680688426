// A finished run given more trials: `opevo tune --resume N --trials M` goes on to M trials in all,
// with the run's operator, algorithm, settings and seed; a budget it has already spent, or a
// change of what it is, is refused before anything is stored.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "run_process.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path path;
  Dir() {
    char pattern[] = "/tmp/opevo-extend-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~Dir() { fs::remove_all(path); }
  std::string db() const { return (path / "runs.db").string(); }
};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string kDataset =
    std::string(OPEVO_SOURCE_DIR) + "/resources/datasets/gemm/RTX_2080_Ti.json.gz";

nlohmann::json shown(const std::string& db) {
  const auto r = runProcess(OPEVO_CLI, {"show", "1", "--db", db, "--json"});
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(CliExtendRun, AFinishedRunGoesOnToItsNewTotal) {
  Dir dir;
  const std::string db = dir.db();
  const auto first =
      runProcess(OPEVO_CLI, {"tune", "--backend", "replay:" + kDataset, "--algo", "opevo", "--set",
                             "q=0.3", "--seed", "7", "--trials", "6", "--db", db, "--json"});
  ASSERT_EQ(first.status, 0) << first.err;
  const nlohmann::json before = shown(db);
  ASSERT_EQ(before["trials"].size(), 6u);

  // Resumed as it is, a finished run has nothing to do: the refusal gives the command that goes on.
  const auto plain = runProcess(OPEVO_CLI, {"tune", "--resume", "1", "--db", db});
  EXPECT_EQ(plain.status, 2) << plain.err;
  EXPECT_TRUE(has(plain.err, "already finished")) << plain.err;
  EXPECT_TRUE(has(plain.err, "opevo tune --resume 1 --trials 106 --db " + db)) << plain.err;

  // A total it has reached already is refused, and nothing changes.
  const auto spent = runProcess(OPEVO_CLI, {"tune", "--resume", "1", "--trials", "6", "--db", db});
  EXPECT_EQ(spent.status, 2) << spent.err;
  EXPECT_TRUE(has(spent.err,
                  "run 1 has 6 trials already: --trials is its new total, give more "
                  "than 6"))
      << spent.err;
  // What the run is cannot change on the way.
  const auto reseeded =
      runProcess(OPEVO_CLI, {"tune", "--resume", "1", "--trials", "9", "--seed", "2", "--db", db});
  EXPECT_NE(reseeded.status, 0);
  EXPECT_EQ(shown(db)["run"]["budget"], before["run"]["budget"]);

  const auto more =
      runProcess(OPEVO_CLI, {"tune", "--resume", "1", "--trials", "15", "--db", db, "--json"});
  ASSERT_EQ(more.status, 0) << more.err;
  const nlohmann::json after = shown(db);
  ASSERT_EQ(after["trials"].size(), 15u);
  EXPECT_EQ(after["run"]["status"], "finished");
  EXPECT_EQ(after["run"]["seed"], 7);
  EXPECT_TRUE(has(after["run"]["settings"].dump(), "0.3")) << after["run"]["settings"].dump();
  EXPECT_TRUE(has(after["run"]["budget"].dump(), "15")) << after["run"]["budget"].dump();
  // The first six are kept as they were; the nine after them are new configurations.
  std::set<std::string> configs;
  for (std::size_t i = 0; i < after["trials"].size(); ++i) {
    const auto& t = after["trials"][i];
    EXPECT_EQ(t["seq"], static_cast<int>(i) + 1);
    if (i < 6) {
      EXPECT_EQ(t["config"], before["trials"][i]["config"]);
    }
    configs.insert(t["config"].get<std::string>());
  }
  EXPECT_EQ(configs.size(), 15u);
}

}  // namespace
}  // namespace opevo::test
