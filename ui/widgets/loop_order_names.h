#pragma once

#include <QString>

#include "ops/operator_json.h"
#include "space/parameter.h"

namespace opevo::ui {

// What the indices of a layout template's loop-order parameter name (core/layout's
// matmulLayoutSpace and conv2dLayoutSpace: tile_order, reg_order, reduce_order), as a sentence
// for the Spaces and Topology pages: "A vertex lists these loops outermost first: 0 = rc
// (input-channel blocks), 1 = ry (kernel rows), 2 = rx (kernel columns)." A vertex such as 2,0,1
// meant nothing to a reader who could not map its numbers to loops. Empty for any other
// parameter (and for a permutation typed as a spec, whose items have no names).
// `shown`: the operator in the template whose space holds the parameter.
QString loopOrderMeaning(const OperatorDefinition& shown, const Parameter& param);

}  // namespace opevo::ui
