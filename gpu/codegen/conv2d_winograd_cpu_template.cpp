// Winograd F(m x m, r x r) Conv2D for the CPU backend (Lavin & Gray), on the plain NCHW layouts
// and the GPU template's space (ops/winograd_space.h), so one tuned configuration runs anywhere.
// What the factors mean here:
//   tile_t = [T_OUT, T_MID, T_IN]: T_OUT parallel blocks of BLOCK_T = T_MID * T_IN tiles;
//   tile_f = [F_OUT, F_MID, F_IN]: F_OUT parallel blocks of BLOCK_F = F_MID * F_IN channels, each
//            transforming its tile block's input again (many channel blocks suit few tiles);
//   tile_e = [E_OUT, E_IN]: the register tile's E_IN transform elements;
//   tile_rc = [RC_OUT, RC_IN]: input channels transformed and summed a stage at a time.
// A register tile holds F_IN x T_IN x E_IN sums, the F_IN output channels its vector lanes. The
// transforms run a batch of lanes at a time
// (weights: output channels; input: (channel, tile) pairs; output: output channels) through
// straight-line code the compiler vectorizes across the lanes. The weights are transformed once,
// by ENTRY_pack_b, as a deployment stores them (the harness transforms them before it times the
// kernel, a network when it is built), as the layout templates' weights are packed; the input and
// output transforms run in every call. Self-contained for `c++ -O3 -fopenmp`.

#include <algorithm>
#include <functional>

#include "codegen/templates.h"
#include "codegen/winograd_transforms.h"
#include "ops/winograd_space.h"
#include "codegen/omp_parallel.h"

namespace opevo::codegen::detail {
namespace {

// Lanes of one transform batch: two AVX2 vectors, one AVX-512 vector.
constexpr int kLanes = 16;

std::string str(std::int64_t v) {
  return std::to_string(v);
}

// `statement` for every element e and lane l < n of a batch: a whole batch as fixed-length loops
// (a variable-length copy of 16 floats compiles to a `rep movs`, which costs more than the
// transform that filled it).
void writeLaneCopy(CodeWriter& w, const std::string& statement) {
  w.open("if (n == L)");
  w.line("for (int e = 0; e < E; ++e)");
  w.line("#pragma omp simd");
  w.line("  for (int l = 0; l < L; ++l) " + statement);
  w.close();
  w.open("else");
  w.line("for (int e = 0; e < E; ++e)");
  w.line("  for (int l = 0; l < n; ++l) " + statement);
  w.close();
}

}  // namespace

GeneratedKernel conv2dWinogradCpu(const KernelContext& ctx, const WinogradTiling& t) {
  const OperatorSpec& op = *ctx.op;
  const WinogradShape shape = winogradShape(op);
  const WinogradTransforms x =
      winogradTransforms(static_cast<int>(shape.m), static_cast<int>(shape.r));
  const int alpha = x.alpha, m = x.m, r = x.r;
  GeneratedKernel g;
  g.backend = Backend::Cpu;
  g.entry = ctx.entry;
  g.accumulators = t.accumulators();
  g.launch.grid = {t.t[0], t.f[0], 1};
  g.launch.block = {1, 1, 1};
  const bool ragged = op.outHeight() % m != 0 || op.outWidth() % m != 0;
  g.summary = "Winograd F(" + str(m) + "x" + str(m) + ", " + str(r) + "x" + str(r) + "), " +
              str(t.t[0] * t.f[0]) + " parallel blocks of " + str(t.blockF()) + " channels x " +
              str(t.blockT()) + " tiles, register tile " + str(t.f[2]) + " x " + str(t.t[2]) +
              " x " + str(t.e[1]) + " elements, stage of " + str(t.rc[1]) + " channels";

  CodeWriter w;
  writeHeader(w, ctx,
              "Conv2D Winograd F(" + str(m) + "x" + str(m) + ", " + str(r) + "x" + str(r) +
                  ") for CPUs: weights transformed beforehand (_pack_b), then per parallel "
                  "block of tiles and channels: input transform, alpha^2 products, inverse "
                  "transform",
              "");
  w.line("#include <cstdlib>");
  w.line();
  w.open("extern \"C\" void " + ctx.entry + kernelParams(Backend::Cpu));
  w.comment(
      "C[n][f][oy][ox] = sum over c, ky, kx of A[n][c][oy+ky-P][ox+kx-P] * B[f][c][ky][kx],\n"
      "computed for each M x M tile of outputs as AT [(G g G^T) .* (BT d BT^T)] AT^T, d the\n"
      "ALPHA x ALPHA input the tile reads (zeros outside the input), g a channel's R x R\n"
      "weights.");
  w.line("using index_t = " + indexType(op) + ";");
  w.line("constexpr index_t CI = " + str(op.inChannels) + ", H = " + str(op.height) +
         ", W = " + str(op.width) + ";  // batch " + str(op.batch));
  w.line("constexpr index_t F = " + str(op.outChannels) + ", OH = " + str(op.outHeight()) +
         ", OW = " + str(op.outWidth()) + ";");
  w.line("constexpr int R = " + str(r) + ", P = " + str(op.pad) + ", M = " + str(m) +
         ", ALPHA = " + str(alpha) + ", E = ALPHA * ALPHA, L = " + str(kLanes) + ";");
  w.comment("Output tiles: TILES_H x TILES_W per image, the images' one after another.");
  w.line("constexpr index_t TILES_H = " + str(shape.tilesH) + ", TILES_W = " + str(shape.tilesW) +
         ";");
  w.line("constexpr int F_OUT = " + str(t.f[0]) + ", F_MID = " + str(t.f[1]) +
         ", F_IN = " + str(t.f[2]) + ";");
  w.line("constexpr int T_OUT = " + str(t.t[0]) + ", T_MID = " + str(t.t[1]) +
         ", T_IN = " + str(t.t[2]) + ";");
  w.line("constexpr int E_OUT = " + str(t.e[0]) + ", E_IN = " + str(t.e[1]) +
         ", RC_OUT = " + str(t.rc[0]) + ", RC_IN = " + str(t.rc[1]) + ";");
  w.line("constexpr int BLOCK_F = F_MID * F_IN, BLOCK_T = T_MID * T_IN;");
  w.line();
  w.comment(
      "B holds the transformed weights U[E][CI][F] (" + ctx.entry + "_pack_b below), output\n"
      "channels innermost: the products' vector lanes.");
  w.line("const float* const U = B;");
  w.comment(
      "A thread that cannot allocate its buffers computes nothing; the output is then all NaN,\n"
      "so the check fails with a mismatch instead of passing what an earlier call left in C.");
  w.line("bool outOfMemory = false;");
  w.line(ompParallel("", op.flops(), Work::Flops));
  w.open("");
  w.comment(
      "Per thread: a stage's transformed input V[E][Q] for its Q = RC_IN * T_IN (channel, tile)\n"
      "pairs, and the block's sums S[BLOCK_T][E][BLOCK_F] over the stages.");
  w.line("constexpr int Q = RC_IN * T_IN;");
  w.line("float* const V = static_cast<float*>(std::aligned_alloc(64, ((std::size_t)E * Q * "
         "sizeof(float) + 63) / 64 * 64));");
  w.line("float* const S = static_cast<float*>(std::aligned_alloc(64, ((std::size_t)BLOCK_T * E * "
         "BLOCK_F * sizeof(float) + 63) / 64 * 64));");
  w.line("#pragma omp for collapse(2) schedule(static)");
  w.open("for (int to = 0; to < T_OUT; ++to)");
  w.open("for (int fo = 0; fo < F_OUT; ++fo)");
  w.open("if (!V || !S)");
  w.line("#pragma omp atomic write");
  w.line("outOfMemory = true;");
  w.line("continue;");
  w.close();
  w.line("const index_t t0 = (index_t)to * BLOCK_T;");
  w.line("const int f0 = fo * BLOCK_F;");
  w.open("for (int rco = 0; rco < RC_OUT; ++rco)");
  w.open("for (int tm = 0; tm < T_MID; ++tm)");
  w.comment("V = BT d BT^T for the stage's channels at the register tile's T_IN tiles.");
  w.open("for (int q0 = 0; q0 < Q; q0 += L)");
  w.line("const int n = Q - q0 < L ? Q - q0 : L;");
  w.line("float d[E][L], v[E][L];");
  w.open("for (int l = 0; l < L; ++l)");
  w.open("if (l >= n)");
  w.line("for (int e = 0; e < E; ++e) d[e][l] = 0.0f;");
  w.line("continue;");
  w.close();
  w.line("const int ci = (q0 + l) / T_IN, ti = (q0 + l) % T_IN;");
  w.line("const index_t tile = t0 + tm * T_IN + ti, img = tile / (TILES_H * TILES_W);");
  w.line("const int iy0 = (int)((tile / TILES_W) % TILES_H) * M - P;");
  w.line("const int ix0 = (int)(tile % TILES_W) * M - P;");
  w.line("const float* in = A + (img * CI + rco * RC_IN + ci) * H * W;");
  w.comment("Most tiles lie inside the input: no test per element there.");
  w.open("if (iy0 >= 0 && ix0 >= 0 && iy0 + ALPHA <= H && ix0 + ALPHA <= W)");
  w.line("const float* p = in + iy0 * W + ix0;");
  w.line("#pragma GCC unroll 64");
  w.line("for (int a = 0; a < ALPHA; ++a)");
  w.line("#pragma GCC unroll 64");
  w.line("  for (int b = 0; b < ALPHA; ++b) d[a * ALPHA + b][l] = p[a * W + b];");
  w.line("continue;");
  w.close();
  w.line("for (int a = 0; a < ALPHA; ++a)");
  w.open("  for (int b = 0; b < ALPHA; ++b)");
  w.line("const int iy = iy0 + a, ix = ix0 + b;");
  w.line("d[a * ALPHA + b][l] = (iy >= 0 && iy < H && ix >= 0 && ix < W) ? in[iy * W + ix] : "
         "0.0f;");
  w.close();
  w.close();
  w.line("#pragma omp simd");
  w.open("for (int l = 0; l < L; ++l)");
  writeTransform(
      w, x.bt, x.bt, alpha,
      [alpha](int k, int b) { return "d[" + str(k * alpha + b) + "][l]"; }, "s",
      [&](int a, int b, const std::string& value) {
        w.line("v[" + str(a * alpha + b) + "][l] = " + value + ";");
      });
  w.close();
  writeLaneCopy(w, "V[e * Q + q0 + l] = v[e][l];");
  w.close();
  w.comment(
      "The products: for each register tile of E_IN elements x T_IN tiles x F_IN channels, the\n"
      "sum over the stage's channels of V[e][c, t] * U[e][c][f], f the vector lanes.");
  w.open("for (int fm = 0; fm < F_MID; ++fm)");
  w.open("for (int eo = 0; eo < E_OUT; ++eo)");
  w.line("float* const s = S + ((index_t)(tm * T_IN) * E + eo * E_IN) * BLOCK_F + fm * F_IN;");
  w.line("float acc[E_IN][T_IN][F_IN];");
  auto registerLoops = [&](const std::string& body) {
    w.line("#pragma GCC unroll 64");
    w.line("for (int ei = 0; ei < E_IN; ++ei)");
    w.line("#pragma GCC unroll 64");
    w.line("  for (int ti = 0; ti < T_IN; ++ti)");
    w.line("#pragma omp simd");
    w.line("    for (int fi = 0; fi < F_IN; ++fi) " + body);
  };
  registerLoops("acc[ei][ti][fi] = rco == 0 ? 0.0f : s[(ti * E + ei) * BLOCK_F + fi];");
  w.line("const float* u = U + ((index_t)(eo * E_IN) * CI + rco * RC_IN) * F + f0 + fm * F_IN;");
  w.line("const float* vv = V + (eo * E_IN) * Q;");
  w.open("for (int ci = 0; ci < RC_IN; ++ci, u += F, vv += T_IN)");
  w.line("#pragma GCC unroll 64");
  w.line("for (int ei = 0; ei < E_IN; ++ei)");
  w.line("#pragma GCC unroll 64");
  w.open("  for (int ti = 0; ti < T_IN; ++ti)");
  w.line("const float x = vv[ei * Q + ti];");
  w.line("#pragma omp simd");
  w.line("for (int fi = 0; fi < F_IN; ++fi) acc[ei][ti][fi] += x * u[(index_t)ei * CI * F + fi];");
  w.close();
  w.close();
  registerLoops("s[(ti * E + ei) * BLOCK_F + fi] = acc[ei][ti][fi];");
  w.close();
  w.close();
  w.close();
  w.close();
  w.comment("Y = AT sums AT^T for each (tile, channel) of the block, L channels at a time.");
  w.open("for (int tl = 0; tl < BLOCK_T; ++tl)");
  w.open("for (int fl0 = 0; fl0 < BLOCK_F; fl0 += L)");
  w.line("const int n = BLOCK_F - fl0 < L ? BLOCK_F - fl0 : L;");
  w.line("float sm[E][L], y[M * M][L];");
  w.line("for (int e = 0; e < E; ++e)");
  w.line("  for (int l = 0; l < L; ++l)");
  w.line("    sm[e][l] = l < n ? S[((index_t)tl * E + e) * BLOCK_F + fl0 + l] : 0.0f;");
  w.line("#pragma omp simd");
  w.open("for (int l = 0; l < L; ++l)");
  writeTransform(
      w, x.at, x.at, alpha, [alpha](int a, int b) { return "sm[" + str(a * alpha + b) + "][l]"; },
      "s", [&](int p, int q, const std::string& v) {
        w.line("y[" + str(p * m + q) + "][l] = " + v + ";");
      });
  w.close();
  w.line("const index_t tile = t0 + tl, img = tile / (TILES_H * TILES_W);");
  w.line("const int oy0 = (int)((tile / TILES_W) % TILES_H) * M, ox0 = (int)(tile % TILES_W) * M;");
  w.open("for (int l = 0; l < n; ++l)");
  w.line("const int f = f0 + fl0 + l;");
  w.line("for (int p = 0; p < M; ++p)");
  w.open("  for (int q = 0; q < M; ++q)");
  w.line("const int oy = oy0 + p, ox = ox0 + q;");
  if (ragged) w.line("if (oy >= OH || ox >= OW) continue;");
  w.line("const index_t at = ((img * F + f) * OH + oy) * OW + ox;");
  w.line("float out = y[p * M + q][l];");
  writeEpilogue(w, op, Backend::Cpu, "out", "f", "at");
  w.line("C[at] = out;");
  w.close();
  w.close();
  w.close();
  w.close();
  w.close();
  w.close();
  w.line("std::free(V);");
  w.line("std::free(S);");
  w.close();
  w.line("if (outOfMemory)");
  w.line("  for (index_t i = 0; i < (index_t)" + str(op.batch) +
         " * F * OH * OW; ++i) C[i] = __builtin_nanf(\"\");");
  w.close();
  w.line();
  w.comment(
      "The weights' transform, once per set of weights (the harness before it times the kernel,\n"
      "a network when it is built): B[F][CI][R][R] into U[E][CI][F], L output channels of one\n"
      "input channel at a time.");
  w.open("extern \"C\" long long " + ctx.entry + "_packed_size(int operand)");
  w.line("return operand == 0 ? " + str(op.batch * op.inChannels * op.height * op.width) +
         "LL : operand == 1 ? " + str(shape.elements() * op.inChannels * op.outChannels) +
         "LL : " + str(op.batch * op.outChannels * op.outHeight() * op.outWidth()) + "LL;");
  w.close();
  w.open("extern \"C\" void " + ctx.entry + "_pack_b(const float* B, float* U)");
  w.line("using index_t = long long;");
  w.line("constexpr index_t CI = " + str(op.inChannels) + ", F = " + str(op.outChannels) + ";");
  w.line("constexpr int R = " + str(r) + ", E = " + str(shape.elements()) + ", L = " + str(kLanes) +
         ";");
  w.line("#pragma omp parallel for collapse(2) schedule(static)");
  w.open("for (index_t c = 0; c < CI; ++c)");
  w.open("for (index_t f0 = 0; f0 < F; f0 += L)");
  w.line("const int n = (int)(F - f0 < L ? F - f0 : L);");
  w.line("float g[R * R][L], u[E][L];");
  w.line("for (int l = 0; l < L; ++l)");
  w.line("  for (int j = 0; j < R * R; ++j)");
  w.line("    g[j][l] = l < n ? B[((f0 + l) * CI + c) * (R * R) + j] : 0.0f;");
  w.line("#pragma omp simd");
  w.open("for (int l = 0; l < L; ++l)");
  writeTransform(
      w, x.g, x.g, r, [r](int j, int b) { return "g[" + str(j * r + b) + "][l]"; }, "s",
      [&](int a, int b, const std::string& v) {
        w.line("u[" + str(a * alpha + b) + "][l] = " + v + ";");
      });
  w.close();
  writeLaneCopy(w, "U[((index_t)e * CI + c) * F + f0 + l] = u[e][l];");
  w.close();
  w.close();
  w.close();
  g.packedWeights = true;
  g.source = w.str();
  return g;
}

}  // namespace opevo::codegen::detail
