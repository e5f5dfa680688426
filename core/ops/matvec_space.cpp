#include "ops/matvec_space.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "space/discrete_param.h"
#include "space/factor_param.h"

namespace opevo {
namespace {

constexpr std::int64_t kMaxAccumulators = 64;
// Floats of B one thread has in flight: every one of them is a register until its FMAs.
constexpr std::int64_t kMaxInFlight = 64;
constexpr std::int64_t kMaxSharedBytes = 48 * 1024;
constexpr std::int64_t kWarp = 32;

template <std::size_t N>
std::vector<double> values(const std::array<std::int64_t, N>& a) {
  return std::vector<double>(a.begin(), a.end());
}

SearchSpace buildSpace(const OperatorSpec& op, bool gpuParams) {
  SearchSpace space;
  space.add(std::make_shared<FactorParam>("tile_m", op.m, 3));
  space.add(std::make_shared<DiscreteParam>("vector", values(kMatVecVectors)));
  space.add(std::make_shared<DiscreteParam>("unroll", values(kMatVecUnrolls)));
  if (gpuParams) {
    space.add(std::make_shared<DiscreteParam>("lanes", values(kMatVecLanes)));
    space.add(std::make_shared<DiscreteParam>("k_split", values(kMatVecKSplits)));
    const auto& lanes = static_cast<const DiscreteParam&>(space.param(space.indexOf("lanes")));
    space.setValueWhenAbsent("lanes",
                             {static_cast<std::int64_t>(lanes.indexOf(kMatVecLanesWhenAbsent))});
    space.setValueWhenAbsent("k_split", {0});
  }
  const int m = space.indexOf("tile_m");
  // The constraints read the space as built here: operator files cannot override these
  // parameters (operatorDefinitionFromJson), so the values they see are the kernel's.
  const SearchSpace s = space;
  space.addConstraint("vector divides K", [=, k = op.k](const Config& c) {
    return k % matvecValue(s, c, "vector") == 0;
  });
  space.addConstraint(
      "at most " + std::to_string(kMaxAccumulators) + " accumulators per thread",
      [=, rows = op.n](const Config& c) { return rows * c[m][2] <= kMaxAccumulators; });
  space.addConstraint(
      "at most " + std::to_string(kMaxInFlight) +
          " floats in flight per thread (columns x unroll x vector)",
      [=](const Config& c) {
        return c[m][2] * matvecValue(s, c, "unroll") * matvecValue(s, c, "vector") <= kMaxInFlight;
      });
  if (!gpuParams) return space;
  space.addConstraint("whole warps: a multiple of 32 threads per block, at most 1024",
                      [=](const Config& c) {
                        const std::int64_t t = matvecThreads(s, c);
                        return t % kWarp == 0 && t <= 1024;
                      });
  space.addConstraint("every thread has K to read: lanes x k_split x vector <= K",
                      [=, k = op.k](const Config& c) {
                        return matvecValue(s, c, "lanes") * matvecValue(s, c, "k_split") *
                                   matvecValue(s, c, "vector") <=
                               k;
                      });
  space.addConstraint("at most 48 KiB of shared memory", [=, rows = op.n](const Config& c) {
    return matvecSharedBytes(rows, c[m][1] * c[m][2], matvecValue(s, c, "k_split")) <=
           kMaxSharedBytes;
  });
  return space;
}

// The start point: 4 groups of 32 lanes (else 2, else 1: a block of whole warps), one column a
// group, k_split 1, float4 loads (else float2, else float: dividing K, and 32 lanes' worth at
// most K), two deep. requireMatVec's K >= 32 makes float loads always fit; the common space
// takes the same point without lanes and k_split (their values when absent).
std::string startText(const OperatorSpec& op, bool gpuParams) {
  std::int64_t groups = 4;
  while (op.m % groups != 0) groups /= 2;
  std::int64_t width = 4;
  while (op.k % width != 0 || kMatVecLanesWhenAbsent * width > op.k) width /= 2;
  std::string text = "tile_m=" + std::to_string(op.m / groups) + "," + std::to_string(groups) +
                     ",1; vector=" + std::to_string(width) + "; unroll=2";
  if (gpuParams)
    text += "; lanes=" + std::to_string(kMatVecLanesWhenAbsent) +
            "; k_split=" + std::to_string(kMatVecKSplitWhenAbsent);
  return text;
}

}  // namespace

std::int64_t matvecValue(const SearchSpace& space, const Config& c, const char* name) {
  const int i = space.indexOf(name);
  if (i < 0) {
    const std::string n = name;
    if (n == "lanes") return kMatVecLanesWhenAbsent;
    if (n == "k_split") return kMatVecKSplitWhenAbsent;
    throw InputError("the matrix-vector space has no parameter '" + n + "'");
  }
  const auto& p = static_cast<const DiscreteParam&>(space.param(static_cast<std::size_t>(i)));
  return static_cast<std::int64_t>(p.value(c[static_cast<std::size_t>(i)]));
}

std::int64_t matvecThreads(const SearchSpace& space, const Config& c) {
  return c[static_cast<std::size_t>(space.indexOf("tile_m"))][1] * matvecValue(space, c, "lanes") *
         matvecValue(space, c, "k_split");
}

std::int64_t matvecSharedBytes(std::int64_t rows, std::int64_t blockColumns, std::int64_t kSplit) {
  return kSplit > 1 ? kSplit * rows * blockColumns * 4 : 0;
}

std::optional<std::string> matvecMisfit(const OperatorSpec& op) {
  const std::string what =
      "the matrix-vector template takes MatMul or BatchMatMul with B stored "
      "transposed (m x k, as dense layers store weights) and at most " +
      std::to_string(kMatVecMaxRows) + " rows of A";
  if (op.kind != OpKind::MatMul && op.kind != OpKind::BatchMatMul)
    return what + "; this is not a MatMul";
  if (!op.transB) return what + "; this one's B is stored k x m";
  if (op.n > kMatVecMaxRows) return what + "; this one has " + std::to_string(op.n) + " rows";
  if (op.k < 32)
    return what + " and at least 32 sums per output; this one has K = " + std::to_string(op.k);
  if (op.batch > 65535)
    return what + "; its " + std::to_string(op.batch) +
           " batches pass the grid's 65535 blocks along y";
  return std::nullopt;
}

void requireMatVec(const OperatorSpec& op) {
  op.validate();
  if (const std::optional<std::string> misfit = matvecMisfit(op))
    throw InputError(op.name + ": " + *misfit);
}

bool matvecApplies(const OperatorSpec& op) {
  try {
    requireMatVec(op);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

SearchSpace matvecSpace(const OperatorSpec& op, bool gpuParams) {
  requireMatVec(op);
  SearchSpace space = buildSpace(op, gpuParams);
  space.setStartPoint(space.parse(startText(op, gpuParams)));
  return space;
}

bool isMatVecSpace(const SearchSpace& space) {
  return space.indexOf("tile_m") >= 0 && space.indexOf("vector") >= 0 &&
         space.indexOf("tile_k") < 0;
}

}  // namespace opevo
