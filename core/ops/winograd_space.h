#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ops/operator.h"
#include "space/search_space.h"

namespace opevo {

// Winograd's minimal filtering (Lavin & Gray, F(m x m, r x r)): a stride-1 convolution computed
// tile by tile, each m x m block of outputs from an alpha x alpha block of input (alpha = m + r -
// 1) through transforms of the input, the weights and the product; the multiply-adds per output
// fall from r * r to alpha * alpha / (m * m). alpha is 4, 6 or 8, chosen per operator by
// winogradAlpha.
struct WinogradShape {
  std::int64_t r = 0, m = 0, alpha = 0;
  // Output tiles per image along each axis (the last ones may stick out of the output) and in
  // all: the images' tiles one after another.
  std::int64_t tilesH = 0, tilesW = 0, tiles = 0;
  std::int64_t elements() const { return alpha * alpha; }
};

// The transform size for a Conv2D the template takes: of 4, 6 and 8 points (m >= 2), the smallest
// unless a larger one does a fifth less work over the output's tiles (tiles that stick out of the
// output count whole); 8 points only for at most 64 input channels (fp32 accuracy). C2
// (27 x 27, 5x5) gets F(4x4, 5x5), ResNet-18's and AlexNet's 3x3 layers F(4x4, 3x3).
std::int64_t winogradAlpha(const OperatorSpec& op);

// What rules the operator out of the template, as a sentence without the operator's name (the
// template takes ungrouped Conv2Ds of stride 1 with square kernels of 2 to 5 taps); none where
// it takes it. A caller names what asked for the template: a file's field or an option.
std::optional<std::string> winogradMisfit(const OperatorSpec& op);
// Throws InputError naming the operator and winogradMisfit's reason.
WinogradShape winogradShape(const OperatorSpec& op);
bool winogradApplies(const OperatorSpec& op);
// Whether a network gives the operator to the template: it takes it, and each transformed weight
// (alpha^2 / r^2 times as many as the weights, 4x for F(4x4, 3x3)) serves at least 32 tiles.
// With fewer, reading the transformed weights costs more than the multiplications save: on the
// CPU, ResNet-18's 7 x 7 layers at batch 1 (4 tiles) ran at 0.24x oneDNN's direct convolution,
// and its 14 x 14 ones (16 tiles), 1.5x oneDNN timed alone, lost that in the chained network,
// where their 9.4 MB of transformed weights come from memory (docs/codegen.md).
bool winogradPays(const OperatorSpec& op);

// The space of the GPU Winograd template (docs/codegen.md): a block computes the products of
// BLOCK_F output channels by BLOCK_T tiles at all alpha * alpha transform elements, over the input
// channels in stages; a thread keeps F_IN x T_IN x E_IN of them.
//   tile_f: output channels into [block, thread, inner]
//   tile_t: output tiles into [block, thread, inner]
//   tile_e: transform elements (alpha * alpha) into [thread, inner]
//   tile_rc: input channels into [outer, inner] (the channels one stage transforms)
// Constraints: at most 1024 threads per block; at most 256 accumulators per thread (more cannot
// stay in registers); at most 65535 blocks of output channels (the grid's y axis). The CPU kernel
// reads the same factors (codegen/conv2d_winograd_cpu_template.cpp). Its start point: 16 output
// channels by up to 8 tiles a register tile, all input channels in one stage.
SearchSpace winogradSpace(const OperatorSpec& op);
// Whether a space is winogradSpace's (it has tile_e).
bool isWinogradSpace(const SearchSpace& space);

}  // namespace opevo
