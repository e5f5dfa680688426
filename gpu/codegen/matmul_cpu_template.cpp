// MatMul / BatchMatMul for the CPU backend, with the tiling meaning of the GPU template: blocks
// are OpenMP-parallel outer loops, threads and virtual threads middle tiles run in sequence,
// inner tiles register tiles, and K's outer step the cache-resident stage that shared memory is
// on a GPU. The source is self-contained (no includes) for `c++ -O3 -march=native -fopenmp`.

#include "codegen/templates.h"
#include "common/error.h"
#include "codegen/omp_parallel.h"

namespace opevo::codegen::detail {
namespace {

// A register tile above this many floats is no register tile: it is accumulated in C directly
// instead of in a local array, which would only burden the (OpenMP worker's) stack.
constexpr std::int64_t kMaxLocalTile = 4096;

std::string str(std::int64_t v) {
  return std::to_string(v);
}

}  // namespace

GeneratedKernel matmulCpu(const KernelContext& ctx, const MatMulTiling& t) {
  const OperatorSpec& op = *ctx.op;
  if (t.splitK != 1 || t.stages != 1)
    throw InputError("codegen: split_k " + std::to_string(t.splitK) + " and stages " +
                     std::to_string(t.stages) +
                     " are GPU template parameters; the CPU template runs 1 and 1 only");
  const bool batched = op.kind == OpKind::BatchMatMul;
  const bool local = t.n[3] * t.m[3] <= kMaxLocalTile;
  GeneratedKernel g;
  g.backend = Backend::Cpu;
  g.entry = ctx.entry;
  g.accumulators = t.n[3] * t.m[3];
  g.launch.grid = {t.m[0], t.n[0], t.b[0]};
  g.launch.block = {t.m[2], t.n[2], t.b[1]};
  g.summary = "parallel blocks " + str(t.b[0] * t.n[0] * t.m[0]) + " of " + str(t.b[1]) + "x" +
              str(t.blockN()) + "x" + str(t.blockM()) + ", register tile " + str(t.n[3]) + "x" +
              str(t.m[3]) + ", K stage " + str(t.kStep());

  CodeWriter w;
  writeHeader(w, ctx,
              std::string(batched ? "BatchMatMul" : "MatMul") +
                  " for CPUs: blocks -> OpenMP-parallel loops, threads and vthreads -> middle "
                  "tiles, inner -> register tiles, K [outer stage, middle, inner]",
              "");
  w.line();
  w.open("extern \"C\" void " + ctx.entry + kernelParams(Backend::Cpu));
  w.line("using index_t = " + indexType(op) + ";");
  w.line("constexpr index_t N = " + str(op.n) + ", M = " + str(op.m) + ", K = " + str(op.k) + ";");
  w.comment("tile_n = [N_OUT, N_VT, N_TH, N_IN], tile_m likewise, tile_k = [K_OUT, K_MID, K_IN]" +
            std::string(batched ? ", tile_b = [B_OUT, B_TH]" : ""));
  w.line("constexpr int B_OUT = " + str(t.b[0]) + ", B_TH = " + str(t.b[1]) + ";");
  w.line("constexpr int N_OUT = " + str(t.n[0]) + ", N_VT = " + str(t.n[1]) +
         ", N_TH = " + str(t.n[2]) + ", N_IN = " + str(t.n[3]) + ";");
  w.line("constexpr int M_OUT = " + str(t.m[0]) + ", M_VT = " + str(t.m[1]) +
         ", M_TH = " + str(t.m[2]) + ", M_IN = " + str(t.m[3]) + ";");
  w.line("constexpr int K_OUT = " + str(t.k[0]) + ", K_MID = " + str(t.k[1]) +
         ", K_IN = " + str(t.k[2]) + ";");
  w.line("constexpr int BLOCK_N = N_VT * N_TH * N_IN, BLOCK_M = M_VT * M_TH * M_IN;");
  w.line("constexpr int K_STEP = K_MID * K_IN;");
  w.line();
  w.comment("Each iteration owns one block tile of C, so the parallel loop needs no locking.");
  w.line(ompParallel(" for collapse(3) schedule(static)", op.flops(), Work::Flops));
  w.open("for (int bo = 0; bo < B_OUT; ++bo)");
  w.open("for (int no = 0; no < N_OUT; ++no)");
  w.open("for (int mo = 0; mo < M_OUT; ++mo)");
  w.line("const index_t row0 = (index_t)no * BLOCK_N, col0 = (index_t)mo * BLOCK_M;");
  const std::string cBatch = batched ? "(index_t)(bo * B_TH + bt) * (N * M) + " : "";
  w.open("for (int bt = 0; bt < B_TH; ++bt)");
  w.open("for (int r = 0; r < BLOCK_N; ++r)");
  w.line("for (int c = 0; c < BLOCK_M; ++c) C[" + cBatch + "(row0 + r) * M + col0 + c] = 0.0f;");
  w.close();
  w.close();
  w.comment(
      "One K stage at a time: the block's K_STEP columns of A and rows of B stay in cache while\n"
      "every (thread, vthread) tile of the block uses them, as shared memory does on a GPU.");
  w.open("for (int ko = 0; ko < K_OUT; ++ko)");
  w.line("for (int bt = 0; bt < B_TH; ++bt)");
  w.line("for (int tn = 0; tn < N_TH; ++tn)");
  w.line("for (int tm = 0; tm < M_TH; ++tm)");
  w.line("for (int vn = 0; vn < N_VT; ++vn)");
  w.open("for (int vm = 0; vm < M_VT; ++vm)");
  w.line("const index_t row = row0 + (vn * N_TH + tn) * N_IN;  // the register tile's first row");
  w.line("const index_t col = col0 + (vm * M_TH + tm) * M_IN;");
  if (batched) w.line("const index_t batch = (index_t)bo * B_TH + bt;");
  const std::string batch = batched ? "batch" : "";
  const std::string cAt = "C[" + cBatch + "(row + in) * M + col + im]";
  if (local) {
    w.line("float acc[N_IN][M_IN] = {};");
  } else {
    w.comment("The inner tile is too large for registers: accumulate in C itself.");
  }
  w.open("for (int km = 0; km < K_MID; ++km)");
  w.open("for (int ki = 0; ki < K_IN; ++ki)");
  w.line("const index_t k = (index_t)ko * K_STEP + km * K_IN + ki;");
  w.open("for (int in = 0; in < N_IN; ++in)");
  w.line("const float a = A[" + aOffset(op, batch, "row + in", "k") + "];");
  w.open("for (int im = 0; im < M_IN; ++im)");
  w.line((local ? std::string("acc[in][im]") : cAt) + " += a * B[" +
         bOffset(op, batch, "k", "col + im") + "];");
  w.closeNest(4);
  if (local) {
    w.open("for (int in = 0; in < N_IN; ++in)");
    w.line("for (int im = 0; im < M_IN; ++im) " + cAt + " += acc[in][im];");
    w.close();
  }
  w.closeNest(2);
  if (!op.epilogue.empty()) {
    w.comment("The fused epilogue, once the block's sums are complete.");
    w.line("for (int bt = 0; bt < B_TH; ++bt)");
    w.line("for (int r = 0; r < BLOCK_N; ++r)");
    w.open("for (int c = 0; c < BLOCK_M; ++c)");
    w.line("const index_t at = " + cBatch + "(row0 + r) * M + col0 + c;");
    w.line("float v = C[at];");
    writeEpilogue(w, op, Backend::Cpu, "v", "col0 + c", "at");
    w.line("C[at] = v;");
    w.close();
  }
  w.closeNest(4);
  g.source = w.str();
  return g;
}

}  // namespace opevo::codegen::detail
