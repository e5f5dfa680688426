#pragma once

// ALT's layout propagation across tasks (seed 003): the network's complex operators are tuned one
// after another in topological order, and a task's layout choice constrains the tasks tuned after
// it. Tuning pins the relations between two tasks' layouts that the network program would
// otherwise make after tuning, with configurations the tasks were not timed with:
// - a residual: when the task that writes a tensor and the task that reads it as the residual of
//   its fused add write one output layout, the residual is read as it is (docs/layouts.md);
// - a depthwise convolution's input: the image, unpadded, its channels blocked as its output
//   channels (layout.out_c); where they are blocked as the producer's output channels and the
//   producer's output tiles hold whole rows (or one row each), the producer's buffer is read as
//   it is, and where they hold parts of several rows, the conversion copies whole blocks. The
//   program gives a depthwise convolution its producer's channel blocks
//   (gpu/net/network_program.cpp); pinned here, the depthwise task is tuned on them, so that the
//   program has nothing left to change in the configuration it was timed with.
// - a 1x1 convolution's input: an unpadded 1x1 convolution reads its producer's output as it is
//   once its input channels are blocked as the producer's output channels and its output rows
//   and columns as the producer's, over the stride (gpu/net/network_program.cpp's adoption, which
//   otherwise gives the reader that blocking after tuning, a configuration it was not timed
//   with); pinned here where the run asks (net tune --pin-inputs, PinnedLinks::input), the
//   reader is tuned on it, and the conversion in front of it is gone. It is not asked by default:
//   a 1x1 kernel tuned on a depthwise producer's blocking ran slower than the conversion it
//   saved (docs/layouts.md).
// Where one task has several links and 1x1 inputs are pinned (MobileNetV2's projection reads its
// depthwise convolution's output and adds the block's input), the one whose tensor is larger
// decides, as it saves the larger conversion. Every other tensor a layout task reads is the input
// of a padded or larger-kernel ungrouped convolution, whose layout has its padding and
// overlapping windows, and is converted whatever the producer chose.

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

// `reader`, a depthwise convolution task (layout::isDepthwise), reads `tensor` as its input, and
// `writer` (another task) writes it.
struct DepthwiseLink {
  std::size_t writer = 0;
  std::size_t reader = 0;
  std::string tensor;
};

// One per depthwise task whose input another task writes: its first occurrence that reads such
// an input decides, as in the program's adoption (gpu/net/network_program.cpp), in task order.
std::vector<DepthwiseLink> depthwiseLinks(const TaskGraph& graph);

// `reader`, an unpadded, ungrouped 1x1 convolution task (layout::readsProducerLayout), reads
// `tensor` as its input, and `writer` (another task) writes it; `stride` is the reader's.
struct InputLink {
  std::size_t writer = 0;
  std::size_t reader = 0;
  std::string tensor;
  std::int64_t stride = 1;
};

// One per such reader whose input another task writes: its first occurrence whose input a task
// writes decides, as in the program's adoption, whether or not the blocking fits.
std::vector<InputLink> inputLinks(const TaskGraph& graph);

// What links two tasks whose layouts a constraint ties: "residual" (the whole output layout),
// "depthwise-input" (the output channel blocking alone, layout.out_c), "input" (a 1x1 reader's
// input channel blocking, layout.in_c, and its output rows and columns, to its producer's output
// layout).
enum class LinkKind { Residual, DepthwiseInput, Input };
std::string_view linkKindName(LinkKind kind);
// What a link pins, as sentences say it: "output layout", "channel blocks", "input layout".
std::string_view linkPinsText(LinkKind kind);

// Which links pin, as a run's plan says (NetworkTuningPlan::depthwisePins, inputPins): residuals
// always; depthwise inputs unless the run was stored before they were; 1x1 inputs where the run
// asked (net tune --pin-inputs).
struct PinnedLinks {
  bool depthwise = true;
  bool input = false;
};

// Applied: the task's space holds only the earlier task's output layout. NoValidConfiguration:
// that layout left the space without a valid configuration, so the task kept its whole space.
enum class ConstraintOutcome { Applied, NoValidConfiguration };
// "applied", "no-valid-configuration".
std::string_view constraintOutcomeName(ConstraintOutcome outcome);

struct LayoutConstraint {
  std::size_t task = 0;  // the task constrained
  std::size_t by = 0;    // the earlier task whose chosen output layout it takes
  std::string tensor;    // the residual, or the depthwise or 1x1 convolution's input
  // The parameters pinned, as the space formats them ("layout.out_c=2,8; ..."): the output
  // layout's three for a residual, layout.out_c alone for a depthwise convolution's input,
  // layout.in_c, layout.out_h and layout.out_w for a 1x1 convolution's input.
  std::string layout;
  ConstraintOutcome outcome = ConstraintOutcome::Applied;
  LinkKind link = LinkKind::Residual;
};

// For `task`, about to be tuned after the tasks in `before` (in the order they were tuned, each
// with its best configuration so far in best[k], nullopt when none worked; spaces[k] what it was
// tuned over): of the earlier tasks linked to it with a best configuration whose blocking the
// task's parameters can take, the first tuned decides (a residual before a depthwise input); with
// 1x1 inputs pinned (`pinned.input`), the one whose linked tensor is largest (on equal sizes a
// residual, then a depthwise input, then the first tuned), the next where its pins leave no valid
// configuration. A residual link (either task the writer)
// pins the whole output layout; a depthwise link pins the output channel blocking alone: a
// depthwise convolution tuned after its producer takes the producer's chosen channel blocks, and a
// producer tuned after its depthwise reader (the reader's first occurrence read a tensor no task
// writes) is tied to the reader's, as a residual's producer tuned after its reader is, so that
// either way the program finds the two blocked alike. An input link pins a 1x1 reader tuned after
// its producer to read the producer's output layout as it is (a producer tuned after its reader is
// not pinned: the program adopts after tuning), where `pinned.input` asks. `space` (the task's)
// is narrowed in place: its pinned layout parameters (space/factor_param.h), its start point
// keeping its loops where they still fit, else the earlier task's where those fit. When the
// narrowed space has no valid configuration, `space` is left whole and the outcome says so.
// nullopt: no earlier task constrains the task (it has no layout parameters, or no linked task was
// tuned before it). `pinned`: the kinds of link a run's plan pins (residuals always).
std::optional<LayoutConstraint> constrainLayout(const TaskGraph& graph, std::size_t task,
                                                const std::vector<std::size_t>& before,
                                                const std::vector<const SearchSpace*>& spaces,
                                                const std::vector<std::optional<Config>>& best,
                                                SearchSpace& space, std::uint64_t seed,
                                                PinnedLinks pinned = {});

// {by, tensor, link, output_layout, outcome, applied}; null when there is no constraint.
nlohmann::json layoutConstraintJson(const TaskGraph& graph,
                                    const std::optional<LayoutConstraint>& constraint);

}  // namespace opevo::net
