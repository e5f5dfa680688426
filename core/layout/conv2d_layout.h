#pragma once

// ALT's one-level layout template for Conv2D (seed 003, sec. 5.1) as an ordinary search space:
// every layout tile is a factorization parameter named "layout.*", so OpEvo's q-random walk and
// every other tuner move between neighbouring layouts as they move between loop tilings. The
// loop parameters beside them belong to the blocked CPU template (gpu/codegen), whose loop nest
// follows the output layout: one parallel iteration per output tile, register tiles inside it.

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "layout/operand_layouts.h"
#include "layout/vector_unit.h"
#include "ops/operator.h"
#include "space/search_space.h"

namespace opevo::layout {

// The numbers a configuration of conv2dLayoutSpace chooses.
struct Conv2DBlocking {
  // Layout tiles: output channels / rows / columns, input channels, weight output and input
  // channels (the second factor of each layout.* parameter).
  std::int64_t outC = 1, outH = 1, outW = 1, inC = 1, weightO = 1, weightI = 1;
  // The register tile computed at once inside an output tile; each divides its layout tile.
  std::int64_t regF = 1, regH = 1, regW = 1;
  // Order of the reduction loops outside the innermost input-channel loop, outermost first:
  // 0 = input-channel blocks, 1 = kernel rows, 2 = kernel columns.
  std::array<int, 3> reduceOrder{0, 1, 2};
  // Order of the parallel output-tile loops, outermost first: 0 = channel tiles, 1 = row tiles,
  // 2 = column tiles (which tiles one thread takes one after another).
  std::array<int, 3> tileOrder{0, 1, 2};
  // GCC unroll count of the innermost input-channel loop.
  int unrollC = 1;
  // Input channels reduced per stage (a multiple of inC dividing the input channels): every
  // register tile of an output tile accumulates one stage, and stores its partial sums, before
  // the next stage begins, so the stage's weights stay in cache for all of them (the K stage of
  // library GEMMs). 0: one stage of all input channels, sums kept in registers throughout.
  std::int64_t stageC = 0;
  // A depthwise convolution (isDepthwise): output channel f reads input channel f alone, so the
  // input's channels are blocked as the output's (inC = weightO = outC, weightI = 1) and a
  // register tile's input is a vector of channels, not one broadcast value.
  bool depthwise = false;

  std::int64_t accumulators() const { return regF * regH * regW; }
};

// One group per channel, one output channel per group (MobileNet's 3x3 convolutions): the one
// grouped convolution the layout template covers.
bool isDepthwise(const OperatorSpec& op);

// A Conv2D that can read its input in the layout its producer writes, with no conversion: 1x1,
// unpadded and ungrouped, so its input's blocks are its producer's output blocks, a stride-s
// reader's window of t output rows (columns) being s x t of its input's (ALT's propagation).
bool readsProducerLayout(const OperatorSpec& op);

// One of such a reader's layout parameters and the producer's output layout parameter it copies;
// `spatial`: an output row or column split, divided by the reader's stride.
struct ProducerReading {
  const char* reader;
  const char* writer;
  bool spatial;
};
inline constexpr std::array<ProducerReading, 3> kProducerReadings = {
    {{"layout.in_c", "layout.out_c", false},
     {"layout.out_h", "layout.out_h", true},
     {"layout.out_w", "layout.out_w", true}}};

// The value of `reading.reader` that reads the producer's `written` value of `reading.writer`
// as it is: the same split, a spatial tile divided by the stride; nullopt where the producer's
// tile does not divide by it (or `written` is not a [outer, tile] split). Whether the reader's
// space holds the value is its caller's check.
std::optional<Vertex> readProducerValue(const ProducerReading& reading, Vertex written,
                                        std::int64_t stride);

}  // namespace opevo::layout

namespace opevo {
struct OperatorDefinition;
}

namespace opevo::layout {

// Where a depthwise convolution is tuned on the CPU's loop template, which runs it a channel at a
// time (0.21-0.30x oneDNN on MobileNetV2's large layers, docs/layouts.md): "the loop template
// runs a depthwise convolution a channel at a time; JOINT vectorises it across channels", with
// `joint` the caller's name of the joint template (`--mode joint`, the window's template). Empty
// for anything else.
std::string depthwiseLoopNote(const OperatorDefinition& def, const std::string& joint);

// The layouts a blocking gives the three tensors (logical dims n,c,h,w / f,c,kh,kw / n,f,h,w):
//   output  n, f_o, h_o, w_o, h_i, w_i, f_i          (split f, h, w by outC, outH, outW)
//   input   n, c_o, h_o, w_o, h_i, w_i, c_i          (pad h and w by the conv's padding, unfold
//           them into the windows of the output tiles, split c by inC)
//   weight  f_o, c_o, kh, kw, c_i, f_i               (split f and c by weightO and weightI;
//           c counts a group's input channels: 1 for a depthwise convolution)
// The input's windows overlap when a tile's window is wider than the tile's stride (ALT's
// unfold), so no tile ever reads outside its own window and padding is stored, not tested.
// A depthwise convolution's input is the image, unpadded, its channels blocked as the output's:
//   input   n, c_o, h, w, c_i                         (split c by outC)
// which is what a producer writing whole rows in those channel blocks writes, so that a network
// reads that producer's buffer as it is; its kernels skip the taps outside the image.
// OperandLayouts: a = input, b = weight, c = output.
OperandLayouts conv2dLayouts(const OperatorSpec& op, const Conv2DBlocking& b);

// The parameters that alone decide a configuration's output layout (the split of f, h and w;
// the order of the output's dims is fixed): two Conv2Ds of one output shape with the same values
// of these write the same layout.
inline constexpr std::array<const char*, 3> kConv2DOutputLayoutParams = {
    "layout.out_c", "layout.out_h", "layout.out_w"};

// layout.out_c, layout.out_h, layout.out_w, layout.in_c, layout.weight_o, layout.weight_i
// (each [outer, tile]); tile_f, tile_y, tile_x ([outer, register tile]); stage_c ([stages,
// input channels per stage]); reduce_order and tile_order (perm:3); unroll_c {1, 2, 4, 8}.
// Constraints: each register tile divides its layout tile, layout.in_c's blocks divide a stage,
// and at most kMaxAccumulators accumulators.
// A depthwise Conv2D has no input-channel reduction: its space is layout.out_c, layout.out_h,
// layout.out_w, tile_f, tile_y, tile_x and tile_order (its input and weight channels blocked as
// layout.out_c). Any other grouped Conv2D throws InputError. Its start point is `device`'s start
// blocking.
SearchSpace conv2dLayoutSpace(const OperatorSpec& op, StartDevice device = StartDevice::Cpu);

// The blocking conv2dLayoutSpace(op) starts from (its startPoint()), chosen as x86 libraries
// choose theirs for the vector unit: two vectors of output channels per register tile, as many
// output columns as leave the vector registers for accumulators, whole rows per tile, rows split
// until there are enough tiles for the threads, input channels in blocks of up to 32. Without a
// unit, this machine's (nativeVectorUnit).
Conv2DBlocking conv2dStartBlocking(const OperatorSpec& op, VectorUnit unit);
Conv2DBlocking conv2dStartBlocking(const OperatorSpec& op);

// The blocking a GPU run of conv2dLayoutSpace(op) starts from (the CUDA/HIP layout template: one
// thread per register tile, channels fastest, one block per output tile). Ungrouped: up to 4
// channels by 4 columns a thread, 16 threads side by side along the channels, so that a warp
// reads a run of 64 weights and the input values of two register tiles' columns; whole rows
// while a block has at most kGpuStartThreads threads; input channels in blocks of up to 16.
// Depthwise: one channel by up to 4 rows a thread, up to 128 channels a block, so that a warp
// reads 32 consecutive channels of one input pixel (on MobileNetV2's 96-channel 56 x 56 layer,
// the blocking of the H200's fastest configurations of 300 trials, 0.0072-0.0073 ms, against
// 0.163 ms for the CPU's start there). Output tiles are cut (rows, then columns, then channels)
// towards kGpuStartBlocks blocks while a block keeps a warp (gpu_start.h). The same on every host.
Conv2DBlocking conv2dGpuStartBlocking(const OperatorSpec& op);

// Reads a configuration of conv2dLayoutSpace(op). Throws InputError naming a missing or
// mismatched parameter.
Conv2DBlocking conv2dBlocking(const OperatorSpec& op, const SearchSpace& space, const Config& c);

}  // namespace opevo::layout
