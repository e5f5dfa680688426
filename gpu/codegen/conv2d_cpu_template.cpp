// Direct NCHW Conv2D for the CPU backend, with the tiling meaning of the GPU template: the
// (image, channel block, row block, column block) loops run in parallel, threads and virtual
// threads are middle tiles, inner tiles register tiles; reductions [outer stage, inner], and the
// unroll parameters drive GCC's unroll pragmas. Self-contained for `c++ -O3 -fopenmp`.

#include "codegen/omp_parallel.h"
#include "codegen/templates.h"
#include "common/error.h"

namespace opevo::codegen::detail {
namespace {

// As in the MatMul CPU template: larger inner tiles accumulate in C rather than on the stack.
constexpr std::int64_t kMaxLocalTile = 4096;

std::string str(std::int64_t v) {
  return std::to_string(v);
}

std::string splitLine(const char* p, const std::array<std::int64_t, 4>& f) {
  return std::string("constexpr int ") + p + "_OUT = " + str(f[0]) + ", " + p +
         "_VT = " + str(f[1]) + ", " + p + "_TH = " + str(f[2]) + ", " + p + "_IN = " + str(f[3]) +
         ";";
}

}  // namespace

GeneratedKernel conv2dCpu(const KernelContext& ctx, const Conv2DTiling& t) {
  const OperatorSpec& op = *ctx.op;
  if (t.splitK != 1)
    throw InputError("codegen: split_k " + std::to_string(t.splitK) +
                     " is a GPU template parameter; the CPU template runs 1 only");
  const bool local = t.f[3] * t.y[3] * t.x[3] <= kMaxLocalTile;
  GeneratedKernel g;
  g.backend = Backend::Cpu;
  g.entry = ctx.entry;
  g.accumulators = t.f[3] * t.y[3] * t.x[3];
  g.launch.grid = {t.x[0], t.y[0], op.batch * t.f[0]};
  g.launch.block = {t.x[2], t.y[2], t.f[2]};
  g.summary = "parallel blocks " + str(g.launch.grid.volume()) + " of " + str(t.blockF()) +
              " channels x " + str(t.blockY()) + "x" + str(t.blockX()) + ", register tile " +
              str(t.f[3]) + "x" + str(t.y[3]) + "x" + str(t.x[3]) + ", unroll limit " +
              str(t.autoUnrollMaxStep) + (t.unrollExplicit ? " (explicit)" : " (compiler)");
  const UnrollPolicy unroll{UnrollPolicy::Style::Gcc, t.autoUnrollMaxStep, t.unrollExplicit};

  CodeWriter w;
  writeHeader(w, ctx,
              "Conv2D direct NCHW for CPUs: (image, channel, row, column) blocks -> OpenMP-"
              "parallel loops, threads and vthreads -> middle tiles, inner -> register tiles",
              "");
  w.line();
  w.open("extern \"C\" void " + ctx.entry + kernelParams(Backend::Cpu));
  w.line("using index_t = " + indexType(op) + ";");
  w.line("constexpr index_t NB = " + str(op.batch) + ", CI = " + str(op.inChannels) +
         ", H = " + str(op.height) + ", W = " + str(op.width) + ";");
  w.line("constexpr index_t F = " + str(op.outChannels) + ", KH = " + str(op.kernelH) + ", KW = " +
         str(op.kernelW) + ", OH = " + str(op.outHeight()) + ", OW = " + str(op.outWidth()) + ";");
  w.line("constexpr int S = " + str(op.stride) + ", P = " + str(op.pad) + ";");
  const bool grouped = op.groups > 1;
  if (grouped) {
    w.comment("Groups: output channel f reads the CG input channels from (f / FG) * CG on.");
    w.line("constexpr index_t CG = " + str(op.inChannels / op.groups) +
           ", FG = " + str(op.outChannels / op.groups) + ";");
  }
  w.comment("tile_f, tile_y, tile_x = [OUT, VT, TH, IN]; tile_rc, tile_ry, tile_rx = [OUT, IN]");
  w.line(splitLine("F", t.f));
  w.line(splitLine("Y", t.y));
  w.line(splitLine("X", t.x));
  w.line("constexpr int RC_OUT = " + str(t.rc[0]) + ", RC_IN = " + str(t.rc[1]) +
         ", RY_OUT = " + str(t.ry[0]) + ", RY_IN = " + str(t.ry[1]) + ", RX_OUT = " + str(t.rx[0]) +
         ", RX_IN = " + str(t.rx[1]) + ";");
  w.line(
      "constexpr int BLOCK_F = F_VT * F_TH * F_IN, BLOCK_Y = Y_VT * Y_TH * Y_IN, "
      "BLOCK_X = X_VT * X_TH * X_IN;");
  w.line();
  w.comment("Each iteration owns one block of C, so the parallel loop needs no locking.");
  w.line(ompParallel(" for collapse(4) schedule(static)", op.flops(), Work::Flops));
  w.open("for (int img = 0; img < NB; ++img)");
  w.open("for (int fo = 0; fo < F_OUT; ++fo)");
  w.open("for (int yo = 0; yo < Y_OUT; ++yo)");
  w.open("for (int xo = 0; xo < X_OUT; ++xo)");
  w.line("const int f0 = fo * BLOCK_F, y0 = yo * BLOCK_Y, x0 = xo * BLOCK_X;");
  w.line("float* const out = C + (index_t)img * F * OH * OW;");
  w.line("const float* const in = A + (index_t)img * CI * H * W;");
  w.line("for (int f = f0; f < f0 + BLOCK_F; ++f)");
  w.line("  for (int oy = y0; oy < y0 + BLOCK_Y; ++oy)");
  w.line(
      "    for (int ox = x0; ox < x0 + BLOCK_X; ++ox) out[((index_t)f * OH + oy) * OW + ox] = "
      "0.0f;");
  w.comment(
      "One reduction stage at a time (the shared-memory stage on a GPU), every tile of the\n"
      "block using it while it is in cache.");
  w.line("for (int rco = 0; rco < RC_OUT; ++rco)");
  w.line("for (int ryo = 0; ryo < RY_OUT; ++ryo)");
  w.open("for (int rxo = 0; rxo < RX_OUT; ++rxo)");
  w.line("for (int tf = 0; tf < F_TH; ++tf)");
  w.line("for (int ty = 0; ty < Y_TH; ++ty)");
  w.line("for (int tx = 0; tx < X_TH; ++tx)");
  w.line("for (int vf = 0; vf < F_VT; ++vf)");
  w.line("for (int vy = 0; vy < Y_VT; ++vy)");
  w.open("for (int vx = 0; vx < X_VT; ++vx)");
  w.line("const int fb = f0 + (vf * F_TH + tf) * F_IN;  // the register tile's first channel");
  w.line("const int yb = y0 + (vy * Y_TH + ty) * Y_IN, xb = x0 + (vx * X_TH + tx) * X_IN;");
  const std::string cAt = "out[((index_t)(fb + fi) * OH + yb + yi) * OW + xb + xi]";
  if (local)
    w.line("float acc[F_IN][Y_IN][X_IN] = {};");
  else
    w.comment("The inner tile is too large for registers: accumulate in C itself.");
  w.comment("auto_unroll_max_step = " + str(t.autoUnrollMaxStep) +
            ", unroll_explicit = " + (t.unrollExplicit ? "1" : "0") + " (see the GPU template)");
  const std::vector<Loop> reduce = {{"rci", t.rc[1], "RC_IN"}, {"ryi", t.ry[1], "RY_IN"},
                                    {"rxi", t.rx[1], "RX_IN"}, {"fi", t.f[3], "F_IN"},
                                    {"yi", t.y[3], "Y_IN"},    {"xi", t.x[3], "X_IN"}};
  // The interior path: where the register tile's whole window for this reduction stage lies
  // inside the input, no tap needs the padding test, and its row of X_IN outputs is one
  // `omp simd` loop over contiguous input. GCC left the tested loop scalar: 23 of 31 kernels of
  // ResNet-18's, AlexNet's and MobileNetV2's layers ran 1.08-6.4x faster with the path, 6 alike, 2
  // slower (docs/performance.md, "CPU direct convolution: interior tiles"). Only for rows of 2 to
  // 16 outputs, a measured cut: a row of 27 ran 3.5x slower as a vector loop than fully unrolled.
  // The border keeps the tested loop; the unroll parameters still drive every loop but that one.
  // Unpadded, every window lies inside, and the interior path is the whole kernel.
  const std::int64_t row = t.x[3];
  // A strided interior tile splits its window into phases on the stack (ph below): bounded as
  // the accumulators are, or a tall tile (Y_IN rows of S phases) of a user's large image would
  // take megabytes of each OpenMP thread's stack. Taller ones keep the tested loop.
  const std::int64_t phaseFloats = t.y[3] * op.stride * (row + (t.rx[1] - 1) / op.stride);
  const bool interior =
      local && row >= 2 && row <= 16 && (op.stride == 1 || phaseFloats <= kMaxLocalTile);
  // At stride S > 1 a row reads every S-th input: as one `omp simd` loop that was a gather
  // (MobileNetV2's dw2 kernels ran 0.44-2x in two timings). Instead the window's rows are split
  // once per stage into S phases (phase r holds inputs r, r + S, r + 2S, ...), so that every tap
  // reads X_IN contiguous floats of one phase, and a split serves all RX_IN taps, and all F_IN
  // channels unless grouped. Kernel by kernel it is no consistent win (16 of 28 faster, 7 slower,
  // down to 0.3x), but tuning found 1.41-2.47x faster kernels than with the tested loop in 6 of 7
  // runs (the seventh, a depthwise layer, is undecided: its timings spread +-30%), and
  // 1.12-1.20x faster than with the same loop without tests and without `omp simd`
  // (docs/performance.md, "Strided interior tiles").
  const auto writeStridedTaps = [&] {
    w.openNest({reduce.begin(), reduce.begin() + 2}, unroll, t.rx[1] * t.f[3] * t.y[3] * t.x[3]);
    w.line("const int c = rco * RC_IN + rci, ky = ryo * RY_IN + ryi;");
    if (grouped) {
      w.comment(
          "The tile's channels may span groups, which read other inputs: a split per channel.");
      w.openNest({reduce.begin() + 3, reduce.begin() + 4}, unroll, t.rx[1] * t.y[3] * t.x[3]);
      w.line("const index_t gc = ((fb + fi) / FG) * CG + c;  // c in the whole input");
    }
    w.comment(
        "ph[yi][r][q] = the window's input q * S + r of row yi; phase r holds what taps r,\n"
        "r + S, ... of the stage read, and no more (the window's last input bounds it).");
    w.line("constexpr int XQ = X_IN + (RX_IN - 1) / S;");
    w.line("float ph[Y_IN][S][XQ];");
    w.open("for (int yi = 0; yi < Y_IN; ++yi)");
    // The offset whole before it is added: `in - P` alone would point before the input.
    w.line("const float* const at = in + (((index_t)" + std::string(grouped ? "gc" : "c") +
           " * H + (yb + yi) * S - P + ky) * W + xb * S - P + rxo * RX_IN);");
    w.line("for (int r = 0; r < S && r < RX_IN; ++r)");
    w.line("  for (int q = 0; q < X_IN + (RX_IN - 1 - r) / S; ++q) ph[yi][r][q] = at[q * S + r];");
    w.close();
    if (grouped)
      w.openNest({reduce.begin() + 2, reduce.begin() + 3}, unroll, t.y[3] * t.x[3]);
    else
      w.openNest({reduce.begin() + 2, reduce.begin() + 4}, unroll, t.y[3] * t.x[3]);
    w.line("const int kx = rxo * RX_IN + rxi;");
    w.line(std::string("const float wv = B[(((index_t)(fb + fi) * ") + (grouped ? "CG" : "CI") +
           " + c) * KH + ky) * KW + kx];");
    w.openNest({reduce.begin() + 4, reduce.begin() + 5}, unroll, t.x[3]);
    w.line("const float* const tap = ph[yi][rxi % S] + rxi / S;");
    w.line("#pragma omp simd");
    w.line("for (int xi = 0; xi < X_IN; ++xi) acc[fi][yi][xi] += wv * tap[xi];");
    w.closeNest(5);
  };
  const auto writeTaps = [&](bool inside) {
    if (inside && op.stride > 1) {
      writeStridedTaps();
      return;
    }
    w.openNest({reduce.begin(), reduce.begin() + 4}, unroll, t.y[3] * t.x[3]);
    w.line("const int c = rco * RC_IN + rci, ky = ryo * RY_IN + ryi, kx = rxo * RX_IN + rxi;");
    w.line(std::string("const float wv = B[(((index_t)(fb + fi) * ") + (grouped ? "CG" : "CI") +
           " + c) * KH + ky) * KW + kx];");
    if (grouped) w.line("const index_t gc = ((fb + fi) / FG) * CG + c;  // c in the whole input");
    w.openNest({reduce.begin() + 4, reduce.begin() + 5}, unroll, t.x[3]);
    w.line("const int iy = (yb + yi) * S - P + ky;");
    const std::string channel = grouped ? "gc" : "c";
    if (inside) {
      w.line("const float* const at = in + (((index_t)" + channel +
             " * H + iy) * W + xb * S - P + kx);");
      w.line("#pragma omp simd");
      w.line("for (int xi = 0; xi < X_IN; ++xi) acc[fi][yi][xi] += wv * at[xi * S];");
      w.closeNest(reduce.size() - 1);
      return;
    }
    w.line("if (iy < 0 || iy >= H) continue;  // zero padding");
    w.openNest({reduce.begin() + 5, reduce.end()}, unroll);
    w.line("const int ix = (xb + xi) * S - P + kx;");
    w.line("if (ix >= 0 && ix < W) " + std::string(local ? "acc[fi][yi][xi]" : cAt) +
           " += wv * in[((index_t)" + channel + " * H + iy) * W + ix];");
    w.closeNest(reduce.size());
  };
  if (interior && op.pad == 0) {
    writeTaps(true);
  } else if (interior) {
    w.line("const int iy0 = yb * S - P + ryo * RY_IN, ix0 = xb * S - P + rxo * RX_IN;");
    w.line(
        "const bool inside = iy0 >= 0 && iy0 + (Y_IN - 1) * S + RY_IN - 1 < H && ix0 >= 0 && "
        "ix0 + (X_IN - 1) * S + RX_IN - 1 < W;");
    w.open("if (inside)");
    writeTaps(true);
    w.close();
    w.open("else");
    writeTaps(false);
    w.close();
  } else {
    writeTaps(false);
  }
  if (local) {
    w.line("for (int fi = 0; fi < F_IN; ++fi)");
    w.line("  for (int yi = 0; yi < Y_IN; ++yi)");
    w.line("    for (int xi = 0; xi < X_IN; ++xi) " + cAt + " += acc[fi][yi][xi];");
  }
  w.closeNest(2);
  if (!op.epilogue.empty()) {
    w.comment("The fused epilogue, once the block's sums are complete.");
    w.line("for (int f = f0; f < f0 + BLOCK_F; ++f)");
    w.line("for (int oy = y0; oy < y0 + BLOCK_Y; ++oy)");
    w.open("for (int ox = x0; ox < x0 + BLOCK_X; ++ox)");
    w.line("const index_t at = (((index_t)img * F + f) * OH + oy) * OW + ox;");
    w.line("float v = C[at];");
    writeEpilogue(w, op, Backend::Cpu, "v", "f", "at");
    w.line("C[at] = v;");
    w.close();
  }
  w.closeNest(5);
  g.source = w.str();
  return g;
}

}  // namespace opevo::codegen::detail
