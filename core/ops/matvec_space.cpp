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

// The start point's shape, checked against the GPU space: 4 groups (else 2, 1, then any other
// divisor of m), 32 lanes (else fewer), k_split 1 (else more), float4 loads (else float2, float),
// tried loads first, then lanes, then splits, then groups; the common space takes the first with
// 32 lanes and k_split 1, which a GPU run of it also gets. requireMatVec's K >= 32 makes one group
// of 32 lanes with float loads always fit.
struct Start {
  std::int64_t groups, width, lanes, kSplit;
};

std::string startText(const OperatorSpec& op, const Start& s, bool gpuParams) {
  std::string text = "tile_m=" + std::to_string(op.m / s.groups) + "," + std::to_string(s.groups) +
                     ",1; vector=" + std::to_string(s.width) + "; unroll=2";
  if (gpuParams)
    text += "; lanes=" + std::to_string(s.lanes) + "; k_split=" + std::to_string(s.kSplit);
  return text;
}

std::optional<Start> findStart(const OperatorSpec& op, const SearchSpace& gpu, bool commonOnly) {
  std::vector<std::int64_t> groups = {4, 2, 1};
  for (std::int64_t d = 8; d <= 1024; ++d)
    if (op.m % d == 0) groups.push_back(d);
  for (std::int64_t g : groups)
    for (std::int64_t k : kMatVecKSplits)
      for (std::int64_t l : {32, 16, 8, 4, 2, 1})
        for (std::int64_t width : {4, 2, 1}) {
          if (commonOnly && (l != kMatVecLanesWhenAbsent || k != kMatVecKSplitWhenAbsent)) continue;
          if (op.m % g != 0 || op.k % width != 0) continue;
          const Start s{g, width, l, k};
          if (gpu.satisfies(gpu.parse(startText(op, s, true)))) return s;
        }
  return std::nullopt;
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

void requireMatVec(const OperatorSpec& op) {
  op.validate();
  const std::string what = op.name + ": the matrix-vector template takes MatMul or BatchMatMul " +
                           "with B stored transposed (m x k, as dense layers store weights) " +
                           "and at most " + std::to_string(kMatVecMaxRows) + " rows of A";
  if (op.kind != OpKind::MatMul && op.kind != OpKind::BatchMatMul)
    throw InputError(what + "; this is not a MatMul");
  if (!op.transB) throw InputError(what + "; this one's B is stored k x m");
  if (op.n > kMatVecMaxRows)
    throw InputError(what + "; this one has " + std::to_string(op.n) + " rows");
  if (op.k < 32)
    throw InputError(what +
                     " and at least 32 sums per output; this one has K = " + std::to_string(op.k));
  if (op.batch > 65535)
    throw InputError(what + "; its " + std::to_string(op.batch) +
                     " batches pass the grid's 65535 blocks along y");
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
  const SearchSpace gpu = buildSpace(op, true);
  SearchSpace space = gpuParams ? gpu : buildSpace(op, false);
  if (const std::optional<Start> s = findStart(op, gpu, !gpuParams))
    space.setStartPoint(space.parse(startText(op, *s, gpuParams)));
  return space;
}

bool isMatVecSpace(const SearchSpace& space) {
  return space.indexOf("tile_m") >= 0 && space.indexOf("vector") >= 0 &&
         space.indexOf("tile_k") < 0;
}

}  // namespace opevo
