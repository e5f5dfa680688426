#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "net/tasks.h"
#include "space/search_space.h"
#include "tuners/tuner.h"

namespace opevo::net {

// Twin tasks: tasks of one operator (kind, shapes, stride, padding, groups, transposes) that are
// separate only because a different epilogue is fused after them, as ResNet's 3x3 convolutions
// that end a block (bias, add, relu) and the ones that start the next (bias, relu). The epilogue
// only changes how each output element is stored, not the loop nest: the twins' spaces are the
// same, and a configuration that runs one well is the first one worth trying on the other. On
// an H200 (docs/results/gpu.md, the fifth lease of 2026-11-29) ResNet-18's layer2.1.conv1 ended at
// 0.158 ms after 16 trials while its twin layer2.0.conv2 ran 0.101 ms, whose configuration
// layer2.1.conv1 never measured.

// What twins share: the operator's description without its name and epilogue. Tasks of equal
// keys are twins (identical epilogues included: those extractTasks has already made one task).
std::string twinKey(const OperatorSpec& op);

// For each task, its twins (the other tasks of its key), in task order; empty for most tasks.
std::vector<std::vector<std::size_t>> twinTasks(const TaskGraph& graph);

// How many of its twins' best configurations a task measures at most before a unit's own
// proposals: the twins' best and second best, so a unit of 4 keeps half for its tuner.
inline constexpr std::size_t kTwinConfigsPerUnit = 2;

// A task's measured trials as the tuner saw them (fitness 0: failed), in measurement order.
using MeasuredTrials = std::function<const std::vector<Observation>&(std::size_t task)>;

// A configuration of a twin that a task measures first, and the twin it came from.
struct TwinProposal {
  Config config;  // in the task's own space
  std::size_t from = 0;
};

// What a task measures first in its next unit: its twins' best configurations (by each twin's
// measured speed, the twins' bests first, then their second bests), at most `limit` and
// kTwinConfigsPerUnit, leaving out every configuration the task has measured (whatever its
// result: a configuration is measured once per task) and any its own space does not hold (a
// layout an earlier task constrained it away from). A configuration moves between the spaces as
// its text. Deterministic: a function of the measured trials alone, so a resumed network that
// restored them proposes what the uninterrupted one did.
std::vector<TwinProposal> twinProposals(std::size_t task, const std::vector<std::size_t>& twins,
                                        const std::vector<const SearchSpace*>& spaces,
                                        const MeasuredTrials& measured, std::size_t limit);

}  // namespace opevo::net
