#include "layout/tuning_mode.h"

#include <nlohmann/json.hpp>

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

std::string runModeName(const std::string& operatorJson) {
  const nlohmann::json j = nlohmann::json::parse(operatorJson, nullptr, false);
  if (!j.is_object()) return "";
  if (j.contains("replay")) return std::string(kReplayModeName);
  if (!j.contains("kind")) return "";
  const auto text = [&](const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
  };
  // Not "loop": its configurations are another tool's, of a space that is no template of ours.
  if (text("kind") == kImportedModeName) return std::string(kImportedModeName);
  // A stored run was checked when it was made: a name this build does not know (a newer one
  // wrote it) is shown as it is.
  const std::string target = text("target");
  if (!target.empty()) {
    try {
      const SpaceTarget t = parseSpaceTarget(target, "run");
      if (usesOwnTemplate(t)) return spaceModeName(TuningMode::Loop, t);
    } catch (const InputError&) {
      return target;
    }
  }
  const std::string mode = text("mode");
  return mode.empty() ? std::string(tuningModeName(TuningMode::Loop)) : mode;
}

std::string spaceModeName(TuningMode mode, SpaceTarget target) {
  return usesOwnTemplate(target) ? std::string(spaceTargetName(commonTarget(target)))
                                 : std::string(tuningModeName(mode));
}

SearchSpace spaceFor(const OperatorSpec& op, TuningMode mode, SpaceTarget target) {
  if (tunesLayouts(mode) && usesOwnTemplate(target))
    throw InputError(op.name + ": the " +
                     (target == SpaceTarget::Winograd ? "Winograd" : "matrix-vector") +
                     " template reads and writes the plain layouts; tune layouts (mode " +
                     std::string(tuningModeName(mode)) + ") with the direct template");
  if (!tunesLayouts(mode)) return defaultSpace(op, target);
  // A CUDA/HIP run's space (gpuTarget) starts where the GPU template runs well, not where this
  // host's vector unit would.
  return layoutSpace(op, target == SpaceTarget::Gpu ? StartDevice::Gpu : StartDevice::Cpu);
}

}  // namespace opevo::layout
