#include "layout/conv2d_layout.h"

#include <algorithm>
#include <memory>

#include "common/error.h"
#include "layout/gpu_start.h"
#include "ops/operator_json.h"
#include "space/choice_param.h"
#include "space/factor_param.h"
#include "space/perm_param.h"

namespace opevo::layout {
namespace {

constexpr const char* kUnrollChoices[] = {"1", "2", "4", "8"};
// The most weights an output tile of the start blocking reads in one stage: three quarters of the
// 1 MiB second-level cache of current x86 server cores (Zen 4 and 5; Intel's have 1-2 MiB), the
// rest left to the input window and the sums. Measured on ResNet-18's conv5 (Zen 5, 1.2 MB of
// weights per tile), its start blocking side by side with oneDNN: 0.93 in one stage, 0.95-0.99 in
// stages of 64 channels (256 KiB), 0.99-1.01 in stages of 256 (576 KiB); conv4's 576 KiB in one
// stage is as fast as in stages of 64.
constexpr std::int64_t kStageCacheBytes = 768 * 1024;

std::array<int, 3> orderOf(const SearchSpace& space, const Config& c, const char* name) {
  const int i = space.indexOf(name);
  if (i < 0)
    throw InputError(std::string("layout template: the space has no parameter '") + name + "'");
  const Vertex& v = c.at(static_cast<std::size_t>(i));
  if (v.size() != 3)
    throw InputError(std::string("layout template: '") + name + "' must order 3 loops");
  return {int(v[0]), int(v[1]), int(v[2])};
}

// Rows per output tile: as many as still leave kStartTiles tiles to share among threads (fewer
// rows per tile repeat more input rows in the unfolded windows).
std::int64_t startRows(const OperatorSpec& op, std::int64_t channelTiles) {
  constexpr std::int64_t kStartTiles = 8;
  const std::int64_t oh = op.outHeight();
  for (std::int64_t h = oh; h >= 1; --h)
    if (oh % h == 0 && op.batch * channelTiles * (oh / h) >= kStartTiles) return h;
  return 1;
}

// A depthwise convolution's start, as x86 libraries block one: a vector of channels by up to 14
// output columns (7 on AVX2, whose 16 registers hold half as many accumulators), where every
// column's input is a vector load of its own (no broadcast to share), so the weights' vector is
// what the register tile reuses; one vector of channels per tile, whole rows.
Conv2DBlocking depthwiseStartBlocking(const OperatorSpec& op, VectorUnit unit) {
  Conv2DBlocking b;
  b.depthwise = true;
  const std::int64_t v = unit.floats;
  b.regF = op.outChannels % v == 0 ? v : divisorUpTo(op.outChannels, v);
  b.regW = divisorUpTo(op.outWidth(), std::max(1, unit.registers * 7 / 16));
  b.regH = 1;
  b.outC = b.regF;
  b.outW = op.outWidth();
  b.outH = startRows(op, op.outChannels / b.outC);
  b.inC = b.weightO = b.outC;
  b.weightI = 1;
  return b;
}

void addFactor(SearchSpace& space, const char* name, std::int64_t length) {
  space.add(std::make_shared<FactorParam>(name, length, 2));
}

// An ungrouped convolution's parameters.
SearchSpace ungroupedParams(const OperatorSpec& op) {
  SearchSpace space;
  addFactor(space, "layout.out_c", op.outChannels);
  addFactor(space, "layout.out_h", op.outHeight());
  addFactor(space, "layout.out_w", op.outWidth());
  addFactor(space, "layout.in_c", op.inChannels);
  addFactor(space, "layout.weight_o", op.outChannels);
  addFactor(space, "layout.weight_i", op.inChannels);
  addFactor(space, "tile_f", op.outChannels);
  addFactor(space, "tile_y", op.outHeight());
  addFactor(space, "tile_x", op.outWidth());
  addFactor(space, "stage_c", op.inChannels);
  // Added after joint runs were stored: their configurations reduced all channels in one stage.
  space.setValueWhenAbsent("stage_c", {1, op.inChannels});
  space.add(std::make_shared<PermParam>("reduce_order", 3));
  space.add(std::make_shared<PermParam>("tile_order", 3));
  space.add(std::make_shared<ChoiceParam>(
      "unroll_c", std::vector<std::string>(std::begin(kUnrollChoices), std::end(kUnrollChoices))));
  return space;
}

// A depthwise convolution's: nothing of the input channels is free (each output channel reads
// its own), so there is no input-channel block, weight block, stage, reduction order or unroll.
SearchSpace depthwiseParams(const OperatorSpec& op) {
  SearchSpace space;
  addFactor(space, "layout.out_c", op.outChannels);
  addFactor(space, "layout.out_h", op.outHeight());
  addFactor(space, "layout.out_w", op.outWidth());
  addFactor(space, "tile_f", op.outChannels);
  addFactor(space, "tile_y", op.outHeight());
  addFactor(space, "tile_x", op.outWidth());
  space.add(std::make_shared<PermParam>("tile_order", 3));
  return space;
}

}  // namespace

bool isDepthwise(const OperatorSpec& op) {
  return op.kind == OpKind::Conv2D && op.groups > 1 && op.groups == op.inChannels &&
         op.groups == op.outChannels;
}

bool readsProducerLayout(const OperatorSpec& op) {
  return op.kind == OpKind::Conv2D && op.groups == 1 && op.kernelH == 1 && op.kernelW == 1 &&
         op.pad == 0;
}

std::optional<Vertex> readProducerValue(const ProducerReading& reading, Vertex written,
                                        std::int64_t stride) {
  if (reading.spatial && stride > 1) {
    if (written.size() != 2 || written[1] % stride != 0) return std::nullopt;
    written[1] /= stride;
  }
  return written;
}

std::string depthwiseLoopNote(const OperatorDefinition& def, const std::string& joint) {
  if (def.mode != TuningMode::Loop || def.target != SpaceTarget::Common || !isDepthwise(def.op))
    return {};
  return "the loop template runs a depthwise convolution a channel at a time; " + joint +
         " vectorises it across channels (docs/layouts.md)";
}

Conv2DBlocking conv2dStartBlocking(const OperatorSpec& op) {
  return conv2dStartBlocking(op, nativeVectorUnit());
}

Conv2DBlocking conv2dStartBlocking(const OperatorSpec& op, VectorUnit unit) {
  if (isDepthwise(op)) return depthwiseStartBlocking(op, unit);
  Conv2DBlocking b;
  const std::int64_t f = op.outChannels, ow = op.outWidth(), v = unit.floats;
  // A register tile of vectors of output channels by output columns, as close to seven eighths
  // of the vector registers as accumulators (AVX-512: ~28 of 32; AVX2: ~14 of 16) as the shape
  // allows: two vectors by up to 14 columns (AVX2: 7) where that fills them, else more vectors
  // for narrow outputs (7 columns: 4 x 7; measured on ResNet-18's conv5, 30% faster than 2 x 7).
  const std::int64_t accumulators = unit.registers * 7 / 8;
  // Between one and two vectors of channels not a multiple of one (24 on AVX-512: MobileNetV2's
  // projections), all of them, a vector and part of one, by half the columns: 12 channels (a
  // divisor that fits one vector) by 28 columns left a quarter of each vector's lanes idle and
  // ran 0.34x oneDNN on a 144 -> 24 projection (56 x 56, batch 4), 24 by 14 0.57-0.60x.
  b.regF = f % (2 * v) == 0 ? 2 * v : f % v == 0 ? v : f < 2 * v ? f : divisorUpTo(f, v);
  const std::int64_t vectorsPerColumn = (b.regF + v - 1) / v;  // a partial vector counts whole
  b.regW = divisorUpTo(ow, std::max<std::int64_t>(1, accumulators / vectorsPerColumn));
  for (std::int64_t vectors = 1; vectors <= 4 && f % v == 0; ++vectors) {
    if (f % (v * vectors)) continue;
    const std::int64_t w = divisorUpTo(ow, std::max<std::int64_t>(1, accumulators / vectors));
    // At equal accumulators, not one vector: it loads a broadcast per FMA, and on a core that
    // loads two vectors a cycle that is as many loads as FMAs (AlexNet conv2: 3 x 9, not 1 x 27).
    const std::int64_t now = (b.regF / v) * b.regW;
    if (vectors * w > now || (vectors * w == now && b.regF == v)) b.regF = v * vectors, b.regW = w;
  }
  b.outC = b.regF * divisorUpTo(f / b.regF, std::max<std::int64_t>(1, 64 / b.regF));
  b.outW = ow;
  b.regH = 1;
  b.outH = startRows(op, f / b.outC);
  b.inC = divisorUpTo(op.inChannels, 32);
  b.weightO = b.outC;
  b.weightI = b.inC;
  // One stage of all input channels, as libraries do when an output tile's weights stay in the
  // core's cache while its register tiles use them in turn. Where they do not, every register
  // tile streams them from the shared cache again (ResNet-18's conv5: 1.2 MB for each of its 7
  // rows): stages of input channels whose weights fit are read from there once per stage.
  b.stageC = op.inChannels;
  const std::int64_t reuse = (b.outH / b.regH) * (b.outW / b.regW);
  const auto stageBytes = [&](std::int64_t c) {
    return b.outC * c * op.kernelH * op.kernelW * std::int64_t(sizeof(float));
  };
  if (reuse > 1 && stageBytes(op.inChannels) > kStageCacheBytes)
    for (std::int64_t c = op.inChannels - b.inC; c >= b.inC; c -= b.inC)
      if (op.inChannels % c == 0 && stageBytes(c) <= kStageCacheBytes) {
        b.stageC = c;
        break;
      }
  return b;
}

Conv2DBlocking conv2dGpuStartBlocking(const OperatorSpec& op) {
  Conv2DBlocking b;
  b.depthwise = isDepthwise(op);
  const std::int64_t f = op.outChannels, oh = op.outHeight(), ow = op.outWidth();
  // A depthwise thread has no input value to share among channels: a channel a thread, and rows,
  // whose windows overlap, rather than columns, so that a warp's loads stay one run of channels.
  b.regF = b.depthwise ? 1 : divisorUpTo(f, 4);
  b.regH = b.depthwise ? divisorUpTo(oh, 4) : 1;
  b.regW = b.depthwise ? 1 : divisorUpTo(ow, 4);
  const std::int64_t channels = f / b.regF, rows = oh / b.regH, columns = ow / b.regW;
  std::int64_t tilesF = divisorUpTo(channels, b.depthwise ? 128 : 16);
  std::int64_t tilesW = divisorUpTo(columns, std::max<std::int64_t>(1, kGpuStartThreads / tilesF));
  std::int64_t tilesH =
      divisorUpTo(rows, std::max<std::int64_t>(1, kGpuStartThreads / (tilesF * tilesW)));
  auto blocks = [&](std::int64_t fc, std::int64_t h, std::int64_t w) {
    return op.batch * (channels / fc) * (rows / h) * (columns / w);
  };
  // Rows first, whose windows overlap least; channels last, which a warp's loads run along.
  tilesH = shrinkForBlocks(rows, tilesH, tilesF * tilesW,
                           [&](std::int64_t t) { return blocks(tilesF, t, tilesW); });
  tilesW = shrinkForBlocks(columns, tilesW, tilesF * tilesH,
                           [&](std::int64_t t) { return blocks(tilesF, tilesH, t); });
  tilesF = shrinkForBlocks(channels, tilesF, tilesH * tilesW,
                           [&](std::int64_t t) { return blocks(t, tilesH, tilesW); });
  b.outC = b.regF * tilesF;
  b.outH = b.regH * tilesH;
  b.outW = b.regW * tilesW;
  if (b.depthwise) {
    b.inC = b.weightO = b.outC;
    b.weightI = 1;
    return b;
  }
  b.inC = divisorUpTo(op.inChannels, 16);
  b.weightO = b.outC;
  b.weightI = b.inC;
  // Sums stay in registers for every input channel on the GPU: one stage.
  b.stageC = op.inChannels;
  // As MatMul's K (matmulGpuStartBlocking): a few channels' loads ahead of their FMAs.
  b.unrollC = b.inC >= 4 ? 4 : 1;
  return b;
}

SearchSpace conv2dLayoutSpace(const OperatorSpec& op, StartDevice device) {
  op.validate();
  if (op.kind != OpKind::Conv2D)
    throw InputError("joint layout tuning: " + op.name +
                     " is not a Conv2D (the layout template covers Conv2D for now)");
  if (op.groups != 1 && !isDepthwise(op))
    throw InputError("joint layout tuning: " + op.name + " has " + std::to_string(op.groups) +
                     " groups; the layout template covers ungrouped and depthwise Conv2D (one "
                     "group per channel, as many output channels as input), use --mode loop");
  const bool depthwise = isDepthwise(op);
  SearchSpace space = depthwise ? depthwiseParams(op) : ungroupedParams(op);

  // Register tiles live inside one layout tile: the kernel's stores and the input windows it
  // reads are then contiguous runs of the tile, and no register tile straddles two tiles.
  auto dividesTile = [&space](const char* reg, const char* tile) {
    const int r = space.indexOf(reg), t = space.indexOf(tile);
    return [r, t](const Config& c) { return c[std::size_t(t)][1] % c[std::size_t(r)][1] == 0; };
  };
  space.addConstraint("the register tile of output channels divides layout.out_c",
                      dividesTile("tile_f", "layout.out_c"));
  space.addConstraint("the register tile of output rows divides layout.out_h",
                      dividesTile("tile_y", "layout.out_h"));
  space.addConstraint("the register tile of output columns divides layout.out_w",
                      dividesTile("tile_x", "layout.out_w"));
  if (!depthwise)
    space.addConstraint("the input channel blocks of layout.in_c divide a stage of stage_c",
                        dividesTile("layout.in_c", "stage_c"));
  const int f = space.indexOf("tile_f"), y = space.indexOf("tile_y"), x = space.indexOf("tile_x");
  space.addConstraint(
      "at most " + std::to_string(kMaxAccumulators) + " accumulators per register tile",
      [f, y, x](const Config& c) {
        return c[std::size_t(f)][1] * c[std::size_t(y)][1] * c[std::size_t(x)][1] <=
               kMaxAccumulators;
      });
  const Conv2DBlocking b =
      device == StartDevice::Gpu ? conv2dGpuStartBlocking(op) : conv2dStartBlocking(op);
  auto split = [](std::int64_t length, std::int64_t tile) {
    return std::to_string(length / tile) + "," + std::to_string(tile);
  };
  std::string start = "layout.out_c=" + split(op.outChannels, b.outC) +
                      "; layout.out_h=" + split(op.outHeight(), b.outH) +
                      "; layout.out_w=" + split(op.outWidth(), b.outW) +
                      "; tile_f=" + split(op.outChannels, b.regF) +
                      "; tile_y=" + split(op.outHeight(), b.regH) +
                      "; tile_x=" + split(op.outWidth(), b.regW) + "; tile_order=0,1,2";
  if (!depthwise)
    start += "; layout.in_c=" + split(op.inChannels, b.inC) +
             "; layout.weight_o=" + split(op.outChannels, b.weightO) +
             "; layout.weight_i=" + split(op.inChannels, b.weightI) +
             "; stage_c=" + split(op.inChannels, b.stageC) +
             "; reduce_order=0,1,2; unroll_c=" + std::to_string(b.unrollC);
  space.setStartPoint(space.parse(start));
  return space;
}

Conv2DBlocking conv2dBlocking(const OperatorSpec& op, const SearchSpace& space, const Config& c) {
  if (op.kind != OpKind::Conv2D) throw InputError("layout template: " + op.name + " is no Conv2D");
  if (c.size() != space.dims())
    throw InputError("layout template: the configuration does not belong to the space");
  Conv2DBlocking b;
  b.outC = tileOf(space, c, "layout.out_c", op.outChannels);
  b.outH = tileOf(space, c, "layout.out_h", op.outHeight());
  b.outW = tileOf(space, c, "layout.out_w", op.outWidth());
  if (isDepthwise(op)) {
    b.depthwise = true;
    b.regF = tileOf(space, c, "tile_f", op.outChannels);
    b.regH = tileOf(space, c, "tile_y", op.outHeight());
    b.regW = tileOf(space, c, "tile_x", op.outWidth());
    if (b.outC % b.regF || b.outH % b.regH || b.outW % b.regW)
      throw InputError("layout template: a register tile does not divide its layout tile");
    b.inC = b.weightO = b.outC;
    b.weightI = 1;
    b.tileOrder = orderOf(space, c, "tile_order");
    return b;
  }
  b.inC = tileOf(space, c, "layout.in_c", op.inChannels);
  b.weightO = tileOf(space, c, "layout.weight_o", op.outChannels);
  b.weightI = tileOf(space, c, "layout.weight_i", op.inChannels);
  b.regF = tileOf(space, c, "tile_f", op.outChannels);
  b.regH = tileOf(space, c, "tile_y", op.outHeight());
  b.regW = tileOf(space, c, "tile_x", op.outWidth());
  b.stageC = tileOf(space, c, "stage_c", op.inChannels);
  if (b.outC % b.regF || b.outH % b.regH || b.outW % b.regW)
    throw InputError("layout template: a register tile does not divide its layout tile");
  if (b.stageC % b.inC)
    throw InputError("layout template: layout.in_c's blocks do not divide a stage of stage_c");
  b.reduceOrder = orderOf(space, c, "reduce_order");
  b.tileOrder = orderOf(space, c, "tile_order");
  const int u = space.indexOf("unroll_c");
  if (u < 0) throw InputError("layout template: the space has no parameter 'unroll_c'");
  b.unrollC = std::stoi(space.param(u).format(c[std::size_t(u)]));
  return b;
}

OperandLayouts conv2dLayouts(const OperatorSpec& op, const Conv2DBlocking& b) {
  const std::int64_t s = op.stride;
  Layout output(
      {{"n", op.batch}, {"f", op.outChannels}, {"h", op.outHeight()}, {"w", op.outWidth()}});
  output.split("f", b.outC).split("h", b.outH).split("w", b.outW);
  output.reorder({"n", "f_o", "h_o", "w_o", "h_i", "w_i", "f_i"});

  Layout input({{"n", op.batch}, {"c", op.inChannels}, {"h", op.height}, {"w", op.width}});
  // A tile of outH output rows reads a window of (outH - 1) * stride + kernelH padded input rows,
  // and the next tile's window starts outH * stride rows further. With a stride above the kernel
  // (1x1 stride-2 convolutions) the window is widened to the stride so that windows still meet
  // (unfold never skips elements), and the bottom is padded to hold the last widened window.
  auto window = [&](const char* dim, std::int64_t tile, std::int64_t tiles, std::int64_t kernel,
                    std::int64_t extent) {
    const std::int64_t size = std::max((tile - 1) * s + kernel, tile * s);
    const std::int64_t needed = (tiles - 1) * tile * s + size;
    input.pad(dim, op.pad, op.pad + std::max<std::int64_t>(0, needed - (extent + 2 * op.pad)));
    input.unfold(dim, size, tile * s);
  };
  if (b.depthwise) {
    // The image itself, its channels blocked as the output's: the layout a producer writing
    // whole rows in those blocks writes (layout::sameMapping), so that a network passes the
    // producer's buffer as it is (MobileNetV2's expansions). The kernels skip the taps that fall
    // outside the image rather than read stored padding.
    input.split("c", b.inC);
    input.reorder({"n", "c_o", "h", "w", "c_i"});
  } else {
    window("h", b.outH, op.outHeight() / b.outH, op.kernelH, op.height);
    window("w", b.outW, op.outWidth() / b.outW, op.kernelW, op.width);
    input.split("c", b.inC);
    input.reorder({"n", "c_o", "h_o", "w_o", "h_i", "w_i", "c_i"});
  }

  Layout weight({{"f", op.outChannels},
                 {"c", op.inChannels / op.groups},
                 {"kh", op.kernelH},
                 {"kw", op.kernelW}});
  weight.split("f", b.weightO).split("c", b.weightI);
  weight.reorder({"f_o", "c_o", "kh", "kw", "c_i", "f_i"});
  return {std::move(input), std::move(weight), std::move(output)};
}

}  // namespace opevo::layout
