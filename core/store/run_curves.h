#pragma once

#include <string>
#include <vector>

#include "store/store.h"

namespace opevo {

// The curves of stored runs compared as one experiment (History's chart, `opevo runs compare`):
// the runs of one problem on one device (sameProblem), each curve an algorithm (measuredBy), and
// its space as well ("opevo (loop)", "opevo (joint)") where the runs span several: loops alone
// beside ALT's layouts and loops are two curves of one algorithm, never repeats of one.
std::vector<std::string> curveNames(const std::vector<const RunRecord*>& runs);

// What a run's curves are of, as a chart's title says it: a device run's label names the device
// alone ("cpu: AMD EPYC, 2 threads"), so the operator goes first ("MM1 on cpu: ..."), as on the
// Runs page; a replay's label names its dataset, and a run without one is its operator.
std::string curvesTitle(const RunRecord& run);

}  // namespace opevo
