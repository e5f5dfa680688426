// MatMul / BatchMatMul for CUDA and HIP, after TVM v0.6's dense and batch_matmul templates.

#include "codegen/templates.h"

namespace opevo::codegen::detail {
namespace {

// MatMul spaces have no unroll parameters. Register arrays stay in registers only when every
// loop indexing them is unrolled, so: tiles of at most kRegisterTile accumulators get their
// loops unrolled up to kUnrollSteps innermost steps (templates.h); larger tiles live in local
// memory whatever is done, and their loops are kept rolled, which keeps compile times short (a
// fully unrolled nest over local arrays took ptxas up to 28 s).

std::string str(std::int64_t v) {
  return std::to_string(v);
}

// One cooperative copy of a (B_TH x K_STEP x extent) slab from global into shared memory. The
// flat index i runs fastest along the dimension that is contiguous in global memory, so that
// neighbouring threads read neighbouring addresses (coalesced), whatever the transposition.
void writeSlabLoad(CodeWriter& w, const std::string& shared, const std::string& extent,
                   const std::string& inner, bool kContiguous, const std::string& global) {
  w.open("for (int i = tid; i < B_TH * K_STEP * " + extent + "; i += THREADS)");
  if (kContiguous)
    w.line("const int kk = i % K_STEP, " + inner + " = (i / K_STEP) % " + extent +
           ", bb = i / (K_STEP * " + extent + ");");
  else
    w.line("const int " + inner + " = i % " + extent + ", kk = (i / " + extent +
           ") % K_STEP, bb = i / (K_STEP * " + extent + ");");
  w.line(shared + "[(bb * K_STEP + kk) * " + extent + " + " + inner + "] = " + global + ";");
  w.close();
}

}  // namespace

std::string aOffset(const OperatorSpec& op, const std::string& batch, const std::string& row,
                    const std::string& k) {
  const std::string prefix = op.kind == OpKind::BatchMatMul ? "(" + batch + ") * (N * K) + " : "";
  return prefix + (op.transA ? "(" + k + ") * N + " + row : "(" + row + ") * K + " + k);
}

std::string bOffset(const OperatorSpec& op, const std::string& batch, const std::string& k,
                    const std::string& col) {
  const std::string prefix = op.kind == OpKind::BatchMatMul ? "(" + batch + ") * (K * M) + " : "";
  return prefix + (op.transB ? "(" + col + ") * K + " + k : "(" + k + ") * M + " + col);
}

GeneratedKernel matmulGpu(const KernelContext& ctx, const MatMulTiling& t) {
  const OperatorSpec& op = *ctx.op;
  const bool batched = op.kind == OpKind::BatchMatMul;
  GeneratedKernel g;
  g.backend = ctx.backend;
  g.entry = ctx.entry;
  g.accumulators = t.accumulators();
  g.launch.grid = {t.m[0], t.n[0], t.b[0]};
  g.launch.block = {t.m[2], t.n[2], t.b[1]};
  g.launch.sharedBytes =
      static_cast<std::int64_t>(sizeof(float)) * t.b[1] * t.kStep() * (t.blockN() + t.blockM());
  g.summary = "block tile " + str(t.b[1]) + "x" + str(t.blockN()) + "x" + str(t.blockM()) +
              ", thread tile " + str(t.n[1]) + "x" + str(t.m[1]) + " vthreads of " + str(t.n[3]) +
              "x" + str(t.m[3]) + ", K " + str(t.k[0]) + " outer x " + str(t.k[1]) + " middle x " +
              str(t.k[2]) + " inner";
  const UnrollPolicy unroll{UnrollPolicy::Style::Cuda,
                            t.accumulators() <= kRegisterTile ? kUnrollSteps : 0, true};

  CodeWriter w;
  writeHeader(w, ctx,
              std::string(batched ? "BatchMatMul" : "MatMul") +
                  " (TVM dense/batch_matmul): rows [blockIdx.y, vthread, threadIdx.y, inner], "
                  "columns [blockIdx.x, vthread, threadIdx.x, inner], K [outer, middle, inner]" +
                  (batched ? ", batch [blockIdx.z, threadIdx.z]" : ""),
              describeLaunch(g.launch));
  w.line();
  w.line(gpuPrelude(ctx.backend));
  w.open("OPEVO_KERNEL(" + str(t.threads()) + ") " + ctx.entry + kernelParams(ctx.backend));
  w.line("using index_t = " + indexType(op) + ";  // wide enough for every element offset");
  w.comment(std::string("C[b] (N x M) = op(A[b]) (N x K) * op(B[b]) (K x M); A is stored ") +
            (op.transA ? "K x N (transposed)" : "N x K") + ", B " +
            (op.transB ? "M x K (transposed)" : "K x M") + ".");
  w.line("constexpr index_t N = " + str(op.n) + ", M = " + str(op.m) + ", K = " + str(op.k) + ";");
  w.comment("tile_n = [blocks " + str(t.n[0]) + ", N_VT, N_TH, N_IN]; tile_m likewise");
  w.line("constexpr int N_VT = " + str(t.n[1]) + ", N_TH = " + str(t.n[2]) +
         ", N_IN = " + str(t.n[3]) + ";");
  w.line("constexpr int M_VT = " + str(t.m[1]) + ", M_TH = " + str(t.m[2]) +
         ", M_IN = " + str(t.m[3]) + ";");
  w.comment("tile_k = [K_OUT, K_MID, K_IN]" +
            std::string(batched ? "; tile_b = [blocks " + str(t.b[0]) + ", B_TH]" : ""));
  w.line("constexpr int K_OUT = " + str(t.k[0]) + ", K_MID = " + str(t.k[1]) +
         ", K_IN = " + str(t.k[2]) + ";");
  w.line("constexpr int B_TH = " + str(t.b[1]) + ";");
  w.line("constexpr int BLOCK_N = N_VT * N_TH * N_IN, BLOCK_M = M_VT * M_TH * M_IN;");
  w.line("constexpr int K_STEP = K_MID * K_IN;  // depth of one shared-memory stage");
  w.line("constexpr int THREADS = M_TH * N_TH * B_TH;");
  w.line();
  w.comment(
      "Dynamic shared memory (LaunchConfig::sharedBytes), so that stages above the 48 KiB a\n"
      "static array may use still compile; the host checks them against the device's limit.");
  w.line("extern __shared__ float smem[];");
  w.line("float* As = smem;                            // [B_TH][K_STEP][BLOCK_N]");
  w.line("float* Bs = smem + B_TH * K_STEP * BLOCK_N;  // [B_TH][K_STEP][BLOCK_M]");
  w.line("const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;");
  w.line("const int tid = (tz * N_TH + ty) * M_TH + tx;");
  w.line("const index_t row0 = (index_t)blockIdx.y * BLOCK_N;  // the block's first row of C");
  w.line("const index_t col0 = (index_t)blockIdx.x * BLOCK_M;");
  if (batched) w.line("const index_t batch0 = (index_t)blockIdx.z * B_TH;");
  w.line();
  w.comment(
      "Virtual threads are an outer loop over register tiles: this thread owns N_VT x M_VT inner\n"
      "tiles of N_IN x M_IN, spaced a whole thread tile apart, accumulated in registers.");
  w.line("float acc[N_VT][N_IN][M_VT][M_IN];");
  const std::vector<Loop> tile = {{"vn", t.n[1], "N_VT"},
                                  {"in", t.n[3], "N_IN"},
                                  {"vm", t.m[1], "M_VT"},
                                  {"im", t.m[3], "M_IN"}};
  w.openNest(tile, unroll);
  w.line("acc[vn][in][vm][im] = 0.0f;");
  w.closeNest(tile.size());
  w.line();
  w.line("#pragma unroll 1");
  w.open("for (int ko = 0; ko < K_OUT; ++ko)");
  w.comment("Every thread of the block helps stage this K_STEP slab of A and B.");
  const std::string batch = batched ? "batch0 + bb" : "";
  writeSlabLoad(w, "As", "BLOCK_N", "nn", !op.transA,
                "A[" + aOffset(op, batch, "row0 + nn", "ko * K_STEP + kk") + "]");
  writeSlabLoad(w, "Bs", "BLOCK_M", "mm", op.transB,
                "B[" + bOffset(op, batch, "ko * K_STEP + kk", "col0 + mm") + "]");
  w.line("__syncthreads();");
  const std::int64_t computeSteps = t.k[2] * t.accumulators();
  // No pragma on the middle loop: unrolling it as well multiplied compile times (2 s for 16
  // steps of 32 multiply-adds) for a loop whose body is already long enough to hide its cost.
  w.open("for (int km = 0; km < K_MID; ++km)");
  // TVM stages K_IN-deep register tiles per middle step. Those stay in registers only when the
  // K_IN loop is unrolled too; otherwise one K step is staged at a time, which keeps the
  // fragments in registers rather than in (slow, and slow to compile) local memory.
  const bool deep = unrollPragma(t.k[2], computeSteps, unroll) == "#pragma unroll";
  std::vector<Loop> aLoops = {{"vn", t.n[1], "N_VT"}, {"in", t.n[3], "N_IN"}};
  std::vector<Loop> bLoops = {{"vm", t.m[1], "M_VT"}, {"im", t.m[3], "M_IN"}};
  std::vector<Loop> compute = tile;
  std::string ki = "";
  if (deep) {
    w.comment("Stage K_IN-deep register tiles of the slab, then multiply them.");
    w.line("float aReg[K_IN][N_VT][N_IN], bReg[K_IN][M_VT][M_IN];");
    for (auto* loops : {&aLoops, &bLoops, &compute})
      loops->insert(loops->begin(), {"ki", t.k[2], "K_IN"});
    ki = "[ki]";
  } else {
    if (auto p = unrollPragma(t.k[2], computeSteps, unroll); !p.empty()) w.line(p);
    w.open("for (int ki = 0; ki < K_IN; ++ki)");
    w.comment("Stage one K step's register tiles (K_IN-deep ones would not stay in registers).");
    w.line("float aReg[N_VT][N_IN], bReg[M_VT][M_IN];");
  }
  w.openNest(aLoops, unroll);
  w.line("aReg" + ki +
         "[vn][in] = As[(tz * K_STEP + km * K_IN + ki) * BLOCK_N + (vn * N_TH + ty) *"
         " N_IN + in];");
  w.closeNest(aLoops.size());
  w.openNest(bLoops, unroll);
  w.line("bReg" + ki +
         "[vm][im] = Bs[(tz * K_STEP + km * K_IN + ki) * BLOCK_M + (vm * M_TH + tx) *"
         " M_IN + im];");
  w.closeNest(bLoops.size());
  w.openNest(compute, unroll);
  w.line("acc[vn][in][vm][im] += aReg" + ki + "[vn][in] * bReg" + ki + "[vm][im];");
  w.closeNest(compute.size());
  if (!deep) w.close();
  w.close();
  w.comment("The next stage overwrites the slab: wait until everyone has read it.");
  w.line("__syncthreads();");
  w.close();
  w.line();
  w.openNest(tile, unroll);
  w.line("const index_t row = row0 + (vn * N_TH + ty) * N_IN + in;");
  w.line("const index_t col = col0 + (vm * M_TH + tx) * M_IN + im;");
  const std::string at = std::string(batched ? "(batch0 + tz) * (N * M) + " : "") + "row * M + col";
  if (op.epilogue.empty()) {
    w.line("C[" + at + "] = acc[vn][in][vm][im];");
  } else {
    w.line("float v = acc[vn][in][vm][im];");
    writeEpilogue(w, op, ctx.backend, "v", "col", at);
    w.line("C[" + at + "] = v;");
  }
  w.closeNest(tile.size());
  w.close();
  g.source = w.str();
  return g;
}

}  // namespace opevo::codegen::detail
