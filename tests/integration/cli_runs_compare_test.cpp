// `opevo runs compare`: stored runs of one problem side by side, as History draws them. The runs
// are written with the Store (real SQLite files) so each figure the command prints is known.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../unit/temp_dir.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

// A finished MM1 run on the CPU whose trials read `speeds` (0: a failed trial).
std::int64_t addRun(Store& store, const std::string& algorithm, const std::string& mode,
                    const std::vector<double>& speeds, const std::string& device = "AMD EPYC") {
  RunRecord r;
  r.operatorName = "MM1";
  nlohmann::json op = {{"kind", "matmul"}, {"name", "MM1"}, {"shape", {{"m", 1024}}}};
  if (!mode.empty()) op["mode"] = mode;
  r.operatorJson = op.dump();
  r.algorithm = algorithm;
  r.backend = "cpu";
  r.device = device;
  r.label = "cpu: " + device;
  r.budgetJson = R"({"trials": 4})";
  r.speedUnit = "GFLOP/s";
  r.referenceLibrary = "OpenBLAS sgemm";
  r.referenceSpeed = 140;
  std::vector<TrialRow> rows;
  for (std::size_t i = 0; i < speeds.size(); ++i) {
    TrialRow t;
    t.seq = static_cast<int>(i + 1);
    t.order = t.seq;
    t.config = "x=" + std::to_string(i);
    t.status = speeds[i] > 0 ? TrialStatus::Ok : TrialStatus::CompileError;
    t.speed = speeds[i];
    t.medianMs = speeds[i] > 0 ? 1 / speeds[i] : 0;
    rows.push_back(t);
  }
  const std::int64_t id = store.createRunWithTrials(r, rows);
  store.setRunStatus(id, RunStatus::Finished);
  return id;
}

TEST(CliRunsCompare, LoopsAndJointLayoutsAreTwoCurvesOfOneProblem) {
  const TempDir f;
  const std::string db = f.file("runs.db");
  std::int64_t loop, joint1, joint2, otherDevice, failed;
  {
    Store store(db);
    loop = addRun(store, "opevo", "", {10, 30, 20, 35});
    joint1 = addRun(store, "opevo", "joint", {50, 40, 90, 100});
    joint2 = addRun(store, "opevo", "joint", {70, 80, 80});
    otherDevice = addRun(store, "opevo", "joint", {60}, "Intel Xeon");
    failed = addRun(store, "opevo", "", {0, 0});
  }
  const auto id = [](std::int64_t v) { return std::to_string(v); };
  const ProcessResult r =
      runProcess(OPEVO_CLI, {"runs", "compare", id(loop), id(joint1), id(joint2), id(otherDevice),
                             id(failed), "--at", "1,3,4,9", "--db", db, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("label"), "MM1 on cpu: AMD EPYC");
  ASSERT_EQ(j.at("curves").size(), 2u) << r.out;
  const auto& loops = j.at("curves").at(0);
  EXPECT_EQ(loops.at("curve"), "opevo (loop)");
  EXPECT_DOUBLE_EQ(loops.at("best").get<double>(), 35);
  EXPECT_EQ(loops.at("best_trial"), 4);
  const auto& joint = j.at("curves").at(1);
  EXPECT_EQ(joint.at("curve"), "opevo (joint)");
  EXPECT_EQ(joint.at("runs"), nlohmann::json({joint1, joint2}));  // repeats of one curve
  EXPECT_DOUBLE_EQ(joint.at("best").get<double>(), 100);
  EXPECT_DOUBLE_EQ(joint.at("mean_best").get<double>(), (100 + 80) / 2.0);
  // The mean of the runs' bests so far, as History draws them: a run of 3 trials keeps its best
  // of 80 after its last.
  EXPECT_DOUBLE_EQ(joint.at("mean_best_after").at("1").get<double>(), (50 + 70) / 2.0);
  EXPECT_DOUBLE_EQ(joint.at("mean_best_after").at("3").get<double>(), (90 + 80) / 2.0);
  EXPECT_DOUBLE_EQ(joint.at("mean_best_after").at("4").get<double>(), (100 + 80) / 2.0);
  EXPECT_FALSE(joint.at("mean_best_after").contains("9"));  // no run reached 9 trials
  EXPECT_EQ(j.at("library").at("name"), "OpenBLAS sgemm");
  const auto& left = j.at("not_compared");
  ASSERT_EQ(left.size(), 2u) << r.out;
  EXPECT_EQ(left[0].at("run"), otherDevice);
  EXPECT_EQ(left[0].at("why"), "another operator, narrowed space or device than run " + id(loop) +
                                   " (MM1 on AMD EPYC)");
  EXPECT_EQ(left[1].at("run"), failed);
  EXPECT_EQ(left[1].at("why"), "all 2 trials failed: 2 did not compile");

  // The table says the same, and each curve's best over the library.
  const ProcessResult table =
      runProcess(OPEVO_CLI, {"runs", "--db", db, "compare", id(joint1), id(loop)});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("MM1 on cpu: AMD EPYC, in GFLOP/s: 2 runs compared"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("opevo (joint) 0.71x, opevo (loop) 0.25x"), std::string::npos)
      << table.out;
  // One space alone: plain names.
  const ProcessResult one =
      runProcess(OPEVO_CLI, {"runs", "compare", id(joint1), id(joint2), "--db", db, "--json"});
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(nlohmann::json::parse(one.out).at("curves").at(0).at("curve"), "opevo");
  // Named twice, a run would be two repeats: refused. `runs --json` reaches compare.
  const ProcessResult twice =
      runProcess(OPEVO_CLI, {"runs", "compare", id(joint1), id(joint1), "--db", db});
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.err.find("run " + id(joint1) + " is named twice"), std::string::npos)
      << twice.err;
  const ProcessResult parentJson =
      runProcess(OPEVO_CLI, {"runs", "--json", "--db", db, "compare", id(joint1)});
  ASSERT_EQ(parentJson.status, 0) << parentJson.err;
  EXPECT_EQ(nlohmann::json::parse(parentJson.out).at("anchor"), joint1);
  // A run that is not there is named.
  const ProcessResult missing = runProcess(OPEVO_CLI, {"runs", "compare", "99", "--db", db});
  EXPECT_EQ(missing.status, 2) << missing.err;
  EXPECT_NE(missing.err.find("no run 99 in "), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace opevo::test
