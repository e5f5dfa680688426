#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"

namespace opevo {

// Stored runs compared as one experiment: History's chart and `opevo runs compare` read them
// alike, from here.

// Whether `run` compares with `anchor` (the current run, or the first named): the same problem on
// the same device (sameProblem) in the same unit, whatever space each tuned.
enum class Comparison { Same, OtherProblem, OtherUnit };
Comparison comparedWith(const RunRecord& anchor, const RunRecord& run);
// Why runs are left out, in the words both say: "another operator, narrowed space or device than
// run 3 (MM1 on AMD EPYC)", "measured in another unit than GFLOP/s".
std::string otherProblemText(const RunRecord& anchor);
std::string otherUnitText(const RunRecord& anchor);

// "all 10 trials failed: 8 did not compile, 2 timed out (trial 1: <its first line>)", or empty
// where a trial worked or there is none: such a run's best would be a flat 0 that reads as a
// speed, so it is said in words instead of drawn.
std::string allFailedText(const std::vector<TrialRow>& trials);

// The curve of each compared run: its algorithm (measuredBy), and its space as well ("opevo
// (loop)", "opevo (joint)") where the runs span several: loops alone beside ALT's layouts and
// loops are two curves of one algorithm, never repeats of one. Two spaces the names would not
// tell apart (an older run's common target beside a GPU's own) add their target.
std::vector<std::string> curveNames(const std::vector<const RunRecord*>& runs);

// What a run's curves are of, as a chart's title says it: a device run's label names the device
// alone ("cpu: AMD EPYC, 2 threads"), so the operator goes first ("MM1 on cpu: ..."), as on the
// Runs page; any other label (a replay's dataset, an imported file's) is the title as it is.
std::string curvesTitle(const RunRecord& run);

}  // namespace opevo
