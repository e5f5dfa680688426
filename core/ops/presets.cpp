#include "ops/presets.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <tuple>

#include "common/enum_names.h"
#include "common/error.h"
#include "ops/matvec_space.h"
#include "ops/winograd_space.h"
#include "space/choice_param.h"
#include "space/discrete_param.h"
#include "space/factor_param.h"

namespace opevo {
namespace {

OperatorSpec matmul(std::string name, std::int64_t n, std::int64_t k, std::int64_t m) {
  OperatorSpec op;
  op.name = std::move(name);
  op.kind = OpKind::MatMul;
  op.n = n;
  op.k = k;
  op.m = m;
  return op;
}

OperatorSpec batchMatmul(std::string name, std::int64_t n, std::int64_t k, std::int64_t m,
                         bool transA) {
  OperatorSpec op = matmul(std::move(name), n, k, m);
  op.kind = OpKind::BatchMatMul;
  op.batch = 960;
  op.transA = transA;
  return op;
}

OperatorSpec conv(std::string name, std::int64_t batch, std::int64_t cin, std::int64_t hw,
                  std::int64_t cout, std::int64_t kernel, std::int64_t stride, std::int64_t pad) {
  OperatorSpec op;
  op.name = std::move(name);
  op.kind = OpKind::Conv2D;
  op.batch = batch;
  op.inChannels = cin;
  op.height = op.width = hw;
  op.outChannels = cout;
  op.kernelH = op.kernelW = kernel;
  op.stride = stride;
  op.pad = pad;
  return op;
}

OperatorSpec dense(std::string name, std::int64_t batch, std::int64_t in, std::int64_t out) {
  // y = x W^T with W stored out x in, as frameworks keep dense weights.
  OperatorSpec op = matmul(std::move(name), batch, in, out);
  op.transB = true;
  return op;
}

// AlexNet (single-tower form, 224x224 input): its five convolutions and three dense layers.
void addAlexNet(std::vector<OperatorSpec>& ops, std::int64_t batch) {
  const std::string b = "_b" + std::to_string(batch);
  ops.push_back(conv("alexnet_conv1" + b, batch, 3, 224, 64, 11, 4, 2));
  ops.push_back(conv("alexnet_conv2" + b, batch, 64, 27, 192, 5, 1, 2));
  ops.push_back(conv("alexnet_conv3" + b, batch, 192, 13, 384, 3, 1, 1));
  ops.push_back(conv("alexnet_conv4" + b, batch, 384, 13, 256, 3, 1, 1));
  ops.push_back(conv("alexnet_conv5" + b, batch, 256, 13, 256, 3, 1, 1));
  ops.push_back(dense("alexnet_fc6" + b, batch, 9216, 4096));
  ops.push_back(dense("alexnet_fc7" + b, batch, 4096, 4096));
  ops.push_back(dense("alexnet_fc8" + b, batch, 4096, 1000));
}

// ResNet-18's 3x3 convolutions of stages 2-5 at batch 1 (the stride-1 ones, as ALT measures).
void addResNet18(std::vector<OperatorSpec>& ops) {
  ops.push_back(conv("resnet18_conv2_b1", 1, 64, 56, 64, 3, 1, 1));
  ops.push_back(conv("resnet18_conv3_b1", 1, 128, 28, 128, 3, 1, 1));
  ops.push_back(conv("resnet18_conv4_b1", 1, 256, 14, 256, 3, 1, 1));
  ops.push_back(conv("resnet18_conv5_b1", 1, 512, 7, 512, 3, 1, 1));
}

// Two of MobileNetV2's depthwise 3x3 convolutions at batch 1 (one group per channel; module
// names of torchvision's mobilenet_v2): features.2's, the largest (96 channels of 112 x 112,
// stride 2), and features.8's (384 channels of 14 x 14). The network preset tunes them as
// tasks; as operators they are raced alone, on the CPU or on a GPU against cuDNN's grouped
// convolution.
void addMobileNetV2Depthwise(std::vector<OperatorSpec>& ops) {
  for (auto [name, channels, hw, stride] : {std::tuple{"mobilenet_v2_dw2_b1", 96, 112, 2},
                                            std::tuple{"mobilenet_v2_dw8_b1", 384, 14, 1}}) {
    OperatorSpec op = conv(name, 1, channels, hw, channels, 3, stride, 1);
    op.groups = channels;
    ops.push_back(std::move(op));
  }
}

constexpr std::int64_t kMaxFetchPerThread = 64;
// CUDA's limit on blocks along grid z (AMD's is higher; the spaces keep to what both run).
constexpr std::int64_t kMaxGridZ = 65535;
// A convolution with more outputs than this is at least 1024 blocks of 1024 outputs (a tile of 4
// a thread in blocks of 256 threads), several waves on the largest GPUs (132 SMs): its blocks
// fill the device unsplit, and its GPU space has no split_k. So the paper's C1 and C2 (batch 512)
// keep the paper's space, and their runs compare across leases.
constexpr std::int64_t kMaxSplitKOutputs = std::int64_t{1} << 20;

constexpr EnumNames<SpaceTarget, 5> kTargetNames{{{{SpaceTarget::Common, "common"},
                                                   {SpaceTarget::Gpu, "gpu"},
                                                   {SpaceTarget::Winograd, "winograd"},
                                                   {SpaceTarget::MatVec, "matvec"},
                                                   {SpaceTarget::MatVecGpu, "matvec-gpu"}}}};

// A GPU template's own discrete parameter, its first value for configurations stored without it.
void addGpuParameter(SearchSpace& space, const char* name, std::vector<double> values) {
  space.add(std::make_shared<DiscreteParam>(name, std::move(values)));
  space.setValueWhenAbsent(name, space.param(space.indexOf(name)).first());
}

// The value of discrete parameter i in a configuration (the parameter shared, kept alive).
std::function<std::int64_t(const Config&)> valueOf(const SearchSpace& s, int i) {
  return [p = s.paramPtr(i), i](const Config& c) {
    return static_cast<std::int64_t>(static_cast<const DiscreteParam&>(*p).value(c[i]));
  };
}

// A GPU block computes one output tile over the whole of K; MM1's 512 x 1024 output in the
// 64 x 128 tiles that keep enough accumulators per thread is 64 blocks, half of an H100/H200's
// SMs. split_k blocks share one tile's K loop instead (the template adds their partial sums in
// turn), so such tiles fill the device again. It splits the outer K loop, hence the constraint.
// stages 2 double-buffers shared memory, fetching the next slab into registers while this one
// is multiplied: those registers are bounded, since a slab of hundreds of floats per thread
// would live in local memory and unroll into minutes of compilation.
void addGpuMatMulParameters(SearchSpace& space) {
  addGpuParameter(space, "split_k", {1, 2, 4, 8, 16});
  addGpuParameter(space, "stages", {1, 2});
  const int k = space.indexOf("tile_k");
  space.addConstraint("split_k divides tile_k's outer factor",
                      [k, split = valueOf(space, space.indexOf("split_k"))](const Config& c) {
                        return c[k][0] % split(c) == 0;
                      });
  const int n = space.indexOf("tile_n"), m = space.indexOf("tile_m"), b = space.indexOf("tile_b");
  space.addConstraint("a double-buffered stage fetches at most " +
                          std::to_string(kMaxFetchPerThread) + " floats per thread",
                      [=, stages = valueOf(space, space.indexOf("stages"))](const Config& c) {
                        if (stages(c) == 1) return true;
                        const std::int64_t bThreads = b >= 0 ? c[b][1] : 1;
                        const std::int64_t threads = bThreads * c[n][2] * c[m][2];
                        const std::int64_t depth = bThreads * c[k][1] * c[k][2];
                        // The A and B slabs are fetched separately, each in whole rounds.
                        auto perThread = [&](std::int64_t floats) {
                          return (floats + threads - 1) / threads;
                        };
                        return perThread(depth * c[n][1] * c[n][2] * c[n][3]) +
                                   perThread(depth * c[m][1] * c[m][2] * c[m][3]) <=
                               kMaxFetchPerThread;
                      });
}

// A direct GPU convolution's block computes its output tile over every input channel and tap:
// ResNet-18's layer4 (512 channels of 7 x 7 at batch 1) was 32 such blocks for an H200's 132 SMs,
// and took a third of the network's time there (docs/results/gpu.md). split_k blocks share a
// tile's input channels instead, adding their partial sums in turn as MatMul's do; it splits
// tile_rc's outer factor. The splits follow the (image, channel block) pairs along grid z, all of
// them in one launch, and each output tile keeps its turn in a counter of the module: both within
// 65535. Only convolutions of at most kMaxSplitKOutputs outputs have it.
void addGpuConvParameters(SearchSpace& space, std::int64_t batch) {
  addGpuParameter(space, "split_k", {1, 2, 4, 8, 16});
  const int rc = space.indexOf("tile_rc"), f = space.indexOf("tile_f"), y = space.indexOf("tile_y"),
            x = space.indexOf("tile_x");
  const auto split = valueOf(space, space.indexOf("split_k"));
  space.addConstraint("split_k divides tile_rc's outer factor",
                      [rc, split](const Config& c) { return c[rc][0] % split(c) == 0; });
  space.addConstraint("split_k above 1: at most " + std::to_string(kMaxGridZ) +
                          " blocks along grid z (images x channel blocks x split_k) and per split",
                      [=](const Config& c) {
                        const std::int64_t s = split(c), fused = batch * c[f][0];
                        return s == 1 ||
                               (fused * s <= kMaxGridZ && fused * c[y][0] * c[x][0] <= kMaxGridZ);
                      });
}

std::vector<OperatorSpec> allPresets() {
  std::vector<OperatorSpec> ops = {
      matmul("MM1", 512, 1024, 1024),          matmul("MM2", 512, 1024, 4096),
      matmul("MM3", 512, 4096, 1024),          batchMatmul("BMM1", 128, 128, 64, false),
      batchMatmul("BMM2", 128, 128, 64, true), batchMatmul("BMM3", 64, 128, 64, true),
      conv("C1", 512, 3, 227, 64, 11, 4, 0),   conv("C2", 512, 64, 27, 192, 5, 1, 2),
  };
  addAlexNet(ops, 1);
  addAlexNet(ops, 128);
  addResNet18(ops);
  addMobileNetV2Depthwise(ops);
  return ops;
}

}  // namespace

std::vector<std::string> presetNames() {
  std::vector<std::string> names;
  for (const auto& op : allPresets()) names.push_back(op.name);
  return names;
}

bool isPreset(std::string_view name) {
  for (const auto& op : allPresets())
    if (op.name == name) return true;
  return false;
}

std::optional<std::string> presetInOtherCase(std::string_view name) {
  const auto lower = [](char c) { return std::tolower(static_cast<unsigned char>(c)); };
  for (const auto& op : allPresets())
    if (op.name.size() == name.size() &&
        std::equal(op.name.begin(), op.name.end(), name.begin(),
                   [&](char a, char b) { return lower(a) == lower(b); }))
      return op.name;
  return std::nullopt;
}

OperatorSpec preset(std::string_view name) {
  std::string listed;
  for (const auto& op : allPresets()) {
    if (op.name == name) return op;
    listed += (listed.empty() ? "" : ", ") + op.name;
  }
  if (const auto meant = presetInOtherCase(name))
    throw InputError("unknown preset '" + std::string(name) + "': did you mean " + *meant +
                     "? (presets: " + listed + ")");
  throw InputError("unknown preset '" + std::string(name) + "' (presets: " + listed + ")");
}

std::string_view spaceTargetName(SpaceTarget target) {
  return kTargetNames.name(target);
}

SpaceTarget parseSpaceTarget(std::string_view text, const std::string& where) {
  if (auto target = kTargetNames.parse(text)) return *target;
  throw InputError(where + ": unknown space target '" + std::string(text) +
                   "' (targets: " + kTargetNames.list() + ")");
}

SpaceTarget gpuTarget(SpaceTarget target) {
  if (target == SpaceTarget::Common) return SpaceTarget::Gpu;
  if (target == SpaceTarget::MatVec) return SpaceTarget::MatVecGpu;
  return target;
}

SpaceTarget commonTarget(SpaceTarget target) {
  if (target == SpaceTarget::Gpu) return SpaceTarget::Common;
  if (target == SpaceTarget::MatVecGpu) return SpaceTarget::MatVec;
  return target;
}

bool usesOwnTemplate(SpaceTarget target) {
  return target == SpaceTarget::Winograd || target == SpaceTarget::MatVec ||
         target == SpaceTarget::MatVecGpu;
}

std::optional<std::string> templateMisfit(const OperatorSpec& op, SpaceTarget target) {
  if (target == SpaceTarget::Winograd) return winogradMisfit(op);
  if (target == SpaceTarget::MatVec || target == SpaceTarget::MatVecGpu) return matvecMisfit(op);
  return std::nullopt;
}

void requireTemplateFits(const OperatorSpec& op, SpaceTarget target, const std::string& chosenBy) {
  if (const std::optional<std::string> misfit = templateMisfit(op, target))
    throw InputError(chosenBy + " does not fit operator '" + op.name + "': " + *misfit);
}

SearchSpace defaultSpace(const OperatorSpec& op, SpaceTarget target) {
  op.validate();
  if (target == SpaceTarget::Winograd) return winogradSpace(op);
  if (target == SpaceTarget::MatVec || target == SpaceTarget::MatVecGpu)
    return matvecSpace(op, target == SpaceTarget::MatVecGpu);
  SearchSpace space;
  auto factor = [&](const char* name, std::int64_t length, int parts) {
    space.add(std::make_shared<FactorParam>(name, length, parts));
  };
  if (op.kind == OpKind::Conv2D) {
    factor("tile_f", op.outChannels, 4);
    factor("tile_y", op.outHeight(), 4);
    factor("tile_x", op.outWidth(), 4);
    factor("tile_rc", op.inChannels / op.groups, 2);
    factor("tile_ry", op.kernelH, 2);
    factor("tile_rx", op.kernelW, 2);
    space.add(
        std::make_shared<DiscreteParam>("auto_unroll_max_step", std::vector<double>{0, 512, 1500}));
    space.add(std::make_shared<ChoiceParam>("unroll_explicit", std::vector<std::string>{"0", "1"}));
  } else {
    if (op.kind == OpKind::BatchMatMul) factor("tile_b", op.batch, 2);
    factor("tile_n", op.n, 4);
    factor("tile_m", op.m, 4);
    factor("tile_k", op.k, 3);
    if (target == SpaceTarget::Gpu) addGpuMatMulParameters(space);
  }
  if (op.kind == OpKind::Conv2D && target == SpaceTarget::Gpu &&
      op.batch * op.outChannels * op.outHeight() * op.outWidth() <= kMaxSplitKOutputs)
    addGpuConvParameters(space, op.batch);
  // The CPU template runs the thread tiles as loops and has no such limit, but it tunes the
  // paper's space, which is the GPU template's: the description says so where a CPU user reads it.
  space.addConstraint(
      target == SpaceTarget::Gpu
          ? "at most 1024 threads per block"
          : "at most 1024 threads per block, a GPU's limit kept on every backend",
      [op, s = space](const Config& c) { return threadsPerBlock(op, s, c) <= 1024; });
  if (target == SpaceTarget::Gpu && (op.kind == OpKind::Conv2D || op.kind == OpKind::BatchMatMul)) {
    // The third axis of a GPU block (a convolution's output channels, a batched product's
    // batch) holds at most 64 threads on CUDA, whatever the block's total: C2's blocks of
    // 1 x 9 x 96 threads compiled and then failed to launch on the H200. AMD allows 1024; the
    // space keeps to what both run.
    const bool conv = op.kind == OpKind::Conv2D;
    const int index = space.indexOf(conv ? "tile_f" : "tile_b");
    const int part = conv ? 2 : 1;
    space.addConstraint("at most 64 threads along a block's z axis",
                        [index, part](const Config& c) { return c[index][part] <= 64; });
  }
  if (op.kind == OpKind::Conv2D && op.groups > 1) {
    // A GPU block stages one input patch for all its output channels: they must share a group.
    const std::int64_t perGroup = op.outChannels / op.groups;
    space.addConstraint("a block's output channels lie in one group",
                        [perGroup, s = space](const Config& c) {
                          const Vertex& f = c[s.indexOf("tile_f")];
                          return perGroup % (f[1] * f[2] * f[3]) == 0;
                        });
  }
  return space;
}

Config untunedConfig(const SearchSpace& space) {
  if (space.startPoint()) return *space.startPoint();
  for (std::int64_t limit : {4, 2, 1}) {
    Config c;
    for (std::size_t i = 0; i < space.dims(); ++i) {
      const Parameter& p = space.param(i);
      Vertex v = p.first();
      if (p.kind() == ParamKind::Factor) {
        std::int64_t length = 1;
        for (std::int64_t part : v) length *= part;
        const bool reduction = p.name() == "tile_k" || p.name().rfind("tile_r", 0) == 0;
        // tile_b is [blocks, threads]: no register tile, every batch in blocks.
        std::int64_t inner = p.name() == "tile_b"
                                 ? 1
                                 : std::min<std::int64_t>(reduction ? 2 * limit : limit, length);
        while (length % inner != 0) --inner;
        std::fill(v.begin(), v.end(), 1);
        v.front() = length / inner;
        v.back() *= inner;
      }
      c.push_back(std::move(v));
    }
    if (space.satisfies(c)) return c;
  }
  Config plain;
  for (std::size_t i = 0; i < space.dims(); ++i) plain.push_back(space.param(i).first());
  return plain;
}

std::int64_t threadsPerBlock(const OperatorSpec& op, const SearchSpace& space, const Config& c) {
  auto at = [&](const char* name, int part) { return c[space.indexOf(name)][part]; };
  if (isWinogradSpace(space)) return at("tile_f", 1) * at("tile_t", 1) * at("tile_e", 0);
  if (isMatVecSpace(space)) return matvecThreads(space, c);
  if (op.kind == OpKind::Conv2D) return at("tile_f", 2) * at("tile_y", 2) * at("tile_x", 2);
  std::int64_t threads = at("tile_n", 2) * at("tile_m", 2);
  if (op.kind == OpKind::BatchMatMul) threads *= at("tile_b", 1);
  return threads;
}

}  // namespace opevo
