#pragma once

#include <string>
#include <string_view>

#include "ops/operator.h"
#include "space/search_space.h"

namespace opevo::layout {

// What a run of one operator tunes (ALT, seed 003): the loops of a template over the plain
// layouts (ALT-OL, and every template before layouts), or layouts and loops together (ALT's
// joint stage followed by a loop-only stage on the best layout).
enum class TuningMode { Loop, Joint };

// "loop" / "joint".
std::string_view tuningModeName(TuningMode mode);
// Throws InputError naming `where` and the accepted values.
TuningMode parseTuningMode(std::string_view text, const std::string& where);

// defaultSpace(op) for Loop, layoutSpace(op) for Joint (InputError where the operator has
// no layout template).
SearchSpace spaceFor(const OperatorSpec& op, TuningMode mode);

}  // namespace opevo::layout
