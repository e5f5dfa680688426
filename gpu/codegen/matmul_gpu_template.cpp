// MatMul / BatchMatMul for CUDA and HIP, after TVM v0.6's dense and batch_matmul templates.

#include <algorithm>
#include <array>
#include <vector>

#include "codegen/templates.h"
#include "common/error.h"

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

// One operand's slab of a K step: B_TH x K_STEP x `extent` floats copied cooperatively from
// global into shared memory, where each of its B_TH * K_STEP rows holds `extent` floats and
// `ld` - extent of padding.
struct Slab {
  std::string shared;  // the shared array: As or Bs
  std::string extent;  // BLOCK_N or BLOCK_M
  std::string ld;      // the padded row: LDA or LDB
  std::string units;   // copies of the slab: A_UNITS or B_UNITS
  std::string inner;   // the index along extent: nn or mm
  bool kContiguous;    // K runs fastest in global memory (A not transposed, B transposed)
  bool vector;         // each copy moves four floats consecutive in global memory (float4)
};

// The slab element(s) of copy i: the index runs fastest along the dimension that is contiguous
// in global memory, so that neighbouring threads read neighbouring addresses (coalesced),
// whatever the transposition; a vector copy takes four consecutive elements of that dimension.
// bb, the copy's place in the block's batch tile, is declared only `withBatch`: a copy that
// only reads global memory uses it for a batched operator alone, and nvcc warns of a variable
// declared but never referenced (#177).
void writeSlabIndex(CodeWriter& w, const Slab& s, bool withBatch = true) {
  const std::string e = s.extent, in = s.inner;
  auto batch = [&](const std::string& count) {
    return withBatch ? ", bb = i / (" + count + ")" : std::string();
  };
  if (s.kContiguous && s.vector)
    w.line("const int kk = (i % (K_STEP / 4)) * 4, " + in + " = (i / (K_STEP / 4)) % " + e +
           batch("K_STEP / 4 * " + e) + ";");
  else if (s.kContiguous)
    w.line("const int kk = i % K_STEP, " + in + " = (i / K_STEP) % " + e + batch("K_STEP * " + e) +
           ";");
  else if (s.vector)
    w.line("const int " + in + " = (i % (" + e + " / 4)) * 4, kk = (i / (" + e + " / 4)) % K_STEP" +
           batch(e + " / 4 * K_STEP") + ";");
  else
    w.line("const int " + in + " = i % " + e + ", kk = (i / " + e + ") % K_STEP" +
           batch("K_STEP * " + e) + ";");
}

std::string slabAt(const Slab& s, const std::string& dk = "") {
  return s.shared + "[(bb * K_STEP + kk" + dk + ") * " + s.ld + " + " + s.inner + "]";
}

std::string globalRead(const Slab& s, const std::string& global) {
  return s.vector ? "*reinterpret_cast<const float4*>(&" + global + ")" : global;
}

// Stores `value` (a float, or a float4 for a vector copy) into the slab element(s) of copy i. A
// vector along K goes to four rows; along the extent, into one 16-byte aligned run of a row.
void writeSlabStore(CodeWriter& w, const Slab& s, const std::string& value) {
  if (!s.vector) {
    w.line(slabAt(s) + " = " + value + ";");
  } else if (s.kContiguous) {
    w.line(slabAt(s) + " = " + value + ".x, " + slabAt(s, " + 1") + " = " + value + ".y, " +
           slabAt(s, " + 2") + " = " + value + ".z, " + slabAt(s, " + 3") + " = " + value + ".w;");
  } else {
    w.line("*reinterpret_cast<float4*>(&" + slabAt(s) + ") = " + value + ";");
  }
}

// One cooperative copy of the slab from global into shared memory.
void writeSlabLoad(CodeWriter& w, const Slab& s, const std::string& global) {
  w.open("for (int i = tid; i < " + s.units + "; i += THREADS)");
  writeSlabIndex(w, s);
  if (s.vector) {
    w.line("const float4 v = " + globalRead(s, global) + ";");
    writeSlabStore(w, s, "v");
  } else {
    writeSlabStore(w, s, global);
  }
  w.close();
}

// The same copy in two halves for the double-buffered loop: this thread's copies of the slab
// into the registers `regs` (fetch: `toRegisters`, from `global`, which names bb when `batched`),
// later from them into shared memory. The loop over a thread's copies is unrolled, so that `regs`
// stays in registers.
void writeSlabHalf(CodeWriter& w, bool toRegisters, const std::string& regs, const Slab& s,
                   const std::string& global, bool batched) {
  w.line("#pragma unroll");
  w.open("for (int j = 0; j < (" + s.units + " + THREADS - 1) / THREADS; ++j)");
  w.line("const int i = tid + j * THREADS;");
  w.open("if (i < " + s.units + ")");
  writeSlabIndex(w, s, !toRegisters || batched);
  if (toRegisters)
    w.line(regs + "[j] = " + globalRead(s, global) + ";");
  else
    writeSlabStore(w, s, regs + "[j]");
  w.close();
  w.close();
}

// Four consecutive floats of shared memory, `address` + 4 * `quad` (address lacks its closing
// bracket), into the register row `regs`.
void writeVectorRead(CodeWriter& w, const std::string& regs, const std::string& quad,
                     const std::string& address) {
  w.line("const float4 v = *reinterpret_cast<const float4*>(&" + address + " + " + quad +
         " * 4]);");
  w.line(regs + "[" + quad + " * 4] = v.x, " + regs + "[" + quad + " * 4 + 1] = v.y, " + regs +
         "[" + quad + " * 4 + 2] = v.z, " + regs + "[" + quad + " * 4 + 3] = v.w;");
}

}  // namespace

// Shared-memory wavefronts of the first warp's stores of a slab copy whose rows hold `ld`
// floats. 32-bit stores take one wavefront per distinct address on the busiest bank; 128-bit
// stores go a quarter warp at a time, each access covering four banks.
std::int64_t slabStoreWavefronts(const SlabShape& s, std::int64_t ld) {
  constexpr std::int64_t kBanks = 32;
  const std::int64_t perUnit = s.vector ? 4 : 1;
  const std::int64_t units = s.bTh * s.kStep * s.extent / perUnit;
  const std::int64_t lanes = std::min<std::int64_t>({kBanks, s.threads, units});
  // Lane i's first element (the template's writeSlabIndex, with i = tid in the first warp). On
  // the stack: a CUDA space's device-limit constraint generates the kernel for every candidate.
  std::array<std::int64_t, kBanks> row{}, col{};
  for (std::int64_t i = 0; i < lanes; ++i) {
    std::int64_t kk, inner, bb;
    if (s.kContiguous) {
      const std::int64_t along = s.kStep / perUnit;
      kk = (i % along) * perUnit, inner = (i / along) % s.extent, bb = i / (along * s.extent);
    } else {
      const std::int64_t along = s.extent / perUnit;
      inner = (i % along) * perUnit, kk = (i / along) % s.kStep, bb = i / (along * s.kStep);
    }
    row[static_cast<std::size_t>(i)] = bb * s.kStep + kk;
    col[static_cast<std::size_t>(i)] = inner;
  }
  // Wavefronts of one store instruction over lanes [first, last), each writing `width` floats.
  auto instruction = [&](std::int64_t first, std::int64_t last, std::int64_t dk,
                         std::int64_t width) {
    std::array<std::array<std::int64_t, kBanks>, kBanks> onBank;  // distinct addresses per bank
    std::array<std::int64_t, kBanks> count{};
    std::int64_t worst = 0;
    for (std::int64_t i = first; i < last; ++i) {
      const std::int64_t at =
          (row[static_cast<std::size_t>(i)] + dk) * ld + col[static_cast<std::size_t>(i)];
      for (std::int64_t e = 0; e < width; ++e) {
        const auto bank = static_cast<std::size_t>((at + e) % kBanks);
        auto& seen = onBank[bank];
        const auto end = seen.begin() + count[bank];
        if (std::find(seen.begin(), end, at) == end)
          seen[static_cast<std::size_t>(count[bank]++)] = at;
        worst = std::max(worst, count[bank]);
      }
    }
    return worst;
  };
  std::int64_t total = 0;
  if (!s.vector) {
    total = instruction(0, lanes, 0, 1);
  } else if (s.kContiguous) {
    for (std::int64_t dk = 0; dk < 4; ++dk) total += instruction(0, lanes, dk, 1);
  } else {
    for (std::int64_t q = 0; q < lanes; q += 8)
      total += instruction(q, std::min(q + 8, lanes), 0, 4);
  }
  return total;
}

// The row length of a slab in shared memory: the extent plus the padding (under 32 floats)
// with the fewest store wavefronts, the smallest on a tie. Loaded K-fastest, an unpadded slab
// whose rows are a multiple of 32 floats puts the K_STEP elements of a row's column on one bank
// (an 8-way conflict at K_STEP 8). Rows whose extent is a multiple of 4 stay so, keeping the
// 16-byte alignment of float4 reads and stores.
std::int64_t paddedSlabRow(const SlabShape& s) {
  const std::int64_t step = s.extent % 4 == 0 ? 4 : 1;
  std::int64_t best = s.extent, bestCost = slabStoreWavefronts(s, s.extent);
  for (std::int64_t pad = step; pad < 32; pad += step) {
    const std::int64_t cost = slabStoreWavefronts(s, s.extent + pad);
    if (cost < bestCost) best = s.extent + pad, bestCost = cost;
  }
  return best;
}

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
  // Split-K blocks follow the batch blocks along z: every block of split s - 1 comes before any
  // of split s in launch order, which the turn-taking below relies on (see writeSplitKStore).
  g.launch.grid = {t.m[0], t.n[0], t.b[0] * t.splitK};
  if (g.launch.grid.z > ctx.maxGridZ)
    throw InputError("codegen: " + str(g.launch.grid.z) + " blocks along grid z (batch blocks x " +
                     "split_k) exceed the device's " + str(ctx.maxGridZ));
  g.launch.block = {t.m[2], t.n[2], t.b[1]};
  // Copies of four floats where the rows they read in global memory keep 16-byte alignment;
  // slab rows padded against bank conflicts (paddedSlabRow).
  const bool aKFast = !op.transA, bKFast = op.transB;
  auto vectorCopies = [&](bool kFast, std::int64_t extent, std::int64_t contiguousExtent) {
    return kFast ? t.kStep() % 4 == 0 && op.k % 4 == 0
                 : extent % 4 == 0 && contiguousExtent % 4 == 0;
  };
  const bool vecLoadA = vectorCopies(aKFast, t.blockN(), op.n);
  const bool vecLoadB = vectorCopies(bKFast, t.blockM(), op.m);
  const std::int64_t lda =
      paddedSlabRow({t.blockN(), t.kStep(), t.b[1], t.threads(), aKFast, vecLoadA});
  const std::int64_t ldb =
      paddedSlabRow({t.blockM(), t.kStep(), t.b[1], t.threads(), bKFast, vecLoadB});
  // Each slab takes whole float4s of shared memory, so that every slab (B's after A's, the second
  // stage's after the first) starts 16-byte aligned for float4 stores and reads: rows of 1 or 2
  // floats and odd B_TH or K_STEP would otherwise leave B's slab at smem + 1, 2 or 3 (a
  // misaligned float4 is a sticky CUDA error that ends the worker's context).
  auto wholeFloat4s = [](std::int64_t floats) { return (floats + 3) / 4 * 4; };
  const std::int64_t slabA = wholeFloat4s(t.b[1] * t.kStep() * lda);
  const std::int64_t slabB = wholeFloat4s(t.b[1] * t.kStep() * ldb);
  g.launch.sharedBytes = static_cast<std::int64_t>(sizeof(float)) * t.stages * (slabA + slabB);
  g.summary = "block tile " + str(t.b[1]) + "x" + str(t.blockN()) + "x" + str(t.blockM()) +
              ", thread tile " + str(t.n[1]) + "x" + str(t.m[1]) + " vthreads of " + str(t.n[3]) +
              "x" + str(t.m[3]) + ", K " + str(t.k[0]) + " outer x " + str(t.k[1]) + " middle x " +
              str(t.k[2]) + " inner" +
              (t.splitK > 1 ? ", K split over " + str(t.splitK) + " blocks" : "") +
              (t.stages > 1 ? ", double-buffered" : "");
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
  const std::string turn = ctx.entry + "_turn";
  if (t.splitK > 1) writeSplitKTurns(w, turn, t.m[0] * t.n[0] * t.b[0]);
  w.open("OPEVO_KERNEL(" + str(t.threads()) + ") " + ctx.entry + kernelParams(ctx.backend));
  w.line("using index_t = " + indexType(op) + ";  // wide enough for every element offset");
  w.comment(std::string("C[b] (N x M) = op(A[b]) (N x K) * op(B[b]) (K x M); A is stored ") +
            (op.transA ? "K x N (transposed)" : "N x K") + ", B " +
            (op.transB ? "M x K (transposed)" : "K x M") + ".");
  // N is read only by some offsets (A transposed, a batch's stride): nvcc's warning #177 otherwise.
  w.line("[[maybe_unused]] constexpr index_t N = " + str(op.n) + ", M = " + str(op.m) +
         ", K = " + str(op.k) + ";");
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
  w.line("constexpr int LDA = " + str(lda) + ", LDB = " + str(ldb) +
         ";  // shared rows of A and B: BLOCK_N and BLOCK_M padded against bank conflicts");
  w.line("constexpr int A_SLAB = " + str(slabA) + ", B_SLAB = " + str(slabB) +
         ";  // B_TH * K_STEP rows each, in whole float4s (16-byte aligned slabs)");
  w.line(std::string("constexpr int A_UNITS = B_TH * K_STEP * BLOCK_N") + (vecLoadA ? " / 4" : "") +
         ", B_UNITS = B_TH * K_STEP * BLOCK_M" + (vecLoadB ? " / 4" : "") +
         ";  // copies per slab" + (vecLoadA || vecLoadB ? " (float4 ones move four floats)" : ""));
  if (t.splitK > 1)
    w.line("constexpr int SPLIT_K = " + str(t.splitK) +
           ";  // blocks along grid z that share one output tile's K_OUT steps");
  w.line();
  w.comment(
      "Dynamic shared memory (LaunchConfig::sharedBytes), so that stages above the 48 KiB a\n"
      "static array may use still compile; the host checks them against the device's limit.");
  // 16-byte aligned for the float4 reads below (dynamic shared memory starts so aligned when a
  // kernel has no static shared memory, as here; the attribute makes it the compiler's fact).
  w.line("extern __shared__ __attribute__((aligned(16))) float smem[];");
  if (t.stages == 1) {
    w.line("float* As = smem;           // [B_TH][K_STEP][LDA]");
    w.line("float* Bs = smem + A_SLAB;  // [B_TH][K_STEP][LDB]");
  } else {
    w.comment("Two stages of [B_TH][K_STEP][LDA] A then [B_TH][K_STEP][LDB] B.");
    w.line("constexpr int STAGE = A_SLAB + B_SLAB;");
  }
  w.line("const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;");
  w.line("const int tid = (tz * N_TH + ty) * M_TH + tx;");
  w.line("const index_t row0 = (index_t)blockIdx.y * BLOCK_N;  // the block's first row of C");
  w.line("const index_t col0 = (index_t)blockIdx.x * BLOCK_M;");
  if (t.splitK > 1) {
    w.line("const int split = blockIdx.z / " + str(t.b[0]) + ", zBlock = blockIdx.z % " +
           str(t.b[0]) + ";");
    if (batched) w.line("const index_t batch0 = (index_t)zBlock * B_TH;");
  } else if (batched) {
    w.line("const index_t batch0 = (index_t)blockIdx.z * B_TH;");
  }
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
  const std::string batch = batched ? "batch0 + bb" : "";
  auto aAt = [&](const std::string& ko) {
    return "A[" + aOffset(op, batch, "row0 + nn", ko + " * K_STEP + kk") + "]";
  };
  auto bAt = [&](const std::string& ko) {
    return "B[" + bOffset(op, batch, ko + " * K_STEP + kk", "col0 + mm") + "]";
  };
  const Slab slabOfA{"As", "BLOCK_N", "LDA", "A_UNITS", "nn", aKFast, vecLoadA};
  const Slab slabOfB{"Bs", "BLOCK_M", "LDB", "B_UNITS", "mm", bKFast, vecLoadB};
  const std::string koBegin = t.splitK > 1 ? "split * (K_OUT / SPLIT_K)" : "0";
  const std::string koEnd = t.splitK > 1 ? "(split + 1) * (K_OUT / SPLIT_K)" : "K_OUT";
  if (t.stages == 1) {
    w.line("#pragma unroll 1");
    w.open("for (int ko = " + koBegin + "; ko < " + koEnd + "; ++ko)");
    w.comment("Every thread of the block helps stage this K_STEP slab of A and B.");
    writeSlabLoad(w, slabOfA, aAt("ko"));
    writeSlabLoad(w, slabOfB, bAt("ko"));
    w.line("__syncthreads();");
  } else {
    w.comment(
        "Double-buffered: the first slab is staged before the loop; every step then fetches the\n"
        "next slab into registers, multiplies this one, and stores the next into the other\n"
        "stage, so that the global loads' latency hides behind the multiply-adds and one barrier\n"
        "per step suffices (the stage written was last read a barrier ago).");
    w.line("const int koBegin = " + koBegin + ", koEnd = " + koEnd + ";");
    w.open("");
    w.line("float* As = smem;");
    w.line("float* Bs = smem + A_SLAB;");
    w.line("const int ko = koBegin;");
    writeSlabLoad(w, slabOfA, aAt("ko"));
    writeSlabLoad(w, slabOfB, bAt("ko"));
    w.close();
    w.line("__syncthreads();");
    w.line(std::string(vecLoadA ? "float4" : "float") +
           " aNext[(A_UNITS + THREADS - 1) / THREADS];");
    w.line(std::string(vecLoadB ? "float4" : "float") +
           " bNext[(B_UNITS + THREADS - 1) / THREADS];");
    w.line("#pragma unroll 1");
    w.open("for (int ko = koBegin; ko < koEnd; ++ko)");
    w.line("const float* As = smem + ((ko - koBegin) & 1) * STAGE;");
    w.line("const float* Bs = As + A_SLAB;");
    w.line("const bool more = ko + 1 < koEnd;");
    w.open("if (more)");
    writeSlabHalf(w, true, "aNext", slabOfA, aAt("(ko + 1)"), batched);
    writeSlabHalf(w, true, "bNext", slabOfB, bAt("(ko + 1)"), batched);
    w.close();
  }
  const std::int64_t computeSteps = t.k[2] * t.accumulators();
  // No pragma on the middle loop: unrolling it as well multiplied compile times (2 s for 16
  // steps of 32 multiply-adds) for a loop whose body is already long enough to hide its cost.
  w.open("for (int km = 0; km < K_MID; ++km)");
  // TVM stages K_IN-deep register tiles per middle step. Those stay in registers only when the
  // K_IN loop is unrolled too; otherwise one K step is staged at a time, which keeps the
  // fragments in registers rather than in (slow, and slow to compile) local memory.
  const bool deep = unrollPragma(t.k[2], computeSteps, unroll) == "#pragma unroll";
  // Register tiles read from shared memory four floats at a time (LDS.128) where they are
  // 16-byte aligned: a quarter of the load instructions, which bound the smaller register tiles
  // (NVCC does not merge the scalar loads itself). Slabs start aligned (whole float4s), and a
  // register tile four floats wide makes the rows' length a multiple of 4.
  const bool vecA = t.n[3] % 4 == 0;
  const bool vecB = t.m[3] % 4 == 0;
  std::vector<Loop> aLoops = {
      {"vn", t.n[1], "N_VT"},
      vecA ? Loop{"in4", t.n[3] / 4, "N_IN / 4"} : Loop{"in", t.n[3], "N_IN"}};
  std::vector<Loop> bLoops = {
      {"vm", t.m[1], "M_VT"},
      vecB ? Loop{"im4", t.m[3] / 4, "M_IN / 4"} : Loop{"im", t.m[3], "M_IN"}};
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
  const std::string aAddr = "As[(tz * K_STEP + km * K_IN + ki) * LDA + (vn * N_TH + ty) * N_IN";
  const std::string bAddr = "Bs[(tz * K_STEP + km * K_IN + ki) * LDB + (vm * M_TH + tx) * M_IN";
  w.openNest(aLoops, unroll);
  if (vecA)
    writeVectorRead(w, "aReg" + ki + "[vn]", "in4", aAddr);
  else
    w.line("aReg" + ki + "[vn][in] = " + aAddr + " + in];");
  w.closeNest(aLoops.size());
  w.openNest(bLoops, unroll);
  if (vecB)
    writeVectorRead(w, "bReg" + ki + "[vm]", "im4", bAddr);
  else
    w.line("bReg" + ki + "[vm][im] = " + bAddr + " + im];");
  w.closeNest(bLoops.size());
  w.openNest(compute, unroll);
  w.line("acc[vn][in][vm][im] += aReg" + ki + "[vn][in] * bReg" + ki + "[vm][im];");
  w.closeNest(compute.size());
  if (!deep) w.close();
  w.close();
  if (t.stages == 1) {
    w.comment("The next stage overwrites the slab: wait until everyone has read it.");
  } else {
    w.open("if (more)");
    w.line("float* An = smem + ((ko + 1 - koBegin) & 1) * STAGE;");
    w.line("float* Bn = An + A_SLAB;");
    Slab nextA = slabOfA, nextB = slabOfB;
    nextA.shared = "An", nextB.shared = "Bn";
    writeSlabHalf(w, false, "aNext", nextA, "", batched);
    writeSlabHalf(w, false, "bNext", nextB, "", batched);
    w.close();
    w.comment("The next slab is staged, and this one read by everyone before it is overwritten.");
  }
  w.line("__syncthreads();");
  w.close();
  w.line();
  const std::string at = std::string(batched ? "(batch0 + tz) * (N * M) + " : "") + "row * M + col";
  if (t.splitK > 1) {
    writeSplitKStore(w, turn, "(zBlock * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x", [&] {
      w.openNest(tile, unroll);
      w.line("const index_t row = row0 + (vn * N_TH + ty) * N_IN + in;");
      w.line("const index_t col = col0 + (vm * M_TH + tx) * M_IN + im;");
      w.line("float v = acc[vn][in][vm][im];");
      writeSplitKSum(w, op, ctx.backend, "v", "col", at);
      w.line("C[" + at + "] = v;");
      w.closeNest(tile.size());
    });
  } else {
    w.openNest(tile, unroll);
    w.line("const index_t row = row0 + (vn * N_TH + ty) * N_IN + in;");
    w.line("const index_t col = col0 + (vm * M_TH + tx) * M_IN + im;");
    if (op.epilogue.empty()) {
      w.line("C[" + at + "] = acc[vn][in][vm][im];");
    } else {
      w.line("float v = acc[vn][in][vm][im];");
      writeEpilogue(w, op, ctx.backend, "v", "col", at);
      w.line("C[" + at + "] = v;");
    }
    w.closeNest(tile.size());
  }
  w.close();
  g.source = w.str();
  return g;
}

}  // namespace opevo::codegen::detail
