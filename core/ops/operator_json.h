#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "layout/tuning_mode.h"
#include "ops/operator.h"
#include "space/search_space.h"

namespace opevo {

// An operator as JSON, the form of user-defined operator files (docs/operators.md):
//   {"name": "bert_ffn", "kind": "matmul", "dtype": "fp32",
//    "shape": {"n": 512, "k": 1024, "m": 4096, "trans_a": false, "trans_b": false},
//    "space": {"auto_unroll_max_step": "discrete:0,256,512"}}
// Conv2D shapes: batch, in_channels, height, width, out_channels, kernel_h, kernel_w, stride,
// pad, groups (default 1). "epilogue" (optional) lists elementwise steps applied to every output
// element in order: "bias", "relu", "relu6", "gelu", "add" (a residual tensor) or
// {"scale": 0.125}.
// "space" is optional and may only change the values of discrete and choice parameters:
// the factor parameters follow from the shape and the kernel template.
// "mode" (optional): "loop" (default: the template's loops over plain layouts) or "joint"
// (layouts and loops, ALT's template; docs/layouts.md).
// "target" (optional, written by the CUDA/HIP backends into the runs they store): "common"
// (default) or "gpu", the space with the GPU templates' own parameters (defaultSpace); or
// "winograd", the CUDA/HIP Winograd template's space (stride-1 Conv2Ds, ops/winograd_space.h);
// "matvec", the matrix-vector template's (few rows of A, ops/matvec_space.h), or "matvec-gpu",
// that with the CUDA/HIP kernel's own parameters.
nlohmann::json operatorToJson(const OperatorSpec& op);
nlohmann::json epilogueToJson(const Epilogue& epilogue);
// Throws InputError naming `where` and the step at fault.
Epilogue epilogueFromJson(const nlohmann::json& j, const std::string& where);
// Throws InputError naming the source (file name), and every field wrong and what was expected.
OperatorSpec operatorFromJson(const nlohmann::json& j, const std::string& source);

struct OperatorDefinition {
  OperatorSpec op;
  SearchSpace space;
  nlohmann::json spaceOverrides = nlohmann::json::object();
  layout::TuningMode mode = layout::TuningMode::Loop;
  SpaceTarget target = SpaceTarget::Common;
};

// The definition with its space rebuilt for `target` (a no-op when it has it); overrides of the
// space are kept where the new space has the parameter.
OperatorDefinition withSpaceTarget(OperatorDefinition def, SpaceTarget target);

// A configuration of def's space as one of withSpaceTarget(def, commonTarget(def.target))'s: the
// GPU templates' own parameters (which change how GPU blocks share the work, not the result)
// left out; a configuration of a common space or of Winograd's (one space for every backend) as
// it is. In *left, when given: those of them not at their value when absent, as "name=value; ...".
Config commonConfig(const OperatorDefinition& def, const Config& config,
                    std::string* left = nullptr);

// The definition of op tuned in another mode: its space rebuilt for the mode. Overrides of the
// space are kept where the new space has the parameter; throws InputError as spaceFor does.
OperatorDefinition withTuningMode(OperatorDefinition def, layout::TuningMode mode);

// A preset name (MM1..C2, AlexNet layers) or a path to an operator file. With a mode (a
// command's --mode), the operator is read for that mode instead of the file's own: its space
// overrides are checked against that mode's template (a joint file's unroll_c is unknown to the
// loop template), as withTuningMode would not (it drops the overrides the new template lacks).
OperatorDefinition loadOperator(const std::string& presetOrPath,
                                std::optional<layout::TuningMode> mode = std::nullopt);
// Throws InputError naming the source: every wrong shape field at once, in one line
// (operatorFileProblems lists them one by one), or the first problem of the space, mode, target.
OperatorDefinition operatorDefinitionFromJson(
    const nlohmann::json& j, const std::string& source,
    std::optional<layout::TuningMode> mode = std::nullopt);
nlohmann::json operatorDefinitionToJson(const OperatorDefinition& def);

}  // namespace opevo
