// What stored runs compared as one experiment are called (core/store/run_curves.h): History's
// chart and `opevo runs compare` take their curves' names and titles from here.

#include "store/run_curves.h"

#include <gtest/gtest.h>

#include "engine/curve_stats.h"

namespace opevo {
namespace {

RunRecord cudaRun(const std::string& how) {
  RunRecord r;
  r.operatorName = "C2";
  r.algorithm = "opevo-m";
  r.backend = "cuda";
  r.device = "NVIDIA H200";
  r.label = "cuda: NVIDIA H200";
  r.operatorJson = R"({"kind": "conv2d", "name": "C2")" + how + "}";
  return r;
}

// A GPU's own loop space (target gpu) and an older run's common one are two spaces that both read
// "loop": averaged as repeats of one curve they were not. Each is named by its target then.
TEST(RunCurves, SpacesTheModeNameDoesNotTellApartAddTheirTarget) {
  const RunRecord gpu = cudaRun(R"(, "target": "gpu")"), common = cudaRun(""),
                  winograd = cudaRun(R"(, "target": "winograd")"),
                  joint = cudaRun(R"(, "mode": "joint")");
  EXPECT_EQ(curveNames({&gpu, &common, &winograd}),
            (std::vector<std::string>{"opevo-m (loop, gpu)", "opevo-m (loop, common)",
                                      "opevo-m (winograd)"}));
  EXPECT_EQ(curveNames({&common, &joint}),
            (std::vector<std::string>{"opevo-m (loop)", "opevo-m (joint)"}));
  EXPECT_EQ(curveNames({&joint, &joint}), (std::vector<std::string>{"opevo-m", "opevo-m"}));
}

// A device's label names the device alone; an imported file's or a replay's names what it is.
TEST(RunCurves, ATitleNamesTheOperatorWhereTheLabelNamesTheDeviceAlone) {
  EXPECT_EQ(curvesTitle(cudaRun("")), "C2 on cuda: NVIDIA H200");
  RunRecord imported = cudaRun("");
  imported.backend = "replay-import";
  imported.label = "C2, tuned by opevo-m";
  EXPECT_EQ(curvesTitle(imported), "C2, tuned by opevo-m");  // read "C2 on C2, tuned by..."
  RunRecord replay = cudaRun("");
  replay.backend = "replay";
  replay.label = "replay of A100.json.gz (real measurements)";
  EXPECT_EQ(curvesTitle(replay), replay.label);
  RunRecord unlabelled = cudaRun("");
  unlabelled.label.clear();
  EXPECT_EQ(curvesTitle(unlabelled), "C2");
}

// A finished run's last best holds after its last trial, as History draws a stored run; a run
// still going has no best past its last trial, so the mean there is of the others.
TEST(RunCurves, AShorterRunKeepsItsLastBestInTheMean) {
  RunCurve longer, shorter;
  for (const double best : {1, 3, 3, 5}) longer.add(0, best);
  for (const double best : {2, 4}) shorter.add(0, best);
  longer.finished = shorter.finished = true;
  const std::vector<const RunCurve*> runs{&longer, &shorter};
  EXPECT_DOUBLE_EQ(*meanBestAtTrial(runs, 1), 1.5);
  EXPECT_DOUBLE_EQ(*meanBestAtTrial(runs, 2), 3.5);
  EXPECT_DOUBLE_EQ(*meanBestAtTrial(runs, 4), 4.5);
  EXPECT_DOUBLE_EQ(*meanBestAtTrial(runs, 1000), 4.5);
  shorter.finished = false;
  EXPECT_DOUBLE_EQ(*meanBestAtTrial(runs, 4), 5);
  EXPECT_FALSE(meanBestAtTrial(runs, 0).has_value());
  // The chart's band reads the same means.
  shorter.finished = true;
  const Band band = bandByTrial(runs);
  ASSERT_EQ(band.size(), 4u);
  for (std::size_t k = 0; k < band.size(); ++k)
    EXPECT_DOUBLE_EQ(band.mean[k], *meanBestAtTrial(runs, static_cast<int>(k) + 1));
}

TEST(RunCurves, AllFailedRunsSayWhyInOpevoTunesWords) {
  std::vector<TrialRow> rows(2);
  rows[0].seq = 1;
  rows[0].status = TrialStatus::CompileError;
  rows[0].message = "error: 'tile' was not declared\nmore";
  rows[1].seq = 2;
  rows[1].status = TrialStatus::Timeout;
  EXPECT_EQ(allFailedText(rows),
            "all 2 trials failed: 1 did not compile, 1 timed out (trial 1: error: 'tile' was not "
            "declared)");
  rows[1].status = TrialStatus::Ok;
  EXPECT_EQ(allFailedText(rows), "");
  EXPECT_EQ(allFailedText({}), "");
}

}  // namespace
}  // namespace opevo
