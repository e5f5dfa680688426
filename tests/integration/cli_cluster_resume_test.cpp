#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "cluster/cluster_run.h"
#include "run_process.h"
#include "store/store.h"

// The walk: a run measured by a cluster's agents, resumed without --cluster, went on measuring on
// this machine without a word, its stored label still saying the cluster's.
namespace opevo::test {
namespace {

namespace fs = std::filesystem;

TEST(CliClusterResume, ARunOfAClusterIsNotResumedHereUnlessAskedTo) {
  char pattern[] = "/tmp/opevo-cluster-resume-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const std::string db = (dir / "o.db").string();
  const auto imported = runProcess(
      OPEVO_CLI, {"import",
                  std::string(OPEVO_SOURCE_DIR) +
                      "/resources/measurements/h200/2026-11-27/MM1_opevo-m_seed1.json.gz",
                  "--db", db});
  ASSERT_EQ(imported.status, 0) << imported.err;
  std::int64_t id = 0;
  {
    Store store(db);
    RunRecord run = *store.run(1);
    run.id = 0;
    run.label += cluster::onClusterLabel("127.0.0.1:6391");
    id = store.createRun(run);
    store.setRunStatus(id, RunStatus::Interrupted, EndReason::Stopped);
  }
  const auto refused = runProcess(OPEVO_CLI, {"tune", "--resume", std::to_string(id), "--db", db});
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("run " + std::to_string(id) +
                             " was measured on the cluster at 127.0.0.1:6391: resume it with "
                             "--cluster 127.0.0.1:6391, or with --here"),
            std::string::npos)
      << refused.err;
  // --here goes past that (whatever else the run lacks is another matter).
  const auto here =
      runProcess(OPEVO_CLI, {"tune", "--resume", std::to_string(id), "--here", "--db", db});
  EXPECT_EQ(here.err.find("was measured on the cluster"), std::string::npos) << here.err;
  // --here means nothing without --resume.
  const auto alone = runProcess(OPEVO_CLI, {"tune", "--op", "MM1", "--here", "--db", db});
  EXPECT_EQ(alone.status, 2);
  EXPECT_NE(alone.err.find("--resume"), std::string::npos) << alone.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace opevo::test
