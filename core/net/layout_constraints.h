#pragma once

// ALT's layout propagation across tasks (seed 003): the network's complex operators are tuned one
// after another in topological order, and a task's layout choice constrains the tasks tuned after
// it. Tuning pins one relation between two tasks' layouts that the network program turns into a
// saved conversion, a residual: when the task that writes a tensor and the task that reads it as
// the residual of its fused add write one output layout, the residual is read as it is
// (docs/layouts.md). The other, a 1x1 convolution reading its producer's output as it is, is
// not pinned here: the program links it after tuning (gpu/net/network_program.cpp). Every other
// tensor a layout task reads is its input, whose layout has the convolution's padding and
// overlapping windows, and is converted whatever the producer chose (the program still gives a
// depthwise convolution its producer's channel blocks after tuning, so that the conversion
// copies whole blocks).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/tasks.h"
#include "space/search_space.h"

namespace opevo::net {

// `writer` writes `tensor`, which `reader` (another task) adds as the residual of its epilogue.
struct ResidualLink {
  std::size_t writer = 0;
  std::size_t reader = 0;
  std::string tensor;
};

// Every such pair, once per (writer, reader), in the order of the reader's occurrences.
std::vector<ResidualLink> residualLinks(const TaskGraph& graph);

// Applied: the task's space holds only the earlier task's output layout. NoValidConfiguration:
// that layout left the space without a valid configuration, so the task kept its whole space.
enum class ConstraintOutcome { Applied, NoValidConfiguration };
// "applied", "no-valid-configuration".
std::string_view constraintOutcomeName(ConstraintOutcome outcome);

struct LayoutConstraint {
  std::size_t task = 0;  // the task constrained
  std::size_t by = 0;    // the earlier task whose chosen output layout it takes
  std::string tensor;    // the residual that links them
  // The output layout's parameters as the space formats them ("layout.out_c=2,8; ...").
  std::string layout;
  ConstraintOutcome outcome = ConstraintOutcome::Applied;
};

// For `task`, about to be tuned after the tasks in `before` (in the order they were tuned, each
// with its best configuration so far in best[k], nullopt when none worked; spaces[k] what it was
// tuned over): the first earlier task linked to it by a residual, with a best configuration and
// an output layout of the same shape, decides its output layout. `space` (the task's) is narrowed
// in place to that layout: its output layout parameters pinned (space/factor_param.h), its start
// point keeping its loops where they still fit, else the earlier task's where those fit. When the
// narrowed space has no valid configuration, `space` is left whole and the outcome says so.
// nullopt: no earlier task constrains the task (it has no output layout parameters, or no linked
// task was tuned before it).
std::optional<LayoutConstraint> constrainOutputLayout(
    const TaskGraph& graph, std::size_t task, const std::vector<std::size_t>& before,
    const std::vector<const SearchSpace*>& spaces, const std::vector<std::optional<Config>>& best,
    SearchSpace& space, std::uint64_t seed);

// {by, tensor, output_layout, outcome, applied}; null when there is no constraint.
nlohmann::json layoutConstraintJson(const TaskGraph& graph,
                                    const std::optional<LayoutConstraint>& constraint);

}  // namespace opevo::net
