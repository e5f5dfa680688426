#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "kas/conv_baseline.h"
#include "kas/conv_targets.h"
#include "kas/kas_measurer.h"

namespace opevo::kas {

// A search's shared convolution figures (core/kas/conv_baseline.h): every target's convolution
// timed `repeats` times in one worker, the layers in turn, as `measuring` times the schedules
// compared with them. nullopt, with *why, when a layer could not be timed or `stop` was set.
std::optional<ConvBaseline> timeConvBaseline(const std::vector<ConvTarget>& targets, int repeats,
                                             const KasMeasurerOptions& measuring, std::string* why,
                                             const std::atomic<bool>* stop = nullptr);

}  // namespace opevo::kas
