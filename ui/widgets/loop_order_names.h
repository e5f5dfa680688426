#pragma once

#include <QString>

#include "ops/operator_json.h"
#include "space/parameter.h"

namespace opevo::ui {

// layout::loopOrderMeaning (core/layout/loop_order_names.h) for the Spaces and Topology pages: a
// vertex such as 2,0,1 meant nothing to a reader who could not map its numbers to loops.
// `shown`: the operator in the template whose space holds the parameter.
QString loopOrderMeaning(const OperatorDefinition& shown, const Parameter& param);

}  // namespace opevo::ui
