#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ops/operator.h"
#include "space/search_space.h"

namespace opevo {

// Which templates a space serves. Common: every backend's (the CPU templates read no more than
// these parameters). Gpu: the CUDA/HIP templates, which have parameters of their own. Winograd:
// the CUDA/HIP Winograd convolution template (ops/winograd_space.h), a space of its own. MatVec:
// the matrix-vector template for products with few rows (ops/matvec_space.h), one too, as every
// backend's template reads it; MatVecGpu: the same with the CUDA/HIP template's own parameters.
enum class SpaceTarget { Common, Gpu, Winograd, MatVec, MatVecGpu };
std::string_view spaceTargetName(SpaceTarget target);
// "common", "gpu", "winograd", "matvec" or "matvec-gpu"; throws InputError naming `where`
// otherwise.
SpaceTarget parseSpaceTarget(std::string_view text, const std::string& where);
// The target a CUDA/HIP run of the template tunes (Gpu for Common, MatVecGpu for MatVec: the GPU
// templates' own parameters added), and the one every backend's template reads (the reverse);
// Winograd's is both.
SpaceTarget gpuTarget(SpaceTarget target);
SpaceTarget commonTarget(SpaceTarget target);
// Whether the target is the space of a template of its own rather than of the direct template
// (Winograd's, the matrix-vector one): such a space tunes loops over the plain layouts, on the
// device backends (cpu, cuda, hip).
bool usesOwnTemplate(SpaceTarget target);
// Why the target's template does not take the operator (winogradMisfit, matvecMisfit), as a
// sentence without the operator's name, so that the caller can name what chose the target (an
// operator file's "target" field, --target, --template); none where it takes it. The direct
// template (Common, Gpu) takes every operator.
std::optional<std::string> templateMisfit(const OperatorSpec& op, SpaceTarget target);
// Throws InputError "<chosenBy> does not fit operator 'NAME': <templateMisfit>" where the
// target's template does not take the operator; chosenBy names what asked for it, e.g.
// "--target winograd" or "op.json: \"target\": \"winograd\"".
void requireTemplateFits(const OperatorSpec& op, SpaceTarget target, const std::string& chosenBy);

// The OpEvo paper's operators (appendix B): MM1-3, BMM1-3, C1-2; and AlexNet's convolution and
// dense layers at batch 1 and 128 (alexnet_conv1_b1 ... alexnet_fc8_b128); ResNet-18's stride-1
// 3x3 convolutions at batch 1 (resnet18_conv2_b1 ... resnet18_conv5_b1); two of MobileNetV2's
// depthwise convolutions at batch 1 (mobilenet_v2_dw2_b1, mobilenet_v2_dw8_b1).
std::vector<std::string> presetNames();
bool isPreset(std::string_view name);
// Throws InputError listing the presets when name is not one.
OperatorSpec preset(std::string_view name);
// The preset named `name` in another case ("mm1": MM1), for a "did you mean".
std::optional<std::string> presetInOtherCase(std::string_view name);

// The TVM-template space of an operator (what the factors mean: REFERENCE.md):
//   MatMul: tile_n, tile_m into 4 (block, vthread, thread, inner), tile_k into 3.
//   BatchMatMul: tile_b into 2 (block, thread) plus the MatMul parameters.
//   Conv2D: tile_f, tile_y, tile_x into 4; tile_rc, tile_ry, tile_rx into 2;
//           auto_unroll_max_step {0, 512, 1500}; unroll_explicit {0, 1}.
// Constraint: at most 1024 threads per block, the limit of every CUDA and HIP device.
// SpaceTarget::Gpu adds what only the CUDA/HIP templates read: MatMul and BatchMatMul get
// split_k {1, 2, 4, 8, 16} (blocks of one output tile share its K loop, so that a small output
// still fills the device), dividing tile_k's outer factor, and stages {1, 2} (2: double-buffered
// shared memory, at most 64 floats of the next slab fetched per thread); a Conv2D of at most 2^20
// outputs gets split_k (blocks share a tile's input channels), dividing tile_rc's outer factor,
// with at most 65535 blocks along grid z and per split; all 1 for configurations stored before
// them. SpaceTarget::Winograd gives winogradSpace(op) (InputError for an operator the Winograd
// template does not take), MatVec and MatVecGpu matvecSpace(op) without and with the GPU
// parameters (likewise).
SearchSpace defaultSpace(const OperatorSpec& op, SpaceTarget target = SpaceTarget::Common);

// The configuration an untuned task runs with (networks before tuning): the space's start point
// when it has one (a layout space's library-style blocking); otherwise every loop in blocks with a
// small register tile (at most 4 per output axis, 8 per reduction), one thread per block, the
// first value of every other parameter. Satisfies the space's constraints.
Config untunedConfig(const SearchSpace& space);

// Threads per block of a configuration of defaultSpace(op).
std::int64_t threadsPerBlock(const OperatorSpec& op, const SearchSpace& space, const Config& c);

}  // namespace opevo
