#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "layout/tuning_mode.h"
#include "ops/operator.h"
#include "space/parameter.h"

namespace opevo::layout {

// A loop of a layout template's loop-order parameter (matmulLayoutSpace's and
// conv2dLayoutSpace's tile_order, reg_order, reduce_order): its short name, the dimension as the
// template's parameters name it, and what it walks.
struct LoopName {
  std::string_view name;
  std::string_view walks;
};

// The loops that the items of `param` are, item i the i-th (MatMulBlocking, Conv2DBlocking
// define the permutations' items so): a vertex such as 2,0,1 lists them outermost first. Empty
// for any other parameter, outside the layout modes, and for a permutation of another length (one
// typed as a spec, whose items have no names).
std::vector<LoopName> loopOrderNames(OpKind kind, TuningMode mode, const Parameter& param);

// loopOrderNames as a sentence, empty when there are none: "A vertex lists these loops outermost
// first: 0 = rc (input-channel blocks), 1 = ry (kernel rows), 2 = rx (kernel columns)." What
// `opevo space` prints under its table and the window's Spaces and Topology pages show.
std::string loopOrderMeaning(OpKind kind, TuningMode mode, const Parameter& param);

}  // namespace opevo::layout
