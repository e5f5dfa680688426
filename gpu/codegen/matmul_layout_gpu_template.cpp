// MatMul / BatchMatMul for CUDA and HIP in the layouts a configuration of the joint layout space
// chooses (ALT's template, core/layout/matmul_layout.h): A in row panels, B in column panels, C in
// output tiles. The GPU counterpart of matmul_layout_cpu_template.cpp: one thread block per
// output tile, one thread per register tile, whose sums stay in registers for the whole of K.
// Within a run of K where neither A's nor B's k blocks change, both panels advance by a constant
// stride, so the K loop is two pointer walks, as on the CPU. Operands are read straight from
// global memory (see conv2d_layout_gpu_template.cpp for why): the K stage, which on the CPU
// keeps panels in cache across register tiles, changes nothing here, since every thread walks
// its own register tile through the whole of K.

#include <numeric>

#include "codegen/templates.h"
#include "layout/matmul_layout.h"

namespace opevo::codegen::detail {
namespace {

std::string str(std::int64_t v) {
  return std::to_string(v);
}

}  // namespace

GeneratedKernel matmulLayoutGpu(const KernelContext& ctx, const layout::MatMulBlocking& b) {
  const OperatorSpec& op = *ctx.op;
  const bool batched = op.kind == OpKind::BatchMatMul;
  const layout::OperandLayouts layouts = layout::matmulLayouts(op, b);
  const layout::Layout& la = layouts.a;
  const layout::Layout& lb = layouts.b;
  const layout::Layout& lc = layouts.c;
  const std::int64_t batch = batched ? op.batch : 1;
  const std::int64_t tilesN = op.n / b.cN, tilesM = op.m / b.cM;
  const std::int64_t tiles = batch * tilesN * tilesM;
  const std::int64_t regTiles = (b.cN / b.regN) * (b.cM / b.regM);
  const std::int64_t threads = layoutThreadsPerBlock(regTiles, b.accumulators());
  // The longest run of K inside one k block of A and one of B.
  const std::int64_t run = std::gcd(b.aK, b.bK);
  // A register tile's rows (columns) are one contiguous run of A's (B's) panel when the panel is
  // a multiple of the tile, since tiles start at multiples of their size; otherwise each row
  // (column) has its own offset, kept in registers.
  const bool aContiguous = b.aN % b.regN == 0;
  const bool bContiguous = b.bM % b.regM == 0;

  GeneratedKernel g;
  g.backend = ctx.backend;
  g.entry = ctx.entry;
  g.accumulators = b.accumulators();
  g.launch.grid = {layoutGridBlocks(tiles), 1, 1};
  g.launch.block = {threads, 1, 1};
  g.launch.sharedBytes = 0;
  g.layoutA = la.describe();
  g.layoutB = lb.describe();
  g.layoutC = lc.describe();
  g.summary = "output tiles " + str(b.cN) + "x" + str(b.cM) + " (one block each), A panels " +
              str(b.aN) + "x" + str(b.aK) + ", B panels " + str(b.bK) + "x" + str(b.bM) +
              ", register tile " + str(b.regN) + "x" + str(b.regM) + " per thread, " +
              str(threads) + " threads for " + str(regTiles) + " register tiles";
  const UnrollPolicy unroll{UnrollPolicy::Style::Cuda,
                            b.accumulators() <= kRegisterTile ? kUnrollSteps : 0, true};

  CodeWriter w;
  writeHeader(w, ctx,
              std::string(batched ? "BatchMatMul" : "MatMul") +
                  " in tuned layouts for GPUs (ALT): output tiles -> thread blocks (flattened "
                  "into blockIdx.x), register tiles -> threads, K in runs of constant stride",
              describeLaunch(g.launch));
  w.comment("Layouts (ALT primitives applied to the logical tensor):");
  w.comment("  A: " + g.layoutA);
  w.comment("  B: " + g.layoutB);
  w.comment("  C: " + g.layoutC + " (Residual too)");
  w.line();
  openGpuKernel(w, ctx, threads, layoutIndexType(layouts));
  w.comment("Strides of the laid-out buffers' physical dims, in elements.");
  w.line("constexpr index_t A_B = " + str(physicalStride(la, "b")) + ", A_NO = " +
         str(physicalStride(la, "n_o")) + ", A_KO = " + str(physicalStride(la, "k_o")) +
         ", A_KI = " + str(physicalStride(la, "k_i")) +
         ", A_NI = " + str(physicalStride(la, "n_i")) + ";");
  w.line("constexpr index_t B_B = " + str(physicalStride(lb, "b")) + ", B_MO = " +
         str(physicalStride(lb, "m_o")) + ", B_KO = " + str(physicalStride(lb, "k_o")) +
         ", B_KI = " + str(physicalStride(lb, "k_i")) +
         ", B_MI = " + str(physicalStride(lb, "m_i")) + ";");
  w.line("constexpr index_t C_B = " + str(physicalStride(lc, "b")) + ", C_NO = " +
         str(physicalStride(lc, "n_o")) + ", C_MO = " + str(physicalStride(lc, "m_o")) +
         ", C_NI = " + str(physicalStride(lc, "n_i")) +
         ", C_MI = " + str(physicalStride(lc, "m_i")) + ";");
  w.line("constexpr index_t TILES = " + str(tiles) + ";");
  w.line("constexpr int TILES_N = " + str(tilesN) + ", TILES_M = " + str(tilesM) +
         ", K = " + str(op.k) + ";");
  w.line("constexpr int CN = " + str(b.cN) + ", CM = " + str(b.cM) + ", AN = " + str(b.aN) +
         ", AK = " + str(b.aK) + ", BK = " + str(b.bK) + ", BM = " + str(b.bM) + ";");
  w.line("constexpr int RN = " + str(b.regN) + ", RM = " + str(b.regM) + ", RUN = " + str(run) +
         ";");
  w.comment(std::string("Register tiles of one output tile, ") +
            (b.regRowsOuter ? "columns fastest (reg_order 0,1)" : "rows fastest (reg_order 1,0)") +
            ".");
  w.line("constexpr int REG_N = CN / RN, REG_M = CM / RM, REG_TILES = " + str(regTiles) +
         ", THREADS = " + str(threads) + ";");
  w.line();
  w.comment(std::string("One block per output tile, ") +
            (b.rowTilesOuter ? "column tiles fastest (tile_order 0,1)"
                             : "row tiles fastest (tile_order 1,0)") +
            ", so that blocks launched\ntogether share " +
            (b.rowTilesOuter ? "A's row panels" : "B's column panels") +
            "; a grid-stride loop past 2^20 blocks.");
  w.line("#pragma unroll 1");
  w.open("for (index_t t = blockIdx.x; t < TILES; t += gridDim.x)");
  w.line("index_t rest = t;");
  if (b.rowTilesOuter) {
    w.line("const int mo = int(rest % TILES_M); rest /= TILES_M;");
    w.line("const int no = int(rest % TILES_N); rest /= TILES_N;");
  } else {
    w.line("const int no = int(rest % TILES_N); rest /= TILES_N;");
    w.line("const int mo = int(rest % TILES_M); rest /= TILES_M;");
  }
  w.line("const index_t bb = rest;");
  w.line("const index_t c_tile = bb * C_B + no * C_NO + mo * C_MO;");
  w.comment(
      "Threads take the register tiles; the loop runs once unless the register budget gave the\n"
      "block fewer threads than tiles.");
  w.line("#pragma unroll 1");
  w.open("for (int r = threadIdx.x; r < REG_TILES; r += THREADS)");
  if (b.regRowsOuter)
    w.line("const int rn0 = (r / REG_M) * RN, rm0 = (r % REG_M) * RM;");
  else
    w.line("const int rn0 = (r % REG_N) * RN, rm0 = (r / REG_N) * RM;");
  w.line("const int n0 = no * CN + rn0, m0 = mo * CM + rm0;  // the register tile's corner");
  const std::vector<Loop> acc = {{"rn", b.regN, "RN"}, {"rm", b.regM, "RM"}};
  w.line("float acc[RN][RM];");
  w.openNest(acc, unroll);
  w.line("acc[rn][rm] = 0.0f;");
  w.closeNest(acc.size());
  if (aContiguous) {
    w.line("const index_t a_row = (n0 / AN) * A_NO + (n0 % AN) * A_NI;");
  } else {
    w.line("index_t a_row[RN];");
    w.openNest({{"rn", b.regN, "RN"}}, unroll);
    w.line("a_row[rn] = ((n0 + rn) / AN) * A_NO + ((n0 + rn) % AN) * A_NI;");
    w.closeNest(1);
  }
  if (bContiguous) {
    w.line("const index_t b_col = (m0 / BM) * B_MO + (m0 % BM) * B_MI;");
  } else {
    w.line("index_t b_col[RM];");
    w.openNest({{"rm", b.regM, "RM"}}, unroll);
    w.line("b_col[rm] = ((m0 + rm) / BM) * B_MO + ((m0 + rm) % BM) * B_MI;");
    w.closeNest(1);
  }
  w.line("#pragma unroll 1");
  w.open("for (int k0 = 0; k0 < K; k0 += RUN)");
  w.line("const float* const pa = A + bb * A_B + (k0 / AK) * A_KO + (k0 % AK) * A_KI;");
  w.line("const float* const pb = B + bb * B_B + (k0 / BK) * B_KO + (k0 % BK) * B_KI;");
  w.line(b.unrollK > 1 ? "#pragma unroll " + str(b.unrollK) : "#pragma unroll 1");
  w.open("for (int kk = 0; kk < RUN; ++kk)");
  w.line("float av[RN], bv[RM];");
  w.openNest({{"rn", b.regN, "RN"}}, unroll);
  w.line(aContiguous ? "av[rn] = pa[kk * A_KI + a_row + rn * A_NI];"
                     : "av[rn] = pa[kk * A_KI + a_row[rn]];");
  w.closeNest(1);
  w.openNest({{"rm", b.regM, "RM"}}, unroll);
  w.line(bContiguous ? "bv[rm] = pb[kk * B_KI + b_col + rm * B_MI];"
                     : "bv[rm] = pb[kk * B_KI + b_col[rm]];");
  w.closeNest(1);
  w.openNest(acc, unroll);
  w.line("acc[rn][rm] += av[rn] * bv[rm];");
  w.closeNest(acc.size());
  w.close();  // kk
  w.close();  // k0
  w.openNest(acc, unroll);
  w.line("const index_t at = c_tile + (rn0 + rn) * C_NI + (rm0 + rm) * C_MI;");
  w.line("float v = acc[rn][rm];");
  writeEpilogue(w, op, ctx.backend, "v", "m0 + rm", "at");
  w.line("C[at] = v;");
  w.closeNest(acc.size());
  w.close();  // register tiles
  w.close();  // output tiles
  w.close();  // kernel
  g.source = w.str();
  return g;
}

}  // namespace opevo::codegen::detail
