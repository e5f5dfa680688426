// The matrix-vector template for the CPU backend (ops/matvec_space.h): the GPU template's
// blocks are OpenMP-parallel iterations and its groups run in turn; each output keeps
// VEC x UNROLL partial sums along K, contiguous, which the compiler turns into vector registers.
// lanes and k_split only share a GPU block's work: the common space, which CPU runs tune, has
// neither. The source is self-contained (no includes) for `c++ -O3 -march=native -fopenmp`.

#include "codegen/omp_parallel.h"
#include "codegen/templates.h"
#include "common/error.h"
#include "ops/matvec_space.h"

namespace opevo::codegen::detail {
namespace {

std::string str(std::int64_t v) {
  return std::to_string(v);
}

}  // namespace

GeneratedKernel matvecCpu(const KernelContext& ctx, const MatVecTiling& t) {
  const OperatorSpec& op = *ctx.op;
  if (t.lanes != kMatVecLanesWhenAbsent || t.kSplit != kMatVecKSplitWhenAbsent)
    throw InputError("codegen: lanes " + std::to_string(t.lanes) + " and k_split " +
                     std::to_string(t.kSplit) +
                     " are GPU template parameters; the CPU kernel runs 32 and 1 only (the "
                     "common matrix-vector space, target matvec, has neither)");
  const bool batched = op.kind == OpKind::BatchMatMul;
  const std::int64_t sums = t.vector * t.unroll;
  GeneratedKernel g;
  g.backend = Backend::Cpu;
  g.entry = ctx.entry;
  g.accumulators = op.n * t.m[2] * sums;
  g.launch.grid = {t.m[0], batched ? op.batch : 1, 1};
  g.launch.block = {t.m[1], 1, 1};
  g.summary = "matrix-vector: " + str(t.m[0]) + " parallel blocks of " + str(t.m[1]) + " x " +
              str(t.m[2]) + " columns, " + str(sums) + " partial sums per output";

  CodeWriter w;
  writeHeader(w, ctx,
              "matrix-vector for CPUs: blocks -> OpenMP-parallel loops, each output's K in "
              "SUMS partial sums",
              "");
  w.line();
  w.open("extern \"C\" void " + ctx.entry + kernelParams(Backend::Cpu));
  w.line("using index_t = " + indexType(op) + ";");
  w.line("constexpr index_t N = " + str(op.n) + ", M = " + str(op.m) + ", K = " + str(op.k) + ";");
  w.line("constexpr int BATCH = " + str(batched ? op.batch : 1) + ", M_OUT = " + str(t.m[0]) +
         ", GROUPS = " + str(t.m[1]) + ", COLS = " + str(t.m[2]) + ";");
  w.line("constexpr int SUMS = " + str(sums) + ";  // vector x unroll");
  w.line("constexpr int BLOCK_M = GROUPS * COLS;");
  // Bound by reading B (two bytes a flop): judged by the elements it reads, as a data mover is.
  // By its flops ResNet-18's fc (1 MFLOP, 2 MB of weights) ran on one thread.
  const double read = static_cast<double>(batched ? op.batch : 1) * static_cast<double>(op.k) *
                      static_cast<double>(op.m + op.n);
  w.line(ompParallel(" for collapse(2) schedule(static)", read, Work::Elements));
  w.open("for (int bt = 0; bt < BATCH; ++bt)");
  w.open("for (int mo = 0; mo < M_OUT; ++mo)");
  w.open("for (int g = 0; g < GROUPS; ++g)");
  w.line("const index_t col0 = (index_t)mo * BLOCK_M + g * COLS;");
  if (!batched) w.line("(void)bt;");
  const std::string batch = batched ? "bt" : "";
  w.line("float acc[N][COLS][SUMS] = {};");
  w.line("index_t k0 = 0;");
  w.open("for (; k0 + SUMS <= K; k0 += SUMS)");
  w.line("for (int r = 0; r < N; ++r)");
  w.open("for (int c = 0; c < COLS; ++c)");
  w.line("#pragma omp simd");
  w.line("for (int s = 0; s < SUMS; ++s) acc[r][c][s] += A[" + aOffset(op, batch, "r", "k0 + s") +
         "] * B[" + bOffset(op, batch, "k0 + s", "col0 + c") + "];");
  w.close();
  w.close();
  w.open("for (; k0 < K; ++k0)");
  w.line("for (int r = 0; r < N; ++r)");
  w.line("for (int c = 0; c < COLS; ++c) acc[r][c][0] += A[" + aOffset(op, batch, "r", "k0") +
         "] * B[" + bOffset(op, batch, "k0", "col0 + c") + "];");
  w.close();
  w.line("for (int r = 0; r < N; ++r)");
  w.open("for (int c = 0; c < COLS; ++c)");
  w.line("float v = 0.0f;");
  w.line("for (int s = 0; s < SUMS; ++s) v += acc[r][c][s];");
  w.line("const index_t col = col0 + c;");
  const std::string at = std::string(batched ? "(index_t)bt * (N * M) + " : "") + "r * M + col";
  writeEpilogue(w, op, Backend::Cpu, "v", "col", at);
  w.line("C[" + at + "] = v;");
  w.close();
  w.closeNest(3);
  w.close();
  g.source = w.str();
  return g;
}

}  // namespace opevo::codegen::detail
