#pragma once

#include "ops/operator_json.h"
#include "ui/controller/race_types.h"

namespace opevo::ui {

// The operator a device race measures, as it tunes it: the direct template's loops or layouts
// (spec.mode), or the loops of the template spec.target names. Throws InputError as loadOperator
// and the spaces do (an operator file that is wrong, a convolution Winograd's template does not
// take).
OperatorDefinition raceDefinition(const RaceSpec& spec);

}  // namespace opevo::ui
