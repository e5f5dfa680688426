#include "codegen/tiling.h"

#include "common/error.h"
#include "ops/matvec_space.h"
#include "ops/winograd_space.h"
#include "space/choice_param.h"
#include "space/discrete_param.h"

namespace opevo::codegen {
namespace {

// Copies the factors of parameter `name` into out after checking they tile `length` exactly:
// the templates rely on exact tiling and never emit bounds checks for it.
template <std::size_t Parts>
void readFactors(const SearchSpace& space, const Config& config, const char* name,
                 std::int64_t length, std::array<std::int64_t, Parts>& out) {
  const int index = space.indexOf(name);
  if (index < 0)
    throw InputError(std::string("codegen: the space has no parameter '") + name +
                     "' that the kernel template needs");
  const Vertex& v = config.at(static_cast<std::size_t>(index));
  if (v.size() != Parts)
    throw InputError(std::string("codegen: parameter '") + name + "' has " +
                     std::to_string(v.size()) + " factors, the template expects " +
                     std::to_string(Parts));
  std::int64_t product = 1;
  for (std::size_t i = 0; i < Parts; ++i) {
    if (v[i] < 1)
      throw InputError(std::string("codegen: parameter '") + name + "' has a factor below 1");
    out[i] = v[i];
    product *= v[i];
  }
  if (product != length)
    throw InputError(std::string("codegen: the factors of '") + name + "' multiply to " +
                     std::to_string(product) + ", not to the dimension " + std::to_string(length));
}

// split_k when the space has it (1 otherwise), checked to divide `outer`, the outer factor of
// the reduction `reduction` it splits.
std::int64_t readSplitK(const SearchSpace& space, const Config& config, std::int64_t outer,
                        const char* reduction) {
  const int i = space.indexOf("split_k");
  if (i < 0) return 1;
  const auto* p = dynamic_cast<const DiscreteParam*>(space.paramPtr(i).get());
  if (!p) throw InputError("codegen: split_k must be a discrete parameter");
  const auto split = static_cast<std::int64_t>(p->value(config[static_cast<std::size_t>(i)]));
  if (split < 1 || outer % split != 0)
    throw InputError("codegen: split_k " + std::to_string(split) + " does not divide " + reduction +
                     "'s outer factor " + std::to_string(outer));
  return split;
}

void checkConfig(const SearchSpace& space, const Config& config) {
  if (config.size() != space.dims())
    throw InputError("codegen: the configuration has " + std::to_string(config.size()) +
                     " parameters, the space " + std::to_string(space.dims()));
}

// The value of discrete parameter `name`, checked against the values the template takes.
template <std::size_t N>
std::int64_t readDiscrete(const SearchSpace& space, const Config& config, const char* name,
                          const std::array<std::int64_t, N>& allowed) {
  const int i = space.indexOf(name);
  const auto* p = i < 0 ? nullptr : dynamic_cast<const DiscreteParam*>(space.paramPtr(i).get());
  if (!p)
    throw InputError(std::string("codegen: the space has no discrete parameter '") + name +
                     "' that the kernel template needs");
  const auto v = static_cast<std::int64_t>(p->value(config[static_cast<std::size_t>(i)]));
  for (std::int64_t a : allowed)
    if (v == a) return v;
  throw InputError(std::string("codegen: ") + name + " " + std::to_string(v) +
                   " is not a value the template takes");
}

}  // namespace

MatMulTiling matmulTiling(const OperatorSpec& op, const SearchSpace& space, const Config& config) {
  if (op.kind == OpKind::Conv2D)
    throw InputError("codegen: a Conv2D operator has no MatMul tiling");
  checkConfig(space, config);
  MatMulTiling t;
  if (op.kind == OpKind::BatchMatMul) readFactors(space, config, "tile_b", op.batch, t.b);
  readFactors(space, config, "tile_n", op.n, t.n);
  readFactors(space, config, "tile_m", op.m, t.m);
  readFactors(space, config, "tile_k", op.k, t.k);
  t.splitK = readSplitK(space, config, t.k[0], "tile_k");
  if (const int i = space.indexOf("stages"); i >= 0) {
    const auto* p = dynamic_cast<const DiscreteParam*>(space.paramPtr(i).get());
    if (!p) throw InputError("codegen: stages must be a discrete parameter");
    t.stages = static_cast<std::int64_t>(p->value(config[i]));
    if (t.stages != 1 && t.stages != 2)
      throw InputError("codegen: stages must be 1 or 2, not " + std::to_string(t.stages));
  }
  return t;
}

Conv2DTiling conv2dTiling(const OperatorSpec& op, const SearchSpace& space, const Config& config) {
  if (op.kind != OpKind::Conv2D) throw InputError("codegen: only Conv2D has a Conv2D tiling");
  checkConfig(space, config);
  Conv2DTiling t;
  readFactors(space, config, "tile_f", op.outChannels, t.f);
  readFactors(space, config, "tile_y", op.outHeight(), t.y);
  readFactors(space, config, "tile_x", op.outWidth(), t.x);
  readFactors(space, config, "tile_rc", op.inChannels / op.groups, t.rc);
  readFactors(space, config, "tile_ry", op.kernelH, t.ry);
  readFactors(space, config, "tile_rx", op.kernelW, t.rx);
  if (const int i = space.indexOf("auto_unroll_max_step"); i >= 0) {
    const auto* p = dynamic_cast<const DiscreteParam*>(space.paramPtr(i).get());
    if (!p) throw InputError("codegen: auto_unroll_max_step must be a discrete parameter");
    t.autoUnrollMaxStep = static_cast<std::int64_t>(p->value(config[i]));
  }
  if (const int i = space.indexOf("unroll_explicit"); i >= 0) {
    const std::string value = space.param(i).format(config[i]);
    if (value != "0" && value != "1")
      throw InputError("codegen: unroll_explicit must be 0 or 1, not '" + value + "'");
    t.unrollExplicit = value == "1";
  }
  t.splitK = readSplitK(space, config, t.rc[0], "tile_rc");
  return t;
}

WinogradTiling winogradTiling(const OperatorSpec& op, const SearchSpace& space,
                              const Config& config) {
  const WinogradShape w = winogradShape(op);
  checkConfig(space, config);
  WinogradTiling t;
  readFactors(space, config, "tile_f", op.outChannels, t.f);
  readFactors(space, config, "tile_t", w.tiles, t.t);
  readFactors(space, config, "tile_e", w.elements(), t.e);
  readFactors(space, config, "tile_rc", op.inChannels, t.rc);
  return t;
}

MatVecTiling matvecTiling(const OperatorSpec& op, const SearchSpace& space, const Config& config) {
  requireMatVec(op);
  checkConfig(space, config);
  MatVecTiling t;
  readFactors(space, config, "tile_m", op.m, t.m);
  t.vector = readDiscrete(space, config, "vector", kMatVecVectors);
  t.unroll = readDiscrete(space, config, "unroll", kMatVecUnrolls);
  if (space.indexOf("lanes") >= 0) t.lanes = readDiscrete(space, config, "lanes", kMatVecLanes);
  if (space.indexOf("k_split") >= 0)
    t.kSplit = readDiscrete(space, config, "k_split", kMatVecKSplits);
  if (op.k % t.vector != 0)
    throw InputError("codegen: vector " + std::to_string(t.vector) + " does not divide K " +
                     std::to_string(op.k));
  return t;
}

}  // namespace opevo::codegen
