// `opevo runs delete`, run as a user would on runs `opevo tune` stored: what it prints, and that
// a list with one bad id deletes nothing.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../unit/temp_dir.h"
#include "run_process.h"

namespace opevo::test {
namespace {

const std::string kReplay =
    std::string("replay:") + OPEVO_DATASETS_DIR + "/gemm/RTX_2080_Ti.json.gz";

class CliRunsDelete : public ::testing::Test {
 protected:
  std::string db() const { return m_dir.file("runs.db"); }
  // A replay run of `trials` trials; its id.
  int tune(int trials) {
    const auto r = runProcess(
        OPEVO_CLI, {"tune", "--backend", kReplay, "--algo", "random", "--trials",
                    std::to_string(trials), "--db", db(), "--json", "--seed", "1", "--no-history"});
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out)["run"].get<int>();
  }
  std::vector<int> ids() {
    const auto r = runProcess(OPEVO_CLI, {"runs", "--db", db(), "--json"});
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<int> out;
    const auto listed = nlohmann::json::parse(r.out);  // the loop below refers into it
    for (const auto& run : listed) out.push_back(run["id"].get<int>());
    return out;
  }

  TempDir m_dir;
};

TEST_F(CliRunsDelete, DeletesTheRunsNamedAndSaysWhatWent) {
  const int a = tune(12), b = tune(8), c = tune(5);
  const auto r =
      runProcess(OPEVO_CLI, {"runs", "delete", std::to_string(a), std::to_string(c), "--db", db()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("deleted run " + std::to_string(a) + " ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", random, 12 trials)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("deleted run " + std::to_string(c) + " "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("operator"), std::string::npos) << "the listing was printed too: " << r.out;
  EXPECT_EQ(ids(), std::vector<int>{b});
  // The run left is whole.
  const auto shown = runProcess(OPEVO_CLI, {"show", std::to_string(b), "--db", db(), "--json"});
  EXPECT_EQ(nlohmann::json::parse(shown.out)["trials"].size(), 8u);
  // --db given before the word delete.
  const auto before = runProcess(OPEVO_CLI, {"runs", "--db", db(), "delete", std::to_string(b)});
  EXPECT_EQ(before.status, 0) << before.err;
  EXPECT_TRUE(ids().empty());
}

// `runs show ID` beside `runs delete` prints what `show ID` prints (a user's first guess failed
// with "did not expect show 1"), and lists nothing.
TEST_F(CliRunsDelete, RunsShowIsShow) {
  const int a = tune(6);
  const auto show = runProcess(OPEVO_CLI, {"show", std::to_string(a), "--db", db()});
  ASSERT_EQ(show.status, 0) << show.err;
  const auto runsShow = runProcess(OPEVO_CLI, {"runs", "show", std::to_string(a), "--db", db()});
  ASSERT_EQ(runsShow.status, 0) << runsShow.err;
  EXPECT_EQ(runsShow.out, show.out);
  const auto dbFirst = runProcess(OPEVO_CLI, {"runs", "--db", db(), "show", std::to_string(a)});
  ASSERT_EQ(dbFirst.status, 0) << dbFirst.err;
  EXPECT_EQ(dbFirst.out, show.out);
}

TEST_F(CliRunsDelete, AnUnknownIdAmongGoodOnesDeletesNothing) {
  const int a = tune(6), b = tune(6);
  const auto r = runProcess(
      OPEVO_CLI, {"runs", "delete", std::to_string(a), "77", std::to_string(b), "--db", db()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no run 77 in " + db()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was deleted"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(ids(), (std::vector<int>{a, b}));
  // No id at all is a usage error.
  EXPECT_EQ(runProcess(OPEVO_CLI, {"runs", "delete", "--db", db()}).status, 2);
}

}  // namespace
}  // namespace opevo::test
