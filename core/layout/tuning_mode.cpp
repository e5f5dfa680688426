#include "layout/tuning_mode.h"

#include "common/enum_names.h"
#include "common/error.h"
#include "layout/operand_layouts.h"
#include "ops/presets.h"

namespace opevo::layout {
namespace {

constexpr EnumNames<TuningMode, 3> kModeNames{{{{TuningMode::Loop, "loop"},
                                                {TuningMode::Joint, "joint"},
                                                {TuningMode::JointNoPropagation, "joint-np"}}}};

}  // namespace

std::string_view tuningModeName(TuningMode mode) {
  return kModeNames.name(mode);
}

TuningMode parseTuningMode(std::string_view text, const std::string& where) {
  if (auto mode = kModeNames.parse(text)) return *mode;
  throw InputError(where + ": unknown tuning mode '" + std::string(text) +
                   "' (modes: " + kModeNames.list() + ")");
}

bool tunesLayouts(TuningMode mode) {
  return mode != TuningMode::Loop;
}

SearchSpace spaceFor(const OperatorSpec& op, TuningMode mode, SpaceTarget target) {
  if (tunesLayouts(mode) && usesOwnTemplate(target))
    throw InputError(op.name + ": the " +
                     (target == SpaceTarget::Winograd ? "Winograd" : "matrix-vector") +
                     " template reads and writes the plain layouts; tune layouts (mode " +
                     std::string(tuningModeName(mode)) + ") with the direct template");
  return tunesLayouts(mode) ? layoutSpace(op) : defaultSpace(op, target);
}

}  // namespace opevo::layout
