// Conv2D for CUDA and HIP in the layouts a configuration of the joint layout space chooses (ALT's
// template, core/layout/conv2d_layout.h), the GPU counterpart of conv2d_layout_cpu_template.cpp:
// where the CPU kernel gives each output tile an OpenMP iteration, this one gives it a thread
// block, and the register tiles inside it are the block's threads (each thread keeps its tile's
// sums in registers). The input arrives unfolded into each output tile's window, padding
// stored, so the inner loops test nothing; a depthwise input is the image with its channels
// blocked (what its producer writes), and a tap outside it reads nothing. Operands are read
// straight from global memory: the layouts already put what a block reads close together, and
// without shared memory every point of the space (shared with the CPU) launches, whatever its
// tiles.

#include <algorithm>
#include <limits>

#include "codegen/templates.h"
#include "common/error.h"
#include "layout/conv2d_layout.h"

namespace opevo::codegen::detail {
namespace {

std::string str(std::int64_t v) {
  return std::to_string(v);
}

}  // namespace

std::int64_t physicalStride(const layout::Layout& l, const std::string& dim) {
  const auto strides = l.strides();
  for (std::size_t i = 0; i < l.physical().size(); ++i)
    if (l.physical()[i].name == dim) return strides[i];
  throw InputError("layout template: the layout has no dim '" + dim + "'");
}

std::string layoutIndexType(const layout::OperandLayouts& l) {
  const std::int64_t limit = std::numeric_limits<std::int32_t>::max();
  return l.a.size() <= limit && l.b.size() <= limit && l.c.size() <= limit ? "int" : "long long";
}

std::int64_t layoutThreadsPerBlock(std::int64_t registerTiles, std::int64_t accumulators) {
  // A block shares 64K 32-bit registers (every CUDA device since sm_50; AMD's budget for a
  // 1024-wide workgroup is no smaller). About 32 of a thread's registers hold addresses and
  // counters, and beyond 255 a thread spills whatever the block size, so a thread costs
  // min(accumulators + 32, 255) registers. __launch_bounds__ makes the compiler fit the
  // registers to the block rather than fail the launch; the budget keeps that from spilling.
  const std::int64_t perThread = std::min<std::int64_t>(accumulators + 32, 255);
  const std::int64_t budget = std::clamp<std::int64_t>(65536 / perThread / 32 * 32, 64, 1024);
  return std::max<std::int64_t>(1, std::min(registerTiles, budget));
}

std::int64_t layoutGridBlocks(std::int64_t tiles) {
  // 2^20 blocks: far below CUDA's grid.x limit (2^31 - 1), and blocks x 1024 threads stays below
  // the 2^32 work-items HIP allows per dimension.
  return std::min<std::int64_t>(tiles, std::int64_t{1} << 20);
}

GeneratedKernel conv2dLayoutGpu(const KernelContext& ctx, const layout::Conv2DBlocking& b) {
  const OperatorSpec& op = *ctx.op;
  const layout::OperandLayouts layouts = layout::conv2dLayouts(op, b);
  const layout::Layout& in = layouts.a;
  const layout::Layout& wt = layouts.b;
  const layout::Layout& out = layouts.c;
  const std::int64_t tilesF = op.outChannels / b.outC, tilesH = op.outHeight() / b.outH,
                     tilesW = op.outWidth() / b.outW;
  const std::int64_t tiles = op.batch * tilesF * tilesH * tilesW;
  const std::int64_t regTiles = (b.outC / b.regF) * (b.outH / b.regH) * (b.outW / b.regW);
  const std::int64_t threads = layoutThreadsPerBlock(regTiles, b.accumulators());

  GeneratedKernel g;
  g.backend = ctx.backend;
  g.entry = ctx.entry;
  g.accumulators = b.accumulators();
  g.launch.grid = {layoutGridBlocks(tiles), 1, 1};
  g.launch.block = {threads, 1, 1};
  g.launch.sharedBytes = 0;
  g.layoutA = in.describe();
  g.layoutB = wt.describe();
  g.layoutC = out.describe();
  g.summary = "output tiles " + str(b.outC) + "c x " + str(b.outH) + "x" + str(b.outW) +
              " (one block each), " +
              (b.depthwise ? "depthwise (input and weights blocked as the output)"
                           : "input channel blocks of " + str(b.inC) + ", weight blocks " +
                                 str(b.weightO) + "o x " + str(b.weightI) + "i") +
              ", register tile " + str(b.regF) + "x" + str(b.regH) + "x" + str(b.regW) +
              " per thread, " + str(threads) + " threads for " + str(regTiles) + " register tiles";
  const UnrollPolicy unroll{UnrollPolicy::Style::Cuda,
                            b.accumulators() <= kRegisterTile ? kUnrollSteps : 0, true};

  CodeWriter w;
  writeHeader(w, ctx,
              "Conv2D in tuned layouts for GPUs (ALT): output tiles -> thread blocks (flattened "
              "into blockIdx.x), register tiles -> threads",
              describeLaunch(g.launch));
  w.comment("Layouts (ALT primitives applied to the logical tensor):");
  w.comment("  A input  n,c,h,w:   " + g.layoutA);
  w.comment("  B weight f,c,kh,kw: " + g.layoutB);
  w.comment("  C output n,f,h,w:   " + g.layoutC + " (Residual too)");
  w.line();
  openGpuKernel(w, ctx, threads, layoutIndexType(layouts));
  w.comment("Strides of the laid-out buffers' physical dims, in elements.");
  if (b.depthwise)
    w.line("constexpr index_t IN_N = " + str(physicalStride(in, "n")) +
           ", IN_CO = " + str(physicalStride(in, "c_o")) +
           ", IN_H = " + str(physicalStride(in, "h")) + ", IN_W = " + str(physicalStride(in, "w")) +
           ", IN_CI = " + str(physicalStride(in, "c_i")) + ";");
  else
    w.line("constexpr index_t IN_N = " + str(physicalStride(in, "n")) + ", IN_CO = " +
           str(physicalStride(in, "c_o")) + ", IN_HO = " + str(physicalStride(in, "h_o")) +
           ", IN_WO = " + str(physicalStride(in, "w_o")) + ", IN_HI = " +
           str(physicalStride(in, "h_i")) + ", IN_WI = " + str(physicalStride(in, "w_i")) +
           ", IN_CI = " + str(physicalStride(in, "c_i")) + ";");
  w.line("constexpr index_t W_FO = " + str(physicalStride(wt, "f_o")) +
         ", W_CO = " + str(physicalStride(wt, "c_o")) +
         ", W_KH = " + str(physicalStride(wt, "kh")) + ", W_KW = " + str(physicalStride(wt, "kw")) +
         ", W_CI = " + str(physicalStride(wt, "c_i")) +
         ", W_FI = " + str(physicalStride(wt, "f_i")) + ";");
  w.line("constexpr index_t OUT_N = " + str(physicalStride(out, "n")) + ", OUT_FO = " +
         str(physicalStride(out, "f_o")) + ", OUT_HO = " + str(physicalStride(out, "h_o")) +
         ", OUT_WO = " + str(physicalStride(out, "w_o")) + ", OUT_HI = " +
         str(physicalStride(out, "h_i")) + ", OUT_WI = " + str(physicalStride(out, "w_i")) +
         ", OUT_FI = " + str(physicalStride(out, "f_i")) + ";");
  w.line("constexpr index_t TILES = " + str(tiles) + ";");
  w.line("constexpr int TILES_F = " + str(tilesF) + ", TILES_H = " + str(tilesH) +
         ", TILES_W = " + str(tilesW) + ";");
  w.line("constexpr int OUT_C = " + str(b.outC) + ", IN_C = " + str(b.inC) +
         ", W_O = " + str(b.weightO) + ", W_I = " + str(b.weightI) + ";");
  w.line("constexpr int RF = " + str(b.regF) + ", RH = " + str(b.regH) + ", RW = " + str(b.regW) +
         ", S = " + str(op.stride) + ";");
  w.line("constexpr int CB = " + str(op.inChannels / b.inC) + ", KH = " + str(op.kernelH) +
         ", KW = " + str(op.kernelW) + ";");
  if (b.depthwise)
    w.line("constexpr int PAD = " + str(op.pad) + ", IMG_H = " + str(op.height) + ", IMG_W = " +
           str(op.width) + ", OUT_H = " + str(b.outH) + ", OUT_W = " + str(b.outW) + ";");
  w.comment("Register tiles of one output tile: channels fastest, then columns, then rows.");
  w.line("constexpr int REG_F = OUT_C / RF, REG_W = " + str(b.outW / b.regW) +
         ", REG_TILES = " + str(regTiles) + ", THREADS = " + str(threads) + ";");
  w.line();
  w.comment(
      "One block per output tile, the tiles flattened in tile_order (its last loop fastest, so\n"
      "blocks launched together share what that order keeps); a grid-stride loop past 2^20.");
  w.line("#pragma unroll 1");
  w.open("for (index_t t = blockIdx.x; t < TILES; t += gridDim.x)");
  w.line("index_t rest = t;");
  const char* tileVar[3] = {"fo", "ho", "wo"};
  const char* tileBound[3] = {"TILES_F", "TILES_H", "TILES_W"};
  for (int i = 2; i >= 0; --i) {
    const int d = b.tileOrder[std::size_t(i)];
    w.line(std::string("const int ") + tileVar[d] + " = int(rest % " + tileBound[d] +
           "); rest /= " + tileBound[d] + ";");
  }
  w.line("const index_t n = rest;");
  if (!b.depthwise) w.line("const float* const in_tile = A + n * IN_N + ho * IN_HO + wo * IN_WO;");
  w.line("const index_t out_tile = n * OUT_N + fo * OUT_FO + ho * OUT_HO + wo * OUT_WO;");
  w.comment(
      "Threads take the register tiles; the loop runs once unless the register budget gave the\n"
      "block fewer threads than tiles.");
  w.line("#pragma unroll 1");
  w.open("for (int r = threadIdx.x; r < REG_TILES; r += THREADS)");
  w.line("const int rf0 = (r % REG_F) * RF, rw0 = ((r / REG_F) % REG_W) * RW,");
  w.line("          rh0 = (r / (REG_F * REG_W)) * RH;");
  w.line("const int f0 = fo * OUT_C + rf0;  // the register tile's first output channel");
  const std::vector<Loop> acc = {{"rh", b.regH, "RH"}, {"rw", b.regW, "RW"}, {"rf", b.regF, "RF"}};
  w.line("float acc[RH][RW][RF];");
  w.openNest(acc, unroll);
  w.line("acc[rh][rw][rf] = 0.0f;");
  w.closeNest(acc.size());
  // The register tile's channels are one contiguous run of a weight block when the block is a
  // multiple of the tile (tiles start at multiples of RF); otherwise each has its own offset.
  const bool contiguous = b.weightO % b.regF == 0;
  if (contiguous) {
    w.line("const index_t w_f = (f0 / W_O) * W_FO + (f0 % W_O) * W_FI;");
  } else {
    w.line("index_t w_f[RF];");
    w.openNest({{"rf", b.regF, "RF"}}, unroll);
    w.line("w_f[rf] = ((f0 + rf) / W_O) * W_FO + ((f0 + rf) % W_O) * W_FI;");
    w.closeNest(1);
  }
  const char* reduceVar[3] = {"co", "kh", "kw"};
  const char* reduceBound[3] = {"CB", "KH", "KW"};
  int reduceLoops = 0;
  for (int r : b.reduceOrder) {
    if (r == 0 && b.depthwise) continue;  // its one input channel per output channel
    w.line("#pragma unroll 1");
    w.open(std::string("for (int ") + reduceVar[r] + " = 0; " + reduceVar[r] + " < " +
           reduceBound[r] + "; ++" + reduceVar[r] + ")");
    ++reduceLoops;
  }
  w.line("const float* const wp = B + kh * W_KH + kw * W_KW;");
  if (b.depthwise) {
    w.comment("Depthwise: the input block of the tile's channels, a channel each per lane of RF,");
    w.comment("at the image row and column the tile's first output reads under this tap.");
    w.line(
        "const int y0 = (ho * OUT_H + rh0) * S + kh - PAD, x0 = (wo * OUT_W + rw0) * S + kw - "
        "PAD;");
    w.line("const index_t ib = n * IN_N + fo * IN_CO + rf0 * IN_CI;");
    w.line("float wv[RF];");
    w.openNest({{"rf", b.regF, "RF"}}, unroll);
    w.line(contiguous ? "wv[rf] = wp[w_f + rf * W_FI];" : "wv[rf] = wp[w_f[rf]];");
    w.closeNest(1);
    w.openNest({{"rh", b.regH, "RH"}, {"rw", b.regW, "RW"}}, unroll, b.regF);
    w.line("const int y = y0 + rh * S, x = x0 + rw * S;");
    w.comment("A tap in the padding multiplies nothing: the image stores none.");
    w.line("if (y < 0 || y >= IMG_H || x < 0 || x >= IMG_W) continue;");
    w.openNest({{"rf", b.regF, "RF"}}, unroll);
    w.line("acc[rh][rw][rf] += A[ib + y * IN_H + x * IN_W + rf * IN_CI] * wv[rf];");
    w.closeNest(3);
  } else {
    w.line(
        "const float* const ip = in_tile + co * IN_CO + (rh0 * S + kh) * IN_HI + (rw0 * S + kw) "
        "* IN_WI;");
    w.line(b.unrollC > 1 ? "#pragma unroll " + str(b.unrollC) : "#pragma unroll 1");
    w.open("for (int ci = 0; ci < IN_C; ++ci)");
    w.line("const int c = co * IN_C + ci;");
    w.line("const float* const wc = wp + (c / W_I) * W_CO + (c % W_I) * W_CI;");
    w.line("float wv[RF];");
    w.openNest({{"rf", b.regF, "RF"}}, unroll);
    w.line(contiguous ? "wv[rf] = wc[w_f + rf * W_FI];" : "wv[rf] = wc[w_f[rf]];");
    w.closeNest(1);
    w.openNest({{"rh", b.regH, "RH"}, {"rw", b.regW, "RW"}}, unroll, b.regF);
    w.line("const float a = ip[(rh * S) * IN_HI + (rw * S) * IN_WI + ci * IN_CI];");
    w.openNest({{"rf", b.regF, "RF"}}, unroll);
    w.line("acc[rh][rw][rf] += a * wv[rf];");
    w.closeNest(3);
    w.close();  // ci
  }
  w.closeNest(reduceLoops);  // reduction loops
  w.openNest(acc, unroll);
  w.line(
      "const index_t at = out_tile + (rh0 + rh) * OUT_HI + (rw0 + rw) * OUT_WI + (rf0 + rf) * "
      "OUT_FI;");
  w.line("float v = acc[rh][rw][rf];");
  writeEpilogue(w, op, ctx.backend, "v", "f0 + rf", "at");
  w.line("C[at] = v;");
  w.closeNest(acc.size());
  w.close();  // register tiles
  w.close();  // output tiles
  w.close();  // kernel
  g.source = w.str();
  return g;
}

}  // namespace opevo::codegen::detail
