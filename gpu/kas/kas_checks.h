#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kas/budget_solver.h"
#include "kas/kas_training.h"

namespace opevo::kas {

// The checks every kas command makes of the options it shares, in one place: `kas search` refuses
// a value with the words `kas sample`, `tune` and `train` use, before it stores or trains
// anything (it used to run a G=3 kernel, train the baseline for an algorithm that does not
// exist, and store a failed search for a missing dataset). Each throws InputError.

// The convolutions of `network` (a preset or a file) that a kernel replaces, and (when `layers`
// is given) the layers of each shape.
std::vector<ConvTarget> networkTargets(const std::string& network,
                                       std::vector<std::vector<std::string>>* layers = nullptr);

// --groups G (0: each kernel's G is chosen) must divide every replaced layer's channels, as the
// group primitives split them: another G fits only the kernels that use no group, which reads as
// if it had been honoured.
void checkGroups(const std::vector<ConvTarget>& targets, std::int64_t groups,
                 const std::string& network);

// --algo and --trials as the engine will take them on a kernel's schedule space.
void checkTuning(const std::vector<ConvTarget>& targets, const std::string& algorithm, int trials);

// The training options, within what opevo-kas-train accepts (core/kas/training_limits.h), and
// the dataset's files there.
void checkTraining(const TrainRequest& request);

}  // namespace opevo::kas
