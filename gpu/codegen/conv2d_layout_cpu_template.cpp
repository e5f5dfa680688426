// Conv2D for the CPU in the layouts a configuration of the joint layout space chooses (ALT's
// template, core/layout/conv2d_layout.h). The loop nest follows the output layout: one OpenMP
// iteration per output tile, register tiles inside it, the register tile's output channels the
// vector lanes (the output and weight layouts keep channels innermost). The input arrives
// unfolded into each output tile's window, padding stored, so the inner loops read no bounds.
// A depthwise convolution has no input-channel loop: its input is the image with its channels
// blocked as its output's (what its producer writes), and each tap multiplies a vector of input
// channels by the same channels' weights; a tap outside the image is skipped.
// The library also exports the conversions between these layouts and the plain ones, for the
// measurement harness (not timed: ALT's producers write, and consumers read, these layouts).

#include <algorithm>
#include <set>

#include "codegen/layout_conversion.h"
#include "codegen/omp_parallel.h"
#include "codegen/templates.h"
#include "common/error.h"
#include "layout/conv2d_layout.h"

namespace opevo::codegen::detail {
namespace {

std::string str(std::int64_t v) {
  return std::to_string(v);
}

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// The register tile's rows (or columns) whose input under tap k lies inside the image, not in
// its padding, as [lo, hi): for every position of the register tile along that axis (tiles of
// `outTile` outputs, register tiles of `reg` inside) and every tap. Empty ranges are left out.
std::set<std::pair<std::int64_t, std::int64_t>> validRanges(std::int64_t tiles,
                                                            std::int64_t outTile, std::int64_t reg,
                                                            std::int64_t taps, std::int64_t stride,
                                                            std::int64_t pad, std::int64_t in) {
  std::set<std::pair<std::int64_t, std::int64_t>> out;
  for (std::int64_t t = 0; t < tiles; ++t)
    for (std::int64_t r = 0; r < outTile; r += reg)
      for (std::int64_t k = 0; k < taps; ++k) {
        const std::int64_t x0 = t * outTile + r;
        const std::int64_t lo = std::clamp<std::int64_t>(-floorDiv(k - pad, stride) - x0, 0, reg);
        const std::int64_t hi =
            std::clamp<std::int64_t>(floorDiv(in - 1 + pad - k, stride) - x0 + 1, 0, reg);
        if (lo < hi) out.emplace(lo, hi);
      }
  return out;
}

// Each padding case repeats the unrolled tap: at most this many cases, and this many unrolled
// vector FMAs over all of them (register tile in 16-lane vectors x unroll_c), get code of their
// own; beyond, padding is multiplied through (a depthwise input, which stores none, takes
// run-time bounds instead). Without the second bound, large register tiles of
// 5 x 5 convolutions (25 cases) ran into the 20 s compile limit. Register tiles of more than 32
// vector accumulators spill anyway and are never among the fast ones; their copies (scalar tiles
// of 81-169 accumulators) still timed out, so they multiply the zeros.
constexpr std::int64_t kMaxPaddingCases = 32;
constexpr std::int64_t kMaxPaddingCode = 4096;
constexpr std::int64_t kMaxPaddingAccumulators = 32;

}  // namespace

GeneratedKernel conv2dLayoutCpu(const KernelContext& ctx, const layout::Conv2DBlocking& b) {
  const OperatorSpec& op = *ctx.op;
  const layout::OperandLayouts layouts = layout::conv2dLayouts(op, b);
  const layout::Layout& in = layouts.a;
  const layout::Layout& wt = layouts.b;
  const layout::Layout& out = layouts.c;
  const std::int64_t s = op.stride;
  const std::int64_t tilesF = op.outChannels / b.outC, tilesH = op.outHeight() / b.outH,
                     tilesW = op.outWidth() / b.outW;
  // Input-channel blocks per stage; with fewer than all, partial sums go through the output tile.
  const std::int64_t blocks = op.inChannels / b.inC;
  const std::int64_t stageBlocks = b.stageC > 0 ? b.stageC / b.inC : blocks;
  const bool staged = !b.depthwise && stageBlocks < blocks;
  // oneDNN computes no tap that reads padding; multiplying by the stored zeros costs ResNet-18's
  // conv5 (7 x 7, padding 1) a fifth of its time. Each case of valid rows and columns gets code
  // of its own, as long as there are few of them.
  const auto rowRanges = validRanges(tilesH, b.outH, b.regH, op.kernelH, s, op.pad, op.height);
  const auto colRanges = validRanges(tilesW, b.outW, b.regW, op.kernelW, s, op.pad, op.width);
  const auto cases = static_cast<std::int64_t>(rowRanges.size() * colRanges.size());
  const std::int64_t vectorAccumulators = b.regH * b.regW * ((b.regF + 15) / 16);
  const bool fewCases = cases <= kMaxPaddingCases &&
                        vectorAccumulators <= kMaxPaddingAccumulators &&
                        cases * vectorAccumulators * b.unrollC <= kMaxPaddingCode;
  // A depthwise input stores no padding: its taps outside the image are always skipped, by
  // register-tile bounds known at run time where there are too many cases for code of their own.
  const bool padded = op.pad > 0 && (fewCases || b.depthwise);
  const std::string fdiv = ctx.entry + "_floor_div";

  GeneratedKernel g;
  g.backend = Backend::Cpu;
  g.entry = ctx.entry;
  g.accumulators = b.accumulators();
  g.launch.grid = {tilesW, tilesH, op.batch * tilesF};
  g.launch.block = {1, 1, 1};
  g.layoutA = in.describe();
  g.layoutB = wt.describe();
  g.layoutC = out.describe();
  g.summary = "output tiles " + str(b.outC) + "c x " + str(b.outH) + "x" + str(b.outW) +
              (b.depthwise ? ", depthwise (input and weights blocked as the output)"
                           : ", input channel blocks of " + str(b.inC) + ", weight blocks " +
                                 str(b.weightO) + "o x " + str(b.weightI) + "i") +
              ", register tile " + str(b.regF) + "x" + str(b.regH) + "x" + str(b.regW) +
              (staged ? ", stages of " + str(b.stageC) + " input channels" : "");

  CodeWriter w;
  writeHeader(w, ctx,
              "Conv2D in tuned layouts for CPUs (ALT): output tiles -> OpenMP-parallel loops, "
              "register tiles inside, output channels as vector lanes",
              "");
  w.comment("Layouts (ALT primitives applied to the logical tensor):");
  w.comment("  A input  n,c,h,w:   " + g.layoutA);
  w.comment("  B weight f,c,kh,kw: " + g.layoutB);
  w.comment("  C output n,f,h,w:   " + g.layoutC + " (Residual too)");
  w.line();
  if (padded) {
    // Named after the entry: a network compiles several kernels in one source file.
    w.open("static inline int " + fdiv + "(int a, int b)");
    w.line("return a >= 0 ? a / b : -((-a + b - 1) / b);");
    w.close();
    w.line();
  }
  w.open("extern \"C\" void " + ctx.entry + kernelParams(Backend::Cpu));
  w.line("using index_t = long long;");
  if (b.depthwise)
    w.line("constexpr index_t IN_N = " + str(physicalStride(in, "n")) + ", IN_CO = " +
           str(physicalStride(in, "c_o")) + ", IN_H = " + str(physicalStride(in, "h")) +
           ", IN_W = " + str(physicalStride(in, "w")) + ";");
  else
    w.line("constexpr index_t IN_N = " + str(physicalStride(in, "n")) + ", IN_CO = " +
           str(physicalStride(in, "c_o")) + ", IN_HO = " + str(physicalStride(in, "h_o")) +
           ", IN_WO = " + str(physicalStride(in, "w_o")) + ", IN_HI = " +
           str(physicalStride(in, "h_i")) + ", IN_WI = " + str(physicalStride(in, "w_i")) + ";");
  w.line("constexpr index_t W_FO = " + str(physicalStride(wt, "f_o")) +
         ", W_CO = " + str(physicalStride(wt, "c_o")) +
         ", W_KH = " + str(physicalStride(wt, "kh")) + ", W_KW = " + str(physicalStride(wt, "kw")) +
         ", W_CI = " + str(physicalStride(wt, "c_i")) + ";");
  w.line("constexpr index_t OUT_N = " + str(physicalStride(out, "n")) + ", OUT_FO = " +
         str(physicalStride(out, "f_o")) + ", OUT_HO = " + str(physicalStride(out, "h_o")) +
         ", OUT_WO = " + str(physicalStride(out, "w_o")) + ", OUT_HI = " +
         str(physicalStride(out, "h_i")) + ", OUT_WI = " + str(physicalStride(out, "w_i")) + ";");
  w.line("constexpr int NB = " + str(op.batch) + ", TILES_F = " + str(tilesF) +
         ", TILES_H = " + str(tilesH) + ", TILES_W = " + str(tilesW) + ";");
  w.line("constexpr int OUT_C = " + str(b.outC) + ", OUT_H = " + str(b.outH) +
         ", OUT_W = " + str(b.outW) + ", IN_C = " + str(b.inC) + ", W_O = " + str(b.weightO) +
         ", W_I = " + str(b.weightI) + ";");
  w.line("constexpr int RF = " + str(b.regF) + ", RH = " + str(b.regH) + ", RW = " + str(b.regW) +
         ", S = " + str(s) + ";");
  w.line("constexpr int CB = " + str(blocks) + ", SB = " + str(stageBlocks) +
         ", KH = " + str(op.kernelH) + ", KW = " + str(op.kernelW) + ";");
  if (padded || b.depthwise)
    w.line("constexpr int PAD = " + str(op.pad) + ", IMG_H = " + str(op.height) +
           ", IMG_W = " + str(op.width) + ";");
  w.line();
  const char* tileVar[3] = {"fo", "ho", "wo"};
  const char* tileBound[3] = {"TILES_F", "TILES_H", "TILES_W"};
  w.comment("Each iteration owns one output tile, so the parallel loop needs no locking.");
  w.line(ompParallel(" for collapse(4) schedule(static)", op.flops(), Work::Flops));
  w.open("for (int n = 0; n < NB; ++n)");
  for (int t : b.tileOrder)
    w.open(std::string("for (int ") + tileVar[t] + " = 0; " + tileVar[t] + " < " + tileBound[t] +
           "; ++" + tileVar[t] + ")");
  if (!b.depthwise) w.line("const float* const in_tile = A + n * IN_N + ho * IN_HO + wo * IN_WO;");
  w.line("float* const out_tile = C + n * OUT_N + fo * OUT_FO + ho * OUT_HO + wo * OUT_WO;");
  if (staged) {
    w.comment("Stages of SB input-channel blocks: each register tile adds one stage to its sums.");
    w.open("for (int cs = 0; cs < CB; cs += SB)");
  }
  w.line("for (int rh0 = 0; rh0 < OUT_H; rh0 += RH)");
  w.line("for (int rw0 = 0; rw0 < OUT_W; rw0 += RW)");
  w.open("for (int rf0 = 0; rf0 < OUT_C; rf0 += RF)");
  w.line("const int f0 = fo * OUT_C + rf0;  // the register tile's first output channel");
  if (padded || b.depthwise)
    w.line(
        "const int y0 = ho * OUT_H + rh0, x0 = wo * OUT_W + rw0;  // its first output row, column");
  if (staged) {
    w.line("float acc[RH][RW][RF];");
    w.comment("The first stage starts from zero, later ones from what earlier stages stored.");
    w.line("for (int rh = 0; rh < RH; ++rh)");
    w.line("for (int rw = 0; rw < RW; ++rw)");
    w.line("#pragma omp simd");
    w.line(
        "for (int rf = 0; rf < RF; ++rf) acc[rh][rw][rf] = cs == 0 ? 0.0f : out_tile[(rh0 + rh) * "
        "OUT_HI + (rw0 + rw) * OUT_WI + rf0 + rf];");
  } else {
    w.line("float acc[RH][RW][RF] = {};");
  }
  for (int r : b.reduceOrder)
    if (r != 0 || !b.depthwise)
      w.line(r == 0   ? std::string(staged ? "for (int co = cs; co < cs + SB; ++co)"
                                           : "for (int co = 0; co < CB; ++co)")
             : r == 1 ? std::string("for (int kh = 0; kh < KH; ++kh)")
                      : std::string("for (int kw = 0; kw < KW; ++kw)"));
  w.open("");
  if (b.depthwise) {
    w.comment("The input channels of the register tile's output channels: the same block, at the");
    w.comment("image row and column its first output reads under this tap (outside the image for");
    w.comment("a tap in the padding, which reads nothing there).");
    w.line(
        "const index_t ib = n * IN_N + fo * IN_CO + rf0 + index_t(y0 * S + kh - PAD) * IN_H + "
        "index_t(x0 * S + kw - PAD) * IN_W;");
  } else {
    w.line(
        "const float* const ip = in_tile + co * IN_CO + (rh0 * S + kh) * IN_HI + (rw0 * S + kw) * "
        "IN_WI;");
  }
  // The register tile's channels are one contiguous run of a weight block when the block is a
  // multiple of the tile (tiles start at multiples of RF); otherwise gather them per step.
  const bool contiguous = b.weightO % b.regF == 0;
  // The weights' offset for input channel c = co * IN_C + ci. Where a block of IN_C channels
  // lies in one weight block, or starts one, the part fixed for the block is taken once, outside
  // the ci loop: otherwise a division and a remainder per channel sit in the innermost loop
  // beside the FMAs (about 5% of ResNet-18 conv5's time).
  std::string wBase;
  if (b.depthwise) {
    // writeTap reads the tap's weights itself: a depthwise block has one input channel.
  } else if (b.weightI % b.inC == 0) {
    w.line(
        "const index_t wc = ((co * IN_C) / W_I) * W_CO + kh * W_KH + kw * W_KW + "
        "((co * IN_C) % W_I) * W_CI;");
    wBase = "wc + ci * W_CI";
  } else if (b.inC % b.weightI == 0) {
    w.line("const index_t wc = ((co * IN_C) / W_I) * W_CO + kh * W_KH + kw * W_KW;");
    wBase = "wc + (ci / W_I) * W_CO + (ci % W_I) * W_CI";
  }
  const bool perChannel = !b.depthwise && wBase.empty();
  if (perChannel) wBase = "(c / W_I) * W_CO + kh * W_KH + kw * W_KW + (c % W_I) * W_CI";
  // The register tile's rows [r0, r1) and columns [c0, c1) whose input under this tap lies in
  // the image; a tap in the padding for all of them is skipped.
  auto writeBounds = [&] {
    w.comment("Taps that fall in the padding, for some of the tile's rows or columns, skip them.");
    w.line("int r0 = -" + fdiv + "(kh - PAD, S) - y0;");
    w.line("int r1 = " + fdiv + "(IMG_H - 1 + PAD - kh, S) - y0 + 1;");
    w.line("int c0 = -" + fdiv + "(kw - PAD, S) - x0;");
    w.line("int c1 = " + fdiv + "(IMG_W - 1 + PAD - kw, S) - x0 + 1;");
    w.line("r0 = r0 < 0 ? 0 : r0, r1 = r1 > RH ? RH : r1;");
    w.line("c0 = c0 < 0 ? 0 : c0, c1 = c1 > RW ? RW : c1;");
    w.line("if (r0 >= r1 || c0 >= c1) continue;");
  };
  // One tap's reduction over the block's input channels, for register-tile rows [r0, r1) and
  // columns [c0, c1): the bounds are constants, so the unrolled tile keeps its registers.
  auto writeTap = [&](const std::string& r0, const std::string& r1, const std::string& c0,
                      const std::string& c1) {
    if (b.depthwise) {
      w.line("const float* const wv = B + (f0 / W_O) * W_FO + f0 % W_O + kh * W_KH + kw * W_KW;");
      w.line("#pragma GCC unroll 64");
      w.line("for (int rh = " + r0 + "; rh < " + r1 + "; ++rh)");
      w.line("#pragma GCC unroll 64");
      w.open("for (int rw = " + c0 + "; rw < " + c1 + "; ++rw)");
      w.comment("Offsets added first: no pointer is formed outside the image.");
      w.line("const float* const a = A + (ib + rh * S * IN_H + rw * S * IN_W);");
      w.line("#pragma omp simd");
      w.line("for (int rf = 0; rf < RF; ++rf) acc[rh][rw][rf] += a[rf] * wv[rf];");
      w.close();
      return;
    }
    if (b.unrollC > 1) w.line("#pragma GCC unroll " + str(b.unrollC));
    w.open("for (int ci = 0; ci < IN_C; ++ci)");
    if (perChannel) w.line("const int c = co * IN_C + ci;");
    if (contiguous) {
      w.line("const float* const wv = B + (f0 / W_O) * W_FO + f0 % W_O + " + wBase + ";");
    } else {
      w.line("float wv[RF];");
      w.line(
          "for (int rf = 0; rf < RF; ++rf) wv[rf] = B[((f0 + rf) / W_O) * W_FO + (f0 + rf) % W_O "
          "+ " +
          wBase + "];");
    }
    w.line("#pragma GCC unroll 64");
    w.line("for (int rh = " + r0 + "; rh < " + r1 + "; ++rh)");
    w.line("#pragma GCC unroll 64");
    w.open("for (int rw = " + c0 + "; rw < " + c1 + "; ++rw)");
    w.line("const float a = ip[rh * S * IN_HI + rw * S * IN_WI + ci];");
    w.comment("Vectorised across the channels (unrolling it first would leave scalar code).");
    w.line("#pragma omp simd");
    w.line("for (int rf = 0; rf < RF; ++rf) acc[rh][rw][rf] += a * wv[rf];");
    w.close();
    w.close();  // ci
  };
  if (!padded) {
    writeTap("0", "RH", "0", "RW");
  } else if (!fewCases) {
    w.comment("Too many cases of valid rows and columns for code of their own: run-time bounds.");
    writeBounds();
    writeTap("r0", "r1", "c0", "c1");
  } else {
    writeBounds();
    bool first = true;
    for (const auto& [r0, r1] : rowRanges)
      for (const auto& [c0, c1] : colRanges) {
        w.open(std::string(first ? "if" : "else if") + " (r0 == " + str(r0) +
               " && r1 == " + str(r1) + " && c0 == " + str(c0) + " && c1 == " + str(c1) + ")");
        writeTap(str(r0), str(r1), str(c0), str(c1));
        w.close();
        first = false;
      }
    w.comment(
        "Every case is listed above: a register tile indexed at run time would leave memory.");
    w.line("else __builtin_trap();");
  }
  w.close();  // reduction body
  w.line("for (int rh = 0; rh < RH; ++rh)");
  w.line("for (int rw = 0; rw < RW; ++rw)");
  w.open("for (int rf = 0; rf < RF; ++rf)");
  w.line("const index_t at = (rh0 + rh) * OUT_HI + (rw0 + rw) * OUT_WI + rf0 + rf;");
  w.line("float v = acc[rh][rw][rf];");
  if (!op.epilogue.empty() && !staged) {
    w.line("const index_t tile = out_tile - C;");
    writeEpilogue(w, op, Backend::Cpu, "v", "f0 + rf", "tile + at");
  }
  w.line("out_tile[at] = v;");
  w.close();
  w.close();  // rf0
  if (staged) {
    w.close();  // cs
    if (!op.epilogue.empty()) {
      w.comment("The fused epilogue, once the tile's sums are complete.");
      w.line("const index_t tile = out_tile - C;");
      w.line("for (int rh = 0; rh < OUT_H; ++rh)");
      w.line("for (int rw = 0; rw < OUT_W; ++rw)");
      w.open("for (int rf = 0; rf < OUT_C; ++rf)");
      w.line("const index_t at = rh * OUT_HI + rw * OUT_WI + rf;");
      w.line("float v = out_tile[at];");
      writeEpilogue(w, op, Backend::Cpu, "v", "fo * OUT_C + rf", "tile + at");
      w.line("out_tile[at] = v;");
      w.close();
    }
  }
  w.closeNest(4);
  w.close();  // kernel
  w.line();
  writeHarnessConversions(w, ctx.entry, in, wt, out);
  g.source = w.str();
  return g;
}

}  // namespace opevo::codegen::detail
