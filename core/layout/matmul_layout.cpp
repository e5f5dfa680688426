#include "layout/matmul_layout.h"

#include <algorithm>
#include <memory>

#include "common/error.h"
#include "layout/gpu_start.h"
#include "space/choice_param.h"
#include "space/factor_param.h"
#include "space/perm_param.h"

namespace opevo::layout {
namespace {

constexpr const char* kUnrollChoices[] = {"1", "2", "4", "8"};

// True when the perm:2 parameter keeps its items in order (0, 1).
bool inOrder(const SearchSpace& space, const Config& c, const char* name) {
  const int i = space.indexOf(name);
  if (i < 0)
    throw InputError(std::string("layout template: the space has no parameter '") + name + "'");
  const Vertex& v = c.at(static_cast<std::size_t>(i));
  if (v.size() != 2)
    throw InputError(std::string("layout template: '") + name + "' must order 2 loops");
  return v[0] == 0;
}

void requireMatMul(const OperatorSpec& op, const char* what) {
  if (op.kind == OpKind::Conv2D)
    throw InputError(std::string(what) + ": " + op.name + " is a Conv2D, not a MatMul");
}

}  // namespace

MatMulBlocking matmulStartBlocking(const OperatorSpec& op) {
  return matmulStartBlocking(op, nativeVectorUnit());
}

MatMulBlocking matmulStartBlocking(const OperatorSpec& op, VectorUnit unit) {
  MatMulBlocking b;
  // Two vectors of columns when the columns allow, and as many rows as the unit's measured
  // accumulators allow (VectorUnit::matmulAccumulators).
  const std::int64_t v = unit.floats, accumulators = unit.matmulAccumulators;
  b.regM = op.m % (2 * v) == 0 ? 2 * v : op.m % v == 0 ? v : divisorUpTo(op.m, v);
  const std::int64_t vectors = std::max<std::int64_t>(1, b.regM / v);
  b.regN = divisorUpTo(op.n, std::max<std::int64_t>(1, accumulators / vectors));
  // Output tiles of up to 96 rows and 256 columns, packed panels as wide as the register tile.
  b.cN = b.regN * divisorUpTo(op.n / b.regN, std::max<std::int64_t>(1, 96 / b.regN));
  b.cM = b.regM * divisorUpTo(op.m / b.regM, std::max<std::int64_t>(1, 256 / b.regM));
  b.aN = b.regN;
  b.bM = b.regM;
  b.aK = op.k;
  b.bK = op.k;
  // Each K stage stores the register tiles' sums and reloads them for the next; a stage as deep
  // as 1024 keeps a B panel of two vectors (128 KB) within L2 while paying that only once per
  // 1024 FMAs per accumulator (measured on MM1: 1024 ahead of 256 by about 10%).
  b.kStage = divisorUpTo(op.k, 1024);
  // The larger block stays in cache across the inner loop: output tiles along m outer when a
  // column block of B (K x cM) is larger than a row block of A (cN x K), so threads walk A's
  // smaller blocks past it; inside a tile, register columns outer when B's micro-panel (regM
  // wide) is wider than A's (regN). Measured on MM1, both together: about 15% over rows outer.
  b.rowTilesOuter = b.cN >= b.cM;
  b.regRowsOuter = b.regN >= b.regM;
  return b;
}

MatMulBlocking matmulGpuStartBlocking(const OperatorSpec& op) {
  MatMulBlocking b;
  const std::int64_t batch = op.kind == OpKind::BatchMatMul ? op.batch : 1;
  b.regN = divisorUpTo(op.n, 4);
  b.regM = divisorUpTo(op.m, 4);
  // Register tiles along each dimension; a warp along the columns.
  const std::int64_t rows = op.n / b.regN, columns = op.m / b.regM;
  std::int64_t tilesM = divisorUpTo(columns, kGpuWarp);
  std::int64_t tilesN = divisorUpTo(rows, std::max<std::int64_t>(1, kGpuStartThreads / tilesM));
  tilesN = shrinkForBlocks(rows, tilesN, tilesM,
                           [&](std::int64_t t) { return batch * (rows / t) * (columns / tilesM); });
  tilesM = shrinkForBlocks(columns, tilesM, tilesN,
                           [&](std::int64_t t) { return batch * (rows / tilesN) * (columns / t); });
  b.cN = b.regN * tilesN;
  b.cM = b.regM * tilesM;
  b.aN = b.cN;
  b.bM = b.cM;
  b.aK = b.bK = op.k;
  // The GPU template keeps every sum in registers through the whole of K: no stage to choose.
  b.kStage = op.k;
  b.rowTilesOuter = true;
  b.regRowsOuter = true;
  // Unrolled a few steps, so that the next steps' loads are issued before their FMAs wait on them
  // (unroll_k 1 is "#pragma unroll 1", which forbids the compiler's own unrolling).
  b.unrollK = 4;
  return b;
}

SearchSpace matmulLayoutSpace(const OperatorSpec& op, StartDevice device) {
  op.validate();
  requireMatMul(op, "joint layout tuning");
  SearchSpace space;
  auto factor = [&](const char* name, std::int64_t length) {
    space.add(std::make_shared<FactorParam>(name, length, 2));
  };
  factor("layout.a_n", op.n);
  factor("layout.a_k", op.k);
  factor("layout.b_k", op.k);
  factor("layout.b_m", op.m);
  factor("layout.c_n", op.n);
  factor("layout.c_m", op.m);
  factor("tile_n", op.n);
  factor("tile_m", op.m);
  factor("tile_k", op.k);
  space.add(std::make_shared<PermParam>("tile_order", 2));
  space.add(std::make_shared<PermParam>("reg_order", 2));
  space.add(std::make_shared<ChoiceParam>(
      "unroll_k", std::vector<std::string>(std::begin(kUnrollChoices), std::end(kUnrollChoices))));

  // Register tiles live inside one output tile, so each one's stores are runs of that tile.
  auto dividesTile = [&space](const char* reg, const char* tile) {
    const int r = space.indexOf(reg), t = space.indexOf(tile);
    return [r, t](const Config& c) { return c[std::size_t(t)][1] % c[std::size_t(r)][1] == 0; };
  };
  space.addConstraint("the register tile's rows divide layout.c_n",
                      dividesTile("tile_n", "layout.c_n"));
  space.addConstraint("the register tile's columns divide layout.c_m",
                      dividesTile("tile_m", "layout.c_m"));
  const int rn = space.indexOf("tile_n"), rm = space.indexOf("tile_m");
  space.addConstraint(
      "at most " + std::to_string(kMaxAccumulators) + " accumulators per register tile",
      [rn, rm](const Config& c) {
        return c[std::size_t(rn)][1] * c[std::size_t(rm)][1] <= kMaxAccumulators;
      });
  const MatMulBlocking b =
      device == StartDevice::Gpu ? matmulGpuStartBlocking(op) : matmulStartBlocking(op);
  auto split = [](std::int64_t length, std::int64_t tile) {
    return std::to_string(length / tile) + "," + std::to_string(tile);
  };
  space.setStartPoint(space.parse(
      "layout.a_n=" + split(op.n, b.aN) + "; layout.a_k=" + split(op.k, b.aK) +
      "; layout.b_k=" + split(op.k, b.bK) + "; layout.b_m=" + split(op.m, b.bM) + "; layout.c_n=" +
      split(op.n, b.cN) + "; layout.c_m=" + split(op.m, b.cM) + "; tile_n=" + split(op.n, b.regN) +
      "; tile_m=" + split(op.m, b.regM) + "; tile_k=" + split(op.k, b.kStage) +
      "; tile_order=" + std::string(b.rowTilesOuter ? "0,1" : "1,0") + "; reg_order=" +
      std::string(b.regRowsOuter ? "0,1" : "1,0") + "; unroll_k=" + std::to_string(b.unrollK)));
  return space;
}

MatMulBlocking matmulBlocking(const OperatorSpec& op, const SearchSpace& space, const Config& c) {
  requireMatMul(op, "layout template");
  if (c.size() != space.dims())
    throw InputError("layout template: the configuration does not belong to the space");
  MatMulBlocking b;
  b.aN = tileOf(space, c, "layout.a_n", op.n);
  b.aK = tileOf(space, c, "layout.a_k", op.k);
  b.bK = tileOf(space, c, "layout.b_k", op.k);
  b.bM = tileOf(space, c, "layout.b_m", op.m);
  b.cN = tileOf(space, c, "layout.c_n", op.n);
  b.cM = tileOf(space, c, "layout.c_m", op.m);
  b.regN = tileOf(space, c, "tile_n", op.n);
  b.regM = tileOf(space, c, "tile_m", op.m);
  b.kStage = tileOf(space, c, "tile_k", op.k);
  if (b.cN % b.regN || b.cM % b.regM)
    throw InputError("layout template: a register tile does not divide its output tile");
  b.rowTilesOuter = inOrder(space, c, "tile_order");
  b.regRowsOuter = inOrder(space, c, "reg_order");
  const int u = space.indexOf("unroll_k");
  if (u < 0) throw InputError("layout template: the space has no parameter 'unroll_k'");
  b.unrollK = std::stoi(space.param(u).format(c[std::size_t(u)]));
  return b;
}

OperandLayouts matmulLayouts(const OperatorSpec& op, const MatMulBlocking& b) {
  const std::int64_t batch = op.kind == OpKind::BatchMatMul ? op.batch : 1;
  Layout a = op.transA ? Layout({{"b", batch}, {"k", op.k}, {"n", op.n}})
                       : Layout({{"b", batch}, {"n", op.n}, {"k", op.k}});
  a.split("n", b.aN).split("k", b.aK).reorder({"b", "n_o", "k_o", "k_i", "n_i"});
  Layout bt = op.transB ? Layout({{"b", batch}, {"m", op.m}, {"k", op.k}})
                        : Layout({{"b", batch}, {"k", op.k}, {"m", op.m}});
  bt.split("k", b.bK).split("m", b.bM).reorder({"b", "m_o", "k_o", "k_i", "m_i"});
  Layout c({{"b", batch}, {"n", op.n}, {"m", op.m}});
  c.split("n", b.cN).split("m", b.cM).reorder({"b", "n_o", "m_o", "n_i", "m_i"});
  return {std::move(a), std::move(bt), std::move(c)};
}

}  // namespace opevo::layout
