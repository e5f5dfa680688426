#pragma once

// Which configuration each task keeps for the network, once the tuned and the untuned
// configurations have run end to end in one process. A task's best is timed alone, and in the
// chain it and the conversions its layouts bring can cost more than they gained (MobileNetV2:
// docs/results/networks.md): each task takes the configuration its steps ran faster with in the
// chain, and the network the fastest of the three networks that makes, checked end to end.

#include <string>
#include <string_view>
#include <vector>

#include "net/end_to_end.h"
#include "net/kept_network.h"
#include "net/tasks.h"
#include "space/search_space.h"

namespace opevo::net {

// Two medians of one program here move by up to this factor between runs: a network is said
// slower, or chosen over the tuned one, only beyond it.
inline constexpr double kEndToEndNoise = 1.03;

// Per task, the time its steps took in a chained run: its kernel at every occurrence and the
// layout conversions around them (steps are named by the occurrence's layer).
std::vector<double> taskChainMs(const TaskGraph& graph, const std::vector<StepTime>& steps);

// Per task, its configuration in `a` unless its steps took less in the run of `b` (ranA and ranB:
// the two networks' runs); the tasks that took b's are named in *took.
std::vector<Config> fasterPerTask(const TaskGraph& graph, const std::vector<Config>& a,
                                  const EndToEnd& ranA, const std::vector<Config>& b,
                                  const EndToEnd& ranB, std::vector<std::string>* took = nullptr);

// The tuned network unless another ran faster by more than kEndToEndNoise, the faster of the two
// where both did. A run whose output differs from its reference is never chosen.
NetworkChoice chooseNetwork(const EndToEnd& tuned, const EndToEnd* mixed, const EndToEnd* untuned);

}  // namespace opevo::net
