#pragma once

#include <string>
#include <string_view>

#include "ops/operator.h"
#include "ops/presets.h"
#include "space/search_space.h"

namespace opevo::layout {

// What a run tunes (ALT, seed 003): the loops of a template over the plain layouts (ALT-OL, and
// every template before layouts), or layouts and loops together (ALT's joint stage followed by a
// loop-only stage on the best layout). In a network, Joint also propagates layouts (ALT): a layer
// that reads a tuned operator's output reads it in that operator's layout where it can, instead
// of from a converted copy; JointNoPropagation (ALT-WP) converts every such tensor. For one
// operator the two joint modes are the same.
enum class TuningMode { Loop, Joint, JointNoPropagation };

// "loop" / "joint" / "joint-np".
std::string_view tuningModeName(TuningMode mode);
// Throws InputError naming `where` and the accepted values.
TuningMode parseTuningMode(std::string_view text, const std::string& where);

bool tunesLayouts(TuningMode mode);

// What a stored run tuned, from its operator JSON (RunRecord::operatorJson), as `opevo runs`,
// `opevo show` and the window's History name it: "loop" or "joint" (tuningModeName), "winograd" or
// "matvec" (the kernel template, `opevo tune --template`; matvec-gpu reads "matvec"), "replay" (a
// replay of a dataset, whose space is the dataset's), "imported" (a measured file `opevo import`
// stored: another tool tuned it, in a space of its own), or "" where the text is no operator.
std::string runModeName(const std::string& operatorJson);
// What runModeName reads of a replay's run.
inline constexpr std::string_view kReplayModeName = "replay";
// What runModeName reads of an imported file's run (io/run_import.h).
inline constexpr std::string_view kImportedModeName = "imported";
// What runModeName reads of a run of this space: the template's name where the target has its own
// (winograd, matvec), else the mode's.
std::string spaceModeName(TuningMode mode, SpaceTarget target);

// defaultSpace(op, target) for Loop, layoutSpace(op) for the joint modes (InputError where the
// operator has no layout template, or for the Winograd target; the layout templates have no
// target-specific parameters, but the Gpu target's space starts from the GPU's start blocking).
SearchSpace spaceFor(const OperatorSpec& op, TuningMode mode,
                     SpaceTarget target = SpaceTarget::Common);

}  // namespace opevo::layout
