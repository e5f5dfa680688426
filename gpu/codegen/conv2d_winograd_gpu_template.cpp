// Winograd F(m x m, r x r) Conv2D for CUDA and HIP (Lavin & Gray), fused into one kernel: each
// block transforms its stage of input tiles into shared memory beside the stage's transformed
// weights, multiplies them as alpha * alpha small matrix products accumulated in registers over
// the input channels, and transforms the sums back into m x m outputs. The weights come
// transformed (U = G g G^T, codegen::winogradWeights), once per set of weights, as the CPU
// kernel's do: transformed in the kernel, every block repeated the transform of its output
// channels' weights, r^2 * alpha^2 multiply-adds per (channel, output channel) pair for each
// stage of tiles.

#include <algorithm>
#include <functional>
#include <tuple>

#include "codegen/templates.h"
#include "codegen/winograd_transforms.h"
#include "ops/winograd_space.h"

namespace opevo::codegen::detail {
namespace {

std::string str(std::int64_t v) {
  return std::to_string(v);
}

}  // namespace

GeneratedKernel conv2dWinogradGpu(const KernelContext& ctx, const WinogradTiling& t) {
  const OperatorSpec& op = *ctx.op;
  const WinogradShape shape = winogradShape(op);
  const WinogradTransforms x =
      winogradTransforms(static_cast<int>(shape.m), static_cast<int>(shape.r));
  const int alpha = x.alpha, m = x.m, r = x.r;
  GeneratedKernel g;
  g.backend = ctx.backend;
  g.entry = ctx.entry;
  g.accumulators = t.accumulators();
  g.launch.grid = {t.t[0], t.f[0], 1};
  g.launch.block = {t.threads(), 1, 1};
  // A thread's products are read four at a time where its inner tiles allow: NVCC does not merge
  // scalar shared loads.
  const bool vectorU = t.f[2] % 4 == 0, vectorV = t.t[2] % 4 == 0;
  const std::int64_t elements = shape.elements();
  const std::int64_t vFloats = (elements * t.rc[1] * t.blockT() + 3) / 4 * 4;
  const std::int64_t uFloats = elements * t.rc[1] * t.blockF();
  // With E_TH > 1 a thread holds only some of a tile's transform elements: the sums meet in
  // shared memory (over the stage's buffers) for the inverse transform.
  const bool gather = t.e[0] > 1;
  const std::int64_t sumFloats = gather ? elements * t.blockF() * t.blockT() : 0;
  g.launch.sharedBytes =
      static_cast<std::int64_t>(sizeof(float)) * std::max(vFloats + uFloats, sumFloats);
  const bool ragged = op.outHeight() % m != 0 || op.outWidth() % m != 0;
  g.summary = "Winograd F(" + str(m) + "x" + str(m) + ", " + str(r) + "x" + str(r) + "), block " +
              str(t.blockF()) + " channels x " + str(t.blockT()) + " tiles, " + str(t.threads()) +
              " threads, " + str(t.accumulators()) + " accumulators per thread (" + str(t.f[2]) +
              " x " + str(t.t[2]) + " x " + str(t.e[1]) + " elements), stage of " + str(t.rc[1]) +
              " channels" + (gather ? ", sums gathered in shared memory" : "");

  CodeWriter w;
  writeHeader(w, ctx,
              "Conv2D Winograd F(" + str(m) + "x" + str(m) + ", " + str(r) + "x" + str(r) +
                  ") fused: input tiles transformed into shared memory beside the weights, "
                  "transformed beforehand (B = U[ALPHA^2][CI][F]), alpha^2 products accumulated "
                  "in registers, inverse transform on store",
              describeLaunch(g.launch));
  w.line();
  openGpuKernel(w, ctx, t.threads(), indexType(op));
  w.comment(
      "C[n][f][oy][ox] = sum over c, ky, kx of A[n][c][oy+ky-P][ox+kx-P] * g[f][c][ky][kx],\n"
      "computed for each M x M tile of outputs as AT [(G g G^T) .* (BT d BT^T)] AT^T, d the\n"
      "ALPHA x ALPHA input the tile reads (zeros outside the input), g the operator's\n"
      "weights. B holds the weights transformed, U[E][CI][F] = G g G^T for each (input channel,\n"
      "output channel) pair, E = ALPHA^2: the host transforms them once (what a network stores).");
  w.line("constexpr index_t CI = " + str(op.inChannels) + ", H = " + str(op.height) +
         ", W = " + str(op.width) + ";  // batch " + str(op.batch));
  w.line("constexpr index_t F = " + str(op.outChannels) + ", OH = " + str(op.outHeight()) +
         ", OW = " + str(op.outWidth()) + ";");
  w.line("constexpr int R = " + str(r) + ", P = " + str(op.pad) + ", M = " + str(m) +
         ", ALPHA = " + str(alpha) + ";");
  w.comment("Output tiles: TILES_H x TILES_W per image, the images' one after another.");
  w.line("constexpr index_t TILES_H = " + str(shape.tilesH) + ", TILES_W = " + str(shape.tilesW) +
         ";");
  w.comment("tile_f = [blocks " + str(t.f[0]) + ", F_TH, F_IN]; tile_t = [blocks " + str(t.t[0]) +
            ", T_TH, T_IN]; tile_e = [E_TH, E_IN]; tile_rc = [RC_OUT, RC_IN]");
  w.line("constexpr int F_TH = " + str(t.f[1]) + ", F_IN = " + str(t.f[2]) +
         ", T_TH = " + str(t.t[1]) + ", T_IN = " + str(t.t[2]) + ";");
  w.line("constexpr int E_TH = " + str(t.e[0]) + ", E_IN = " + str(t.e[1]) +
         ", RC_OUT = " + str(t.rc[0]) + ", RC_IN = " + str(t.rc[1]) + ";");
  w.line(
      "constexpr int BLOCK_F = F_TH * F_IN, BLOCK_T = T_TH * T_IN, THREADS = F_TH * T_TH * E_TH;");
  w.line();
  w.comment(
      "Dynamic shared memory: a stage's transformed input V[E][RC_IN][BLOCK_T] (E = ALPHA^2\n"
      "transform elements; rounded up to whole float4s) and weights U[E][RC_IN][BLOCK_F]" +
      std::string(gather ? "; after the last stage the sums\nS[E][BLOCK_F][BLOCK_T] over both."
                         : "."));
  w.line("extern __shared__ __attribute__((aligned(16))) float smem[];");
  w.line("float* V = smem;");
  w.line("float* U = smem + " + str(vFloats) + ";");
  w.line("const int tid = threadIdx.x;");
  w.line("const int tt = tid % T_TH, ft = (tid / T_TH) % F_TH, et = tid / (T_TH * F_TH);");
  w.line("const index_t t0 = (index_t)blockIdx.x * BLOCK_T;");
  w.line("const int f0 = blockIdx.y * BLOCK_F;");
  w.line("float acc[E_IN][F_IN][T_IN];");
  w.line("#pragma unroll");
  w.open("for (int ei = 0; ei < E_IN; ++ei)");
  w.line("#pragma unroll");
  w.open("for (int fi = 0; fi < F_IN; ++fi)");
  w.line("#pragma unroll");
  w.line("for (int ti = 0; ti < T_IN; ++ti) acc[ei][fi][ti] = 0.0f;");
  w.close();
  w.close();
  w.line();
  w.line("#pragma unroll 1");
  w.open("for (int rco = 0; rco < RC_OUT; ++rco)");
  w.comment(
      "The stage's input tiles, a thread per (channel, tile); consecutive threads take "
      "consecutive\n"
      "tiles, so their shared stores fall on consecutive banks.");
  w.open("for (int i = tid; i < RC_IN * BLOCK_T; i += THREADS)");
  w.line("const int ci = i / BLOCK_T, tl = i % BLOCK_T;");
  w.line("const index_t tile = t0 + tl, img = tile / (TILES_H * TILES_W);");
  w.line("const int ty = (int)((tile / TILES_W) % TILES_H), tx = (int)(tile % TILES_W);");
  w.line("const int iy0 = ty * M - P, ix0 = tx * M - P;");
  w.line("const float* in = A + (img * CI + rco * RC_IN + ci) * H * W;");
  w.line("float d[ALPHA][ALPHA];");
  w.line("#pragma unroll");
  w.open("for (int a = 0; a < ALPHA; ++a)");
  w.line("#pragma unroll");
  w.open("for (int b = 0; b < ALPHA; ++b)");
  w.line("const int iy = iy0 + a, ix = ix0 + b;");
  w.line("d[a][b] = (iy >= 0 && iy < H && ix >= 0 && ix < W) ? in[iy * W + ix] : 0.0f;");
  w.close();
  w.close();
  w.comment("V = BT d BT^T");
  writeTransform(
      w, x.bt, x.bt, alpha, [](int k, int b) { return "d[" + str(k) + "][" + str(b) + "]"; }, "s",
      [&](int a, int b, const std::string& v) {
        w.line("V[(" + str(a * alpha + b) + " * RC_IN + ci) * BLOCK_T + tl] = " + v + ";");
      });
  w.close();
  w.comment(
      "The stage's transformed weights, U[E][CI][F] in memory, copied whole: consecutive threads\n"
      "take consecutive output channels, and U's index in shared memory is i.");
  const bool vectorB = t.blockF() % 4 == 0 && op.outChannels % 4 == 0;
  const std::string perRow = vectorB ? "(BLOCK_F / 4)" : "BLOCK_F";
  w.open("for (int i = tid; i < ALPHA * ALPHA * RC_IN * " + perRow + "; i += THREADS)");
  w.line("const int fl = i % " + perRow + ", row = i / " + perRow +
         ", ci = row % RC_IN, e = row / RC_IN;");
  w.line("const index_t at = ((index_t)e * CI + rco * RC_IN + ci) * F + f0;");
  if (vectorB)
    w.line("reinterpret_cast<float4*>(U)[i] = *reinterpret_cast<const float4*>(B + at + fl * 4);");
  else
    w.line("U[i] = B[at + fl];");
  w.close();
  w.line("__syncthreads();");
  w.comment(
      "The products: for each of the thread's transform elements e, its F_IN x T_IN outer\n"
      "product of U[e][ci] and V[e][ci], summed over the stage's channels.");
  w.line("#pragma unroll 2");
  w.open("for (int ci = 0; ci < RC_IN; ++ci)");
  w.line("#pragma unroll");
  w.open("for (int ei = 0; ei < E_IN; ++ei)");
  w.line("const int e = et * E_IN + ei;");
  w.line("const float* u = &U[(e * RC_IN + ci) * BLOCK_F + ft * F_IN];");
  w.line("const float* v = &V[(e * RC_IN + ci) * BLOCK_T + tt * T_IN];");
  for (auto [name, inner, vector, pointer] :
       {std::tuple{"uReg", "F_IN", vectorU, "u"}, std::tuple{"vReg", "T_IN", vectorV, "v"}}) {
    w.line(std::string("float ") + name + "[" + inner + "];");
    w.line("#pragma unroll");
    if (vector) {
      w.open(std::string("for (int q = 0; q < ") + inner + " / 4; ++q)");
      w.line(std::string("const float4 f4 = *reinterpret_cast<const float4*>(") + pointer +
             " + q * 4);");
      w.line(std::string(name) + "[q * 4] = f4.x, " + name + "[q * 4 + 1] = f4.y, " + name +
             "[q * 4 + 2] = f4.z, " + name + "[q * 4 + 3] = f4.w;");
      w.close();
    } else {
      w.line(std::string("for (int q = 0; q < ") + inner + "; ++q) " + name + "[q] = " + pointer +
             "[q];");
    }
  }
  w.line("#pragma unroll");
  w.open("for (int fi = 0; fi < F_IN; ++fi)");
  w.line("#pragma unroll");
  w.line("for (int ti = 0; ti < T_IN; ++ti) acc[ei][fi][ti] += uReg[fi] * vReg[ti];");
  w.close();
  w.close();
  w.close();
  w.comment("The next stage overwrites U and V: wait until everyone has read them.");
  w.line("__syncthreads();");
  w.close();
  w.line();

  // The inverse transform of the sums of output channel f0 + fl at tile t0 + tl, sum(a, b) the
  // sum of transform element (a, b).
  auto writeInverse = [&](const TransformInput& sum) {
    w.line("const index_t tile = t0 + tl, img = tile / (TILES_H * TILES_W);");
    w.line("const int ty = (int)((tile / TILES_W) % TILES_H), tx = (int)(tile % TILES_W);");
    w.line("const int f = f0 + fl;");
    w.comment("Y = AT sums AT^T, stored where the tile lies inside the output");
    writeTransform(w, x.at, x.at, alpha, sum, "y", [&](int p, int q, const std::string& v) {
      w.open("");
      w.line("const int oy = ty * M + " + str(p) + ", ox = tx * M + " + str(q) + ";");
      if (ragged) w.open("if (oy < OH && ox < OW)");
      w.line("const index_t at = ((img * F + f) * OH + oy) * OW + ox;");
      w.line("float out = " + v + ";");
      writeEpilogue(w, op, ctx.backend, "out", "f", "at");
      w.line("C[at] = out;");
      if (ragged) w.close();
      w.close();
    });
  };
  if (gather) {
    w.comment(
        "The threads' sums into S[E][BLOCK_F][BLOCK_T] (the stages are over: the last barrier\n"
        "let everyone finish reading U and V), then a thread per (output channel, tile).");
    w.line("float* S = smem;");
    w.line("#pragma unroll");
    w.open("for (int ei = 0; ei < E_IN; ++ei)");
    w.line("#pragma unroll");
    w.open("for (int fi = 0; fi < F_IN; ++fi)");
    w.line("#pragma unroll");
    w.line("for (int ti = 0; ti < T_IN; ++ti)");
    w.line(
        "  S[((et * E_IN + ei) * BLOCK_F + ft * F_IN + fi) * BLOCK_T + tt * T_IN + ti] = "
        "acc[ei][fi][ti];");
    w.close();
    w.close();
    w.line("__syncthreads();");
    w.open("for (int i = tid; i < BLOCK_F * BLOCK_T; i += THREADS)");
    w.line("const int fl = i / BLOCK_T, tl = i % BLOCK_T;");
    writeInverse([&](int a, int b) {
      return "S[(" + str(a * alpha + b) + " * BLOCK_F + fl) * BLOCK_T + tl]";
    });
    w.close();
  } else {
    w.comment(
        "Each thread holds every transform element of its F_IN x T_IN (channel, tile) pairs.");
    w.line("#pragma unroll");
    w.open("for (int fi = 0; fi < F_IN; ++fi)");
    w.line("#pragma unroll");
    w.open("for (int ti = 0; ti < T_IN; ++ti)");
    w.line("const int fl = ft * F_IN + fi, tl = tt * T_IN + ti;");
    writeInverse([&](int a, int b) { return "acc[" + str(a * alpha + b) + "][fi][ti]"; });
    w.close();
    w.close();
  }
  w.close();
  g.packedWeights = true;
  g.source = w.str();
  return g;
}

}  // namespace opevo::codegen::detail
