// MatMul / BatchMatMul for the CPU in the layouts a configuration of the joint layout space
// chooses (ALT's template, core/layout/matmul_layout.h): A in row panels, B in column panels, C in
// output tiles. One OpenMP iteration per output tile; inside it, K stages, and in each stage the
// register tiles, whose columns are the vector lanes. Within a run of K where neither A's nor B's
// k blocks change, both panels advance by a constant stride, so the inner loop is two pointer
// walks, the shape of a packing GEMM library's micro-kernel. The library also exports the
// conversions between these layouts and the plain ones, for the harness (not timed).

#include <numeric>

#include "codegen/layout_conversion.h"
#include "codegen/templates.h"
#include "common/error.h"
#include "layout/matmul_layout.h"
#include "codegen/omp_parallel.h"

namespace opevo::codegen::detail {
namespace {

std::string str(std::int64_t v) {
  return std::to_string(v);
}

}  // namespace

GeneratedKernel matmulLayoutCpu(const KernelContext& ctx, const layout::MatMulBlocking& b) {
  const OperatorSpec& op = *ctx.op;
  const layout::OperandLayouts layouts = layout::matmulLayouts(op, b);
  const layout::Layout& la = layouts.a;
  const layout::Layout& lb = layouts.b;
  const layout::Layout& lc = layouts.c;
  const std::int64_t batch = op.kind == OpKind::BatchMatMul ? op.batch : 1;
  const std::int64_t tilesN = op.n / b.cN, tilesM = op.m / b.cM;
  // The longest run of K inside one k block of A, one of B and one K stage.
  const std::int64_t run = std::gcd(std::gcd(b.aK, b.bK), b.kStage);
  // A register tile's rows (columns) are one contiguous run of A's (B's) panel when the panel is
  // a multiple of the tile, since tiles start at multiples of their size; otherwise each row
  // (column) is found through a small table of offsets.
  const bool aContiguous = b.aN % b.regN == 0;
  const bool bContiguous = b.bM % b.regM == 0;

  GeneratedKernel g;
  g.backend = Backend::Cpu;
  g.entry = ctx.entry;
  g.accumulators = b.accumulators();
  g.launch.grid = {tilesM, tilesN, batch};
  g.launch.block = {1, 1, 1};
  g.layoutA = la.describe();
  g.layoutB = lb.describe();
  g.layoutC = lc.describe();
  g.summary = "output tiles " + str(b.cN) + "x" + str(b.cM) + ", A panels " + str(b.aN) + "x" +
              str(b.aK) + ", B panels " + str(b.bK) + "x" + str(b.bM) + ", register tile " +
              str(b.regN) + "x" + str(b.regM) + ", K stage " + str(b.kStage);

  CodeWriter w;
  writeHeader(w, ctx,
              std::string(op.kind == OpKind::BatchMatMul ? "BatchMatMul" : "MatMul") +
                  " in tuned layouts for CPUs (ALT): output tiles -> OpenMP-parallel loops, K "
                  "stages, register tiles with columns as vector lanes",
              "");
  w.comment("Layouts (ALT primitives applied to the logical tensor):");
  w.comment("  A: " + g.layoutA);
  w.comment("  B: " + g.layoutB);
  w.comment("  C: " + g.layoutC + " (Residual too)");
  w.line();
  w.open("extern \"C\" void " + ctx.entry + kernelParams(Backend::Cpu));
  w.line("using index_t = long long;");
  w.line("constexpr index_t A_B = " + str(physicalStride(la, "b")) + ", A_NO = " +
         str(physicalStride(la, "n_o")) + ", A_KO = " + str(physicalStride(la, "k_o")) +
         ", A_KI = " + str(physicalStride(la, "k_i")) + ";");
  w.line("constexpr index_t B_B = " + str(physicalStride(lb, "b")) + ", B_MO = " +
         str(physicalStride(lb, "m_o")) + ", B_KO = " + str(physicalStride(lb, "k_o")) +
         ", B_KI = " + str(physicalStride(lb, "k_i")) + ";");
  w.line("constexpr index_t C_B = " + str(physicalStride(lc, "b")) + ", C_NO = " +
         str(physicalStride(lc, "n_o")) + ", C_MO = " + str(physicalStride(lc, "m_o")) + ";");
  w.line("constexpr int NB = " + str(batch) + ", TILES_N = " + str(tilesN) +
         ", TILES_M = " + str(tilesM) + ", K = " + str(op.k) + ";");
  w.line("constexpr int CN = " + str(b.cN) + ", CM = " + str(b.cM) + ", AN = " + str(b.aN) +
         ", AK = " + str(b.aK) + ", BK = " + str(b.bK) + ", BM = " + str(b.bM) + ";");
  w.line("constexpr int RN = " + str(b.regN) + ", RM = " + str(b.regM) + ", KS = " + str(b.kStage) +
         ", RUN = " + str(run) + ";");
  w.line();
  w.comment("Each iteration owns one output tile, so the parallel loop needs no locking.");
  w.line(ompParallel(" for collapse(3) schedule(static)", op.flops(), Work::Flops));
  w.open("for (int bb = 0; bb < NB; ++bb)");
  w.open(b.rowTilesOuter ? "for (int no = 0; no < TILES_N; ++no)"
                         : "for (int mo = 0; mo < TILES_M; ++mo)");
  w.open(b.rowTilesOuter ? "for (int mo = 0; mo < TILES_M; ++mo)"
                         : "for (int no = 0; no < TILES_N; ++no)");
  w.line("float* const c_tile = C + bb * C_B + no * C_NO + mo * C_MO;");
  w.open("for (int ks = 0; ks < K; ks += KS)");
  w.line(b.regRowsOuter ? "for (int rn0 = 0; rn0 < CN; rn0 += RN)"
                        : "for (int rm0 = 0; rm0 < CM; rm0 += RM)");
  w.open(b.regRowsOuter ? "for (int rm0 = 0; rm0 < CM; rm0 += RM)"
                        : "for (int rn0 = 0; rn0 < CN; rn0 += RN)");
  w.line("const int n0 = no * CN + rn0, m0 = mo * CM + rm0;  // the register tile's corner");
  w.line("float acc[RN][RM];");
  w.comment("The first stage starts from zero, later ones from what earlier stages stored.");
  w.line("for (int rn = 0; rn < RN; ++rn)");
  w.line("#pragma omp simd");
  w.line(
      "for (int rm = 0; rm < RM; ++rm) acc[rn][rm] = ks == 0 ? 0.0f : c_tile[(rn0 + rn) * CM + rm0 "
      "+ rm];");
  if (!aContiguous) {
    w.line("index_t a_row[RN];");
    w.line("for (int rn = 0; rn < RN; ++rn) a_row[rn] = ((n0 + rn) / AN) * A_NO + (n0 + rn) % AN;");
  }
  if (!bContiguous) {
    w.line("index_t b_col[RM];");
    w.line("for (int rm = 0; rm < RM; ++rm) b_col[rm] = ((m0 + rm) / BM) * B_MO + (m0 + rm) % BM;");
  }
  w.open("for (int k0 = ks; k0 < ks + KS; k0 += RUN)");
  w.line("const float* const pa = A + bb * A_B + (k0 / AK) * A_KO + (k0 % AK) * A_KI" +
         std::string(aContiguous ? " + (n0 / AN) * A_NO + n0 % AN;" : ";"));
  w.line("const float* const pb = B + bb * B_B + (k0 / BK) * B_KO + (k0 % BK) * B_KI" +
         std::string(bContiguous ? " + (m0 / BM) * B_MO + m0 % BM;" : ";"));
  if (b.unrollK > 1) w.line("#pragma GCC unroll " + str(b.unrollK));
  w.open("for (int kk = 0; kk < RUN; ++kk)");
  if (bContiguous) {
    w.line("const float* const bv = pb + kk * B_KI;");
  } else {
    w.line("float bv[RM];");
    w.line("for (int rm = 0; rm < RM; ++rm) bv[rm] = pb[kk * B_KI + b_col[rm]];");
  }
  w.line("#pragma GCC unroll 64");
  w.open("for (int rn = 0; rn < RN; ++rn)");
  w.line(std::string("const float a = pa[kk * A_KI + ") + (aContiguous ? "rn" : "a_row[rn]") +
         "];");
  w.comment("Vectorised across the columns (unrolling it first would leave scalar code).");
  w.line("#pragma omp simd");
  w.line("for (int rm = 0; rm < RM; ++rm) acc[rn][rm] += a * bv[rm];");
  w.close();  // rn
  w.close();  // kk
  w.close();  // k0
  w.line("for (int rn = 0; rn < RN; ++rn)");
  w.line("#pragma omp simd");
  w.line("for (int rm = 0; rm < RM; ++rm) c_tile[(rn0 + rn) * CM + rm0 + rm] = acc[rn][rm];");
  w.close();  // inner register loop
  w.close();  // ks
  if (!op.epilogue.empty()) {
    w.comment("The fused epilogue, once the tile's sums are complete.");
    w.line("const index_t tile = c_tile - C;");
    w.line("for (int rn = 0; rn < CN; ++rn)");
    w.open("for (int rm = 0; rm < CM; ++rm)");
    w.line("const index_t at = rn * CM + rm;");
    w.line("float v = c_tile[at];");
    writeEpilogue(w, op, Backend::Cpu, "v", "mo * CM + rm", "tile + at");
    w.line("c_tile[at] = v;");
    w.close();
  }
  w.closeNest(3);
  w.close();  // kernel
  w.line();
  writeHarnessConversions(w, ctx.entry, la, lb, lc);
  g.source = w.str();
  return g;
}

}  // namespace opevo::codegen::detail
