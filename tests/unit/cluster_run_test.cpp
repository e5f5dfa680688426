#include "cluster/cluster_run.h"

#include <gtest/gtest.h>

#include "store/records.h"

// A run measured by a cluster's agents says so in its stored label, and that is how a resume
// knows where the run was measured (opevo tune --resume without --cluster would otherwise measure
// the rest here under the cluster's label).
namespace opevo::cluster {
namespace {

TEST(ClusterRun, TheClusterOfARunIsReadFromItsLabel) {
  EXPECT_EQ(clusterOfLabel("cpu: AMD EPYC 7763, 64 threads" + onClusterLabel("10.0.0.5:6390")),
            "10.0.0.5:6390");
  EXPECT_EQ(clusterOfLabel("replay of RTX_2080_Ti.json.gz (NVIDIA GeForce RTX 2080 Ti, real "
                           "measurements)" +
                           onClusterLabel("unix:/run/opevo/redis.sock")),
            "unix:/run/opevo/redis.sock");
  // What a label may say after the address.
  EXPECT_EQ(clusterOfLabel("cpu: X" + onClusterLabel("127.0.0.1:6391") + ", reusing stored trials"),
            "127.0.0.1:6391");
  EXPECT_EQ(clusterOfLabel("replay of A100.json.gz (NVIDIA A100, real measurements)"),
            std::nullopt);
  EXPECT_EQ(clusterOfLabel("cpu: AMD EPYC 7763, 64 threads"), std::nullopt);
  EXPECT_EQ(clusterOfLabel(""), std::nullopt);
}

TEST(ClusterRun, AResumeWithoutTheClusterIsToldWhereTheRunWasMeasured) {
  RunRecord run;
  run.id = 6;
  run.label = "cpu: X" + onClusterLabel("127.0.0.1:6391");
  const auto problem = clusterResumeProblem(run, false, false);
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem,
            "run 6 was measured on the cluster at 127.0.0.1:6391: resume it with --cluster "
            "127.0.0.1:6391, or with --here to measure the rest on this machine");
  EXPECT_FALSE(clusterResumeProblem(run, true, false));
  EXPECT_FALSE(clusterResumeProblem(run, false, true));
  run.label = "cpu: X";
  EXPECT_FALSE(clusterResumeProblem(run, false, false));
}

}  // namespace
}  // namespace opevo::cluster
