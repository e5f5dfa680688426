#include "ops/winograd_space.h"

#include <memory>
#include <string>

#include "common/error.h"
#include "ops/presets.h"
#include "space/factor_param.h"

namespace opevo {
namespace {

constexpr std::int64_t kAlpha = 6;
constexpr std::int64_t kMaxAccumulators = 256;

}  // namespace

WinogradShape winogradShape(const OperatorSpec& op) {
  op.validate();
  const std::string what = op.name + ": the Winograd template takes ungrouped stride-1 Conv2Ds " +
                           "with square kernels of 2 to 5 taps";
  if (op.kind != OpKind::Conv2D) throw InputError(what + "; this is not a Conv2D");
  if (op.stride != 1) throw InputError(what + "; this one has stride " + std::to_string(op.stride));
  if (op.groups != 1)
    throw InputError(what + "; this one has " + std::to_string(op.groups) + " groups");
  if (op.kernelH != op.kernelW || op.kernelH < 2 || op.kernelH > 5)
    throw InputError(what + "; this one's kernel is " + std::to_string(op.kernelH) + "x" +
                     std::to_string(op.kernelW));
  WinogradShape s;
  s.r = op.kernelH;
  s.alpha = kAlpha;
  s.m = kAlpha + 1 - s.r;
  s.tilesH = (op.outHeight() + s.m - 1) / s.m;
  s.tilesW = (op.outWidth() + s.m - 1) / s.m;
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
  return space;
}

bool isWinogradSpace(const SearchSpace& space) {
  return space.indexOf("tile_e") >= 0;
}

}  // namespace opevo
