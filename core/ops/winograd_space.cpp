#include "ops/winograd_space.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "common/error.h"
#include "ops/presets.h"
#include "space/factor_param.h"

namespace opevo {
namespace {

constexpr std::int64_t kMaxAccumulators = 256;
// 8-point transforms only for up to this many input channels: their fp32 error grows with the
// channels summed (the transform domain has alpha^2 products a channel whatever r is). At 64
// channels the worst output of F(7x7, 2x2), F(6x6, 3x3), F(5x5, 4x4) and F(4x4, 5x5) stayed under
// 3e-4 of our tolerance's measure over 0.5-1.6 million; F(6x6, 3x3) reached 9e-4 at 177 channels
// and F(7x7, 2x2) 1.4e-3 at 400 (docs/codegen.md).
constexpr std::int64_t kMaxChannelsForEightPoints = 64;

// The work of one output tile per input channel and output channel: the alpha^2 products and the
// input transform's 2 alpha^3 operations shared by a block's output channels (64 taken as
// typical): a nominal figure that only compares tile sizes.
double tileCost(std::int64_t alpha) {
  return static_cast<double>(alpha * alpha) + 2.0 * static_cast<double>(alpha * alpha * alpha) / 64;
}

std::int64_t tilesAlong(std::int64_t outputs, std::int64_t m) {
  return (outputs + m - 1) / m;
}

// The largest divisor of n that is at most cap.
std::int64_t divisorUpTo(std::int64_t n, std::int64_t cap) {
  for (std::int64_t d = std::min(n, cap); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

// Tiles below which a network keeps a convolution off the template (winogradPays).
constexpr std::int64_t kMinTilesPerWeight = 32;
// Parallel blocks the start point asks for where the tiles alone give fewer.
constexpr std::int64_t kStartBlocks = 8;

}  // namespace

std::int64_t winogradAlpha(const OperatorSpec& op) {
  const std::int64_t r = op.kernelH;
  std::int64_t best = 0;
  double bestCost = 0;
  for (std::int64_t alpha : {4, 6, 8}) {
    const std::int64_t m = alpha + 1 - r;
    if (m < 2 || (alpha == 8 && op.inChannels > kMaxChannelsForEightPoints)) continue;
    const double cost = tileCost(alpha) * static_cast<double>(tilesAlong(op.outHeight(), m) *
                                                              tilesAlong(op.outWidth(), m));
    // A larger tile has to save a fifth of the work: its transforms hold more registers and
    // shared memory and lose more accuracy than the nominal cost says.
    if (best == 0 || cost < 0.8 * bestCost) best = alpha, bestCost = cost;
  }
  return best;
}

std::optional<std::string> winogradMisfit(const OperatorSpec& op) {
  const std::string what =
      "the Winograd template takes ungrouped stride-1 Conv2Ds with square kernels of 2 to 5 taps";
  if (op.kind != OpKind::Conv2D) return what + "; this is not a Conv2D";
  if (op.stride != 1) return what + "; this one has stride " + std::to_string(op.stride);
  if (op.groups != 1) return what + "; this one has " + std::to_string(op.groups) + " groups";
  if (op.kernelH != op.kernelW || op.kernelH < 2 || op.kernelH > 5)
    return what + "; this one's kernel is " + std::to_string(op.kernelH) + "x" +
           std::to_string(op.kernelW);
  return std::nullopt;
}

WinogradShape winogradShape(const OperatorSpec& op) {
  op.validate();
  if (const std::optional<std::string> misfit = winogradMisfit(op))
    throw InputError(op.name + ": " + *misfit);
  WinogradShape s;
  s.r = op.kernelH;
  s.alpha = winogradAlpha(op);
  s.m = s.alpha + 1 - s.r;
  s.tilesH = tilesAlong(op.outHeight(), s.m);
  s.tilesW = tilesAlong(op.outWidth(), s.m);
  s.tiles = op.batch * s.tilesH * s.tilesW;
  return s;
}

bool winogradApplies(const OperatorSpec& op) {
  try {
    winogradShape(op);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

SearchSpace winogradSpace(const OperatorSpec& op) {
  const WinogradShape w = winogradShape(op);
  SearchSpace space;
  space.add(std::make_shared<FactorParam>("tile_f", op.outChannels, 3));
  space.add(std::make_shared<FactorParam>("tile_t", w.tiles, 3));
  space.add(std::make_shared<FactorParam>("tile_e", w.elements(), 2));
  space.add(std::make_shared<FactorParam>("tile_rc", op.inChannels, 2));
  const int f = space.indexOf("tile_f"), t = space.indexOf("tile_t"), e = space.indexOf("tile_e");
  space.addConstraint("at most 1024 threads per block", [op, s = space](const Config& c) {
    return threadsPerBlock(op, s, c) <= 1024;
  });
  // The output channels' blocks are the grid's y axis (CUDA's limit; HIP allows more).
  space.addConstraint("at most 65535 blocks of output channels",
                      [f](const Config& c) { return c[f][0] <= 65535; });
  space.addConstraint(
      "at most " + std::to_string(kMaxAccumulators) + " accumulators per thread",
      [=](const Config& c) { return c[f][2] * c[t][2] * c[e][1] <= kMaxAccumulators; });
  // The start point, where an untuned network runs (untunedConfig): 16 output channels by up to
  // 8 tiles per register tile (the CPU kernel's vector lanes by its broadcasts; a GPU thread's
  // inner tile), every transform element a step (a GPU block's threads), one stage of all input
  // channels, and channel blocks in parallel where the tiles give fewer than 8 blocks or a GPU
  // block would pass 1024 threads.
  const std::int64_t fi = divisorUpTo(op.outChannels, 16), ti = divisorUpTo(w.tiles, 8);
  const std::int64_t tOut = w.tiles / ti;
  std::int64_t fOut = 1;
  for (std::int64_t d = 1; d <= op.outChannels / fi; ++d) {
    if ((op.outChannels / fi) % d != 0) continue;
    fOut = d;
    if (tOut * d >= kStartBlocks && (op.outChannels / fi / d) * w.elements() <= 1024) break;
  }
  const std::string start =
      "tile_f=" + std::to_string(fOut) + "," + std::to_string(op.outChannels / fi / fOut) + "," +
      std::to_string(fi) + "; tile_t=" + std::to_string(tOut) + ",1," + std::to_string(ti) +
      "; tile_e=" + std::to_string(w.elements()) + ",1; tile_rc=1," + std::to_string(op.inChannels);
  if (const Config c = space.parse(start); space.satisfies(c)) space.setStartPoint(c);
  return space;
}

bool winogradPays(const OperatorSpec& op) {
  return winogradApplies(op) && winogradShape(op).tiles >= kMinTilesPerWeight;
}

bool isWinogradSpace(const SearchSpace& space) {
  return space.indexOf("tile_e") >= 0;
}

}  // namespace opevo
