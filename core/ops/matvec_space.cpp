#include "ops/matvec_space.h"

#include <memory>
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

std::int64_t valueAt(const SearchSpace& space, const Config& c, int index) {
  const auto& p = static_cast<const DiscreteParam&>(space.param(static_cast<std::size_t>(index)));
  return static_cast<std::int64_t>(p.value(c[static_cast<std::size_t>(index)]));
}

}  // namespace

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

SearchSpace matvecSpace(const OperatorSpec& op) {
  requireMatVec(op);
  SearchSpace space;
  space.add(std::make_shared<FactorParam>("tile_m", op.m, 3));
  space.add(std::make_shared<DiscreteParam>("lanes", std::vector<double>{1, 2, 4, 8, 16, 32}));
  space.add(std::make_shared<DiscreteParam>("k_split", std::vector<double>{1, 2, 4, 8, 16}));
  space.add(std::make_shared<DiscreteParam>("vector", std::vector<double>{1, 2, 4}));
  space.add(std::make_shared<DiscreteParam>("unroll", std::vector<double>{1, 2, 4, 8}));
  const int m = space.indexOf("tile_m"), lanes = space.indexOf("lanes"),
            split = space.indexOf("k_split"), vec = space.indexOf("vector"),
            unroll = space.indexOf("unroll");
  const SearchSpace s = space;
  auto threads = [=](const Config& c) {
    return c[m][1] * valueAt(s, c, lanes) * valueAt(s, c, split);
  };
  space.addConstraint("whole warps: a multiple of 32 threads per block, at most 1024",
                      [=](const Config& c) {
                        const std::int64_t t = threads(c);
                        return t % kWarp == 0 && t <= 1024;
                      });
  space.addConstraint("vector divides K",
                      [=, k = op.k](const Config& c) { return k % valueAt(s, c, vec) == 0; });
  space.addConstraint(
      "every thread has K to read: lanes x k_split x vector <= K", [=, k = op.k](const Config& c) {
        return valueAt(s, c, lanes) * valueAt(s, c, split) * valueAt(s, c, vec) <= k;
      });
  space.addConstraint(
      "at most " + std::to_string(kMaxAccumulators) + " accumulators per thread",
      [=, rows = op.n](const Config& c) { return rows * c[m][2] <= kMaxAccumulators; });
  space.addConstraint("at most " + std::to_string(kMaxInFlight) +
                          " floats in flight per thread (columns x unroll x vector)",
                      [=](const Config& c) {
                        return c[m][2] * valueAt(s, c, unroll) * valueAt(s, c, vec) <= kMaxInFlight;
                      });
  space.addConstraint("at most 48 KiB of shared memory", [=, rows = op.n](const Config& c) {
    const std::int64_t k = valueAt(s, c, split);
    return k == 1 || k * rows * c[m][1] * c[m][2] * 4 <= kMaxSharedBytes;
  });
  // The start point: 4 groups of a warp each, one column a group (128 threads), float4 loads
  // two deep; where the shape does not allow that, the nearest that it does (fewer groups, then
  // narrower loads, fewer lanes, more splits; requireMatVec's K >= 32 leaves one warp always).
  std::vector<std::int64_t> groups = {4, 2, 1};
  for (std::int64_t d = 8; d <= 1024; ++d)
    if (op.m % d == 0) groups.push_back(d);
  for (std::int64_t width : {4, 2, 1})
    for (std::int64_t l : {32, 16, 8, 4, 2, 1})
      for (std::int64_t k : {1, 2, 4, 8, 16})
        for (std::int64_t g : groups) {
          if (op.m % g != 0 || op.k % width != 0) continue;
          const Config c =
              space.parse("tile_m=" + std::to_string(op.m / g) + "," + std::to_string(g) +
                          ",1; lanes=" + std::to_string(l) + "; k_split=" + std::to_string(k) +
                          "; vector=" + std::to_string(width) + "; unroll=2");
          if (space.satisfies(c)) {
            space.setStartPoint(c);
            return space;
          }
        }
  return space;
}

bool isMatVecSpace(const SearchSpace& space) {
  return space.indexOf("lanes") >= 0;
}

}  // namespace opevo
