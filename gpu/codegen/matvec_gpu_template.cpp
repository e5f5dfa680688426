// The matrix-vector template for CUDA and HIP (ops/matvec_space.h): products with few rows of A,
// bound by reading B (a dense layer's weights at batch 1), streamed row by row with vector loads.

#include "codegen/templates.h"
#include "ops/matvec_space.h"

namespace opevo::codegen::detail {
namespace {

std::string str(std::int64_t v) {
  return std::to_string(v);
}

// `count` floats at `offset` of `array` into the register row `regs` (regs[0] .. regs[count - 1]):
// one float4 or float2 load where count allows (the offsets are multiples of count, and every
// buffer starts 16-byte aligned), else one float.
void writeLoad(CodeWriter& w, const std::string& regs, const std::string& array,
               const std::string& offset, std::int64_t count) {
  if (count == 1) {
    w.line(regs + "[0] = " + array + "[" + offset + "];");
    return;
  }
  const std::string type = count == 4 ? "float4" : "float2";
  w.line("const " + type + " t = *reinterpret_cast<const " + type + "*>(&" + array + "[" + offset +
         "]);");
  std::string parts = regs + "[0] = t.x, " + regs + "[1] = t.y";
  if (count == 4) parts += ", " + regs + "[2] = t.z, " + regs + "[3] = t.w";
  w.line(parts + ";");
}

// One pass of the K loop: `steps` loads of VEC floats per column (all of B's first, so that they
// are in flight together), then every row of A against them.
void writeKStep(CodeWriter& w, const OperatorSpec& op, const MatVecTiling& t, const char* steps,
                const std::string& batch) {
  w.line(std::string("float b[") + steps + "][COLS][VEC];");
  w.line("#pragma unroll");
  w.open(std::string("for (int u = 0; u < ") + steps + "; ++u)");
  w.line("#pragma unroll");
  w.open("for (int c = 0; c < COLS; ++c)");
  w.line("const index_t k = (index_t)(q + u * STRIDE) * VEC;");
  writeLoad(w, "b[u][c]", "B", bOffset(op, batch, "k", "col0 + c"), t.vector);
  w.close();
  w.close();
  w.line("#pragma unroll");
  w.open(std::string("for (int u = 0; u < ") + steps + "; ++u)");
  w.line("#pragma unroll");
  w.open("for (int r = 0; r < N; ++r)");
  w.line("const index_t k = (index_t)(q + u * STRIDE) * VEC;");
  w.line("float a[VEC];");
  if (op.transA) {
    // A stored K x N: a row's VEC elements are N apart, read one by one (A is small and cached).
    w.line("#pragma unroll");
    w.line("for (int v = 0; v < VEC; ++v) a[v] = A[" + aOffset(op, batch, "r", "k + v") + "];");
  } else {
    writeLoad(w, "a", "A", aOffset(op, batch, "r", "k"), t.vector);
  }
  w.line("#pragma unroll");
  w.open("for (int c = 0; c < COLS; ++c)");
  w.line("#pragma unroll");
  w.line("for (int v = 0; v < VEC; ++v) acc[r][c] += a[v] * b[u][c][v];");
  w.close();
  w.close();
  w.close();
}

}  // namespace

GeneratedKernel matvecGpu(const KernelContext& ctx, const MatVecTiling& t) {
  const OperatorSpec& op = *ctx.op;
  const bool batched = op.kind == OpKind::BatchMatMul;
  GeneratedKernel g;
  g.backend = ctx.backend;
  g.entry = ctx.entry;
  g.accumulators = op.n * t.m[2];
  g.launch.grid = {t.m[0], batched ? op.batch : 1, 1};
  g.launch.block = {t.threads(), 1, 1};
  g.launch.sharedBytes = matvecSharedBytes(op.n, t.blockM(), t.kSplit);
  g.summary = "matrix-vector: " + str(t.m[0]) + " blocks of " + str(t.m[1]) + " groups x " +
              str(t.m[2]) + " columns, " + str(t.lanes) + " lanes x " + str(t.kSplit) +
              " parts of K, " + str(t.vector) + "-float loads " + str(t.unroll) + " deep";

  CodeWriter w;
  writeHeader(w, ctx,
              "matrix-vector (few rows of A): groups of LANES threads stream rows of B along K, "
              "sums met by warp shuffles and, across K_SPLIT parts, shared memory",
              describeLaunch(g.launch));
  openGpuKernel(w, ctx, t.threads(), indexType(op));
  w.comment(
      std::string("C[b] (N x M) = op(A[b]) (N x K) * B[b]^T, B stored M x K (each column's ") +
      "K contiguous); A stored " + (op.transA ? "K x N (transposed)." : "N x K."));
  w.line("constexpr index_t N = " + str(op.n) + ", M = " + str(op.m) + ", K = " + str(op.k) + ";");
  w.comment("tile_m = [blocks " + str(t.m[0]) + ", GROUPS, COLS]");
  w.line("constexpr int GROUPS = " + str(t.m[1]) + ", COLS = " + str(t.m[2]) +
         ", LANES = " + str(t.lanes) + ", K_SPLIT = " + str(t.kSplit) + ", VEC = " + str(t.vector) +
         ", UNROLL = " + str(t.unroll) + ";");
  w.line("constexpr int THREADS = GROUPS * LANES * K_SPLIT, BLOCK_M = GROUPS * COLS;");
  w.line("constexpr int CHUNKS = K / VEC;   // VEC-float loads along one row of B");
  w.line("constexpr int STRIDE = LANES * K_SPLIT;  // chunks between a thread's loads");
  w.line("const int tid = threadIdx.x;");
  w.line(
      "const int lane = tid % LANES, group = (tid / LANES) % GROUPS, part = tid / (LANES * "
      "GROUPS);");
  w.line("const index_t col0 = (index_t)blockIdx.x * BLOCK_M + group * COLS;  // group's first");
  if (batched) w.line("const index_t batch = blockIdx.y;");
  const std::string batch = batched ? "batch" : "";
  w.line("float acc[N][COLS];");
  w.line("#pragma unroll");
  w.open("for (int r = 0; r < N; ++r)");
  w.line("#pragma unroll");
  w.line("for (int c = 0; c < COLS; ++c) acc[r][c] = 0.0f;");
  w.close();
  w.comment(
      "Neighbouring lanes read neighbouring chunks (coalesced); a part's lanes start STRIDE / "
      "K_SPLIT\nchunks apart. UNROLL chunks a column in flight per pass, then the last ones.");
  w.line("int q = part * LANES + lane;");
  w.line("#pragma unroll 1");
  w.open("for (; q + (UNROLL - 1) * STRIDE < CHUNKS; q += UNROLL * STRIDE)");
  writeKStep(w, op, t, "UNROLL", batch);
  w.close();
  w.line("#pragma unroll 1");
  w.open("for (; q < CHUNKS; q += STRIDE)");
  writeKStep(w, op, t, "1", batch);
  w.close();
  if (t.lanes > 1) {
    w.comment("A group's lanes are consecutive threads of one warp: a shuffle tree adds them.");
    const std::string shuffle = ctx.backend == Backend::Hip
                                    ? "__shfl_down(acc[r][c], off, LANES)"
                                    : "__shfl_down_sync(0xffffffffu, acc[r][c], off, LANES)";
    w.line("#pragma unroll");
    w.open("for (int r = 0; r < N; ++r)");
    w.line("#pragma unroll");
    w.open("for (int c = 0; c < COLS; ++c)");
    w.line("#pragma unroll");
    w.line("for (int off = LANES / 2; off > 0; off /= 2) acc[r][c] += " + shuffle + ";");
    w.close();
    w.close();
  }
  const std::string at = std::string(batched ? "batch * (N * M) + " : "") + "r * M + col";
  if (t.kSplit == 1) {
    w.open("if (lane == 0)");
    w.line("#pragma unroll");
    w.open("for (int r = 0; r < N; ++r)");
    w.line("#pragma unroll");
    w.open("for (int c = 0; c < COLS; ++c)");
    w.line("const index_t col = col0 + c;");
    w.line("float v = acc[r][c];");
    writeEpilogue(w, op, ctx.backend, "v", "col", at);
    w.line("C[" + at + "] = v;");
    w.closeNest(3);
  } else {
    w.comment(
        "The K_SPLIT parts' sums meet in shared memory, [K_SPLIT][N][BLOCK_M]; the block's\n"
        "threads then add them up, neighbouring threads neighbouring columns.");
    w.line("extern __shared__ __attribute__((aligned(16))) float smem[];");
    w.open("if (lane == 0)");
    w.line("#pragma unroll");
    w.open("for (int r = 0; r < N; ++r)");
    w.line("#pragma unroll");
    w.line(
        "for (int c = 0; c < COLS; ++c) smem[(part * N + r) * BLOCK_M + group * COLS + c] = "
        "acc[r][c];");
    w.close();
    w.close();
    w.line("__syncthreads();");
    w.open("for (int o = tid; o < N * BLOCK_M; o += THREADS)");
    w.line("float v = 0.0f;");
    w.line("#pragma unroll");
    w.line("for (int p = 0; p < K_SPLIT; ++p) v += smem[p * (N * BLOCK_M) + o];");
    w.line("const int r = o / BLOCK_M;");
    w.line("const index_t col = (index_t)blockIdx.x * BLOCK_M + o % BLOCK_M;");
    writeEpilogue(w, op, ctx.backend, "v", "col", at);
    w.line("C[" + at + "] = v;");
    w.close();
  }
  w.close();
  g.source = w.str();
  return g;
}

}  // namespace opevo::codegen::detail
