// Direct NCHW Conv2D for CUDA and HIP, after TVM v0.6's conv2d_direct template.

#include <algorithm>

#include "codegen/templates.h"
#include "common/error.h"

namespace opevo::codegen::detail {
namespace {

std::string str(std::int64_t v) {
  return std::to_string(v);
}

std::string tripleLine(const char* prefix, const std::array<std::int64_t, 4>& f) {
  return std::string("constexpr int ") + prefix + "_VT = " + str(f[1]) + ", " + prefix +
         "_TH = " + str(f[2]) + ", " + prefix + "_IN = " + str(f[3]) + ";";
}

}  // namespace

GeneratedKernel conv2dGpu(const KernelContext& ctx, const Conv2DTiling& t) {
  const OperatorSpec& op = *ctx.op;
  GeneratedKernel g;
  g.backend = ctx.backend;
  g.entry = ctx.entry;
  g.accumulators = t.accumulators();
  const std::int64_t fused = op.batch * t.f[0];
  const bool split = t.splitK > 1;
  // Split-K blocks follow every (image, channel block) pair along z, all in the one launch: every
  // block of split s - 1 comes before any of split s, which their turns rely on (split_k_code.cpp).
  if (split && fused * t.splitK > ctx.maxGridZ)
    throw InputError("codegen: " + str(fused * t.splitK) +
                     " blocks along grid z (images x channel blocks x split_k) exceed the "
                     "device's " +
                     str(ctx.maxGridZ));
  g.launch.grid = {t.x[0], t.y[0], split ? fused * t.splitK : std::min(fused, ctx.maxGridZ)};
  g.launch.block = {t.x[2], t.y[2], t.f[2]};
  const UnrollPolicy unroll{UnrollPolicy::Style::Cuda, t.autoUnrollMaxStep, t.unrollExplicit};
  // The weights are staged tap-major, [tap][output channel], so that a thread's F_IN channels of
  // one tap lie side by side and are read as float4s (a quarter of the shared loads: NVCC does
  // not merge scalar ones). The copy reads each channel's taps in a row from global memory and
  // stores them a row apart, so the row is padded as the MatMul slabs are (paddedSlabRow).
  const std::int64_t taps = t.rc[1] * t.ry[1] * t.rx[1];
  const std::int64_t ldw = paddedSlabRow({t.blockF(), taps, 1, t.threads(), true, false});
  // Only where the register tile's loops are unrolled (within the limit and asked to; left to
  // the compiler, nvcc often keeps them rolled): a rolled loop would index the loaded weights at
  // run time, in local memory. F_IN a multiple of 4 makes BLOCK_F, and so LDW, one too.
  const bool vectorWeights =
      t.f[3] % 4 == 0 && t.unrollExplicit && t.accumulators() <= t.autoUnrollMaxStep;
  // The weights start 16-byte aligned after the patch.
  const std::int64_t patchFloats =
      (t.rc[1] * t.patchH(op.stride) * t.patchW(op.stride) + 3) / 4 * 4;
  const std::int64_t weightFloats = taps * ldw;
  g.launch.sharedBytes = static_cast<std::int64_t>(sizeof(float)) * (patchFloats + weightFloats);
  g.summary = "block tile " + str(t.blockF()) + " channels x " + str(t.blockY()) + "x" +
              str(t.blockX()) + " pixels, " + str(t.threads()) + " threads, " +
              str(t.accumulators()) + " accumulators per thread, reduction stage " + str(t.rc[1]) +
              "x" + str(t.ry[1]) + "x" + str(t.rx[1]) + ", unroll limit " +
              str(t.autoUnrollMaxStep) + (t.unrollExplicit ? " (explicit)" : " (compiler)") +
              (vectorWeights ? ", weights read as float4" : "") +
              (split ? ", input channels split over " + str(t.splitK) + " blocks" : "");

  CodeWriter w;
  writeHeader(w, ctx,
              std::string("Conv2D direct NCHW (TVM conv2d_direct): out channels / rows / columns "
                          "[block, vthread, thread, inner], blockIdx.z = (") +
                  (split ? "split, " : "") +
                  "image, channel block), reductions [outer, inner] staged in shared memory",
              describeLaunch(g.launch));
  w.line();
  const std::string turn = ctx.entry + "_turn";
  openGpuKernel(w, ctx, t.threads(), indexType(op), split ? t.x[0] * t.y[0] * fused : 0);
  w.comment(
      "C[n][f][oy][ox] = sum over c, ky, kx of A[n][c][oy*S+ky-P][ox*S+kx-P] * B[f][c][ky][kx],\n"
      "reading zeros outside the input (padding).");
  w.line("constexpr index_t NB = " + str(op.batch) + ", CI = " + str(op.inChannels) +
         ", H = " + str(op.height) + ", W = " + str(op.width) + ";");
  w.line("constexpr index_t F = " + str(op.outChannels) + ", KH = " + str(op.kernelH) + ", KW = " +
         str(op.kernelW) + ", OH = " + str(op.outHeight()) + ", OW = " + str(op.outWidth()) + ";");
  w.line("constexpr int S = " + str(op.stride) + ", P = " + str(op.pad) + ";");
  const bool grouped = op.groups > 1;
  if (grouped) {
    w.comment(
        "Groups: the space keeps a block's channels in one group, which reads CG input\n"
        "channels from c0 on.");
    w.line("constexpr index_t CG = " + str(op.inChannels / op.groups) +
           ", FG = " + str(op.outChannels / op.groups) + ";");
  }
  w.comment("tile_f = [blocks " + str(t.f[0]) + ", F_VT, F_TH, F_IN]; tile_y (blocks " +
            str(t.y[0]) + ") and tile_x (blocks " + str(t.x[0]) + ") likewise");
  w.line(tripleLine("F", t.f));
  w.line(tripleLine("Y", t.y));
  w.line(tripleLine("X", t.x));
  w.comment("tile_rc = [RC_OUT, RC_IN]; tile_ry and tile_rx likewise");
  w.line("constexpr int RC_OUT = " + str(t.rc[0]) + ", RC_IN = " + str(t.rc[1]) + ";");
  w.line("constexpr int RY_OUT = " + str(t.ry[0]) + ", RY_IN = " + str(t.ry[1]) + ";");
  w.line("constexpr int RX_OUT = " + str(t.rx[0]) + ", RX_IN = " + str(t.rx[1]) + ";");
  if (split)
    w.line("constexpr int SPLIT_K = " + str(t.splitK) +
           ";  // blocks along grid z that share one output tile's RC_OUT steps");
  w.line("constexpr int BLOCK_F = F_VT * F_TH * F_IN, F_BLOCKS = F / BLOCK_F;");
  w.line("constexpr int BLOCK_Y = Y_VT * Y_TH * Y_IN, BLOCK_X = X_VT * X_TH * X_IN;");
  w.comment("Input rows/columns one reduction stage reads for the block's outputs.");
  w.line("constexpr int PATCH_H = (BLOCK_Y - 1) * S + RY_IN, PATCH_W = (BLOCK_X - 1) * S + RX_IN;");
  w.line("constexpr int THREADS = F_TH * Y_TH * X_TH;");
  w.comment(
      "Staged weights are tap-major, a tap's BLOCK_F channels in a row of LDW floats (padded\n"
      "against bank conflicts of the copy's stores); the patch is rounded up to whole float4s.");
  w.line("constexpr int LDW = " + str(ldw) + ", PATCH_FLOATS = " + str(patchFloats) + ";");
  w.line();
  w.comment("Dynamic shared memory (LaunchConfig::sharedBytes): see the host's limit check.");
  w.line("extern __shared__ __attribute__((aligned(16))) float smem[];");
  w.line("float* patch = smem;                // [RC_IN][PATCH_H][PATCH_W]");
  w.line("float* wTile = smem + PATCH_FLOATS;  // [RC_IN][RY_IN][RX_IN][LDW]");
  w.line("const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;");
  w.line("const int tid = (tz * Y_TH + ty) * X_TH + tx;");
  w.line("const int y0 = blockIdx.y * BLOCK_Y, x0 = blockIdx.x * BLOCK_X;");
  w.line();
  if (split) {
    w.comment(
        "blockIdx.z is the split, then the image fused with the out-channel block, as in TVM's\n"
        "schedule: gridDim.z covers them all, so the loop runs once.");
    w.line("const int split = blockIdx.z / (NB * F_BLOCKS);");
    w.line("#pragma unroll 1");
    w.open("for (int z = blockIdx.z % (NB * F_BLOCKS); z < NB * F_BLOCKS; z += gridDim.z)");
  } else {
    w.comment(
        "blockIdx.z is the image fused with the out-channel block, as in TVM's schedule. The "
        "loop\nruns once per block unless NB * F_BLOCKS exceeds gridDim.z's limit (65535 on "
        "CUDA).");
    w.line("#pragma unroll 1");
    w.open("for (int z = blockIdx.z; z < NB * F_BLOCKS; z += gridDim.z)");
  }
  w.line("const index_t img = z / F_BLOCKS;");
  w.line("const int f0 = (z % F_BLOCKS) * BLOCK_F;");
  if (grouped) w.line("const index_t c0 = (f0 / FG) * CG;");
  w.comment(
      "Virtual threads are outer loops over register tiles: F_VT x Y_VT x X_VT inner tiles of\n"
      "F_IN x Y_IN x X_IN outputs, spaced a whole thread tile apart.");
  w.line("float acc[F_VT][Y_VT][X_VT][F_IN][Y_IN][X_IN];");
  const std::vector<Loop> tile = {{"vf", t.f[1], "F_VT"}, {"vy", t.y[1], "Y_VT"},
                                  {"vx", t.x[1], "X_VT"}, {"fi", t.f[3], "F_IN"},
                                  {"yi", t.y[3], "Y_IN"}, {"xi", t.x[3], "X_IN"}};
  w.openNest(tile, unroll);
  w.line("acc[vf][vy][vx][fi][yi][xi] = 0.0f;");
  w.closeNest(tile.size());
  w.line();
  const std::string rcBegin = split ? "split * (RC_OUT / SPLIT_K)" : "0";
  const std::string rcEnd = split ? "(split + 1) * (RC_OUT / SPLIT_K)" : "RC_OUT";
  for (const std::string& outer :
       {"rco = " + rcBegin + "; rco < " + rcEnd + "; ++rco",
        std::string("ryo = 0; ryo < RY_OUT; ++ryo"), std::string("rxo = 0; rxo < RX_OUT; ++rxo")}) {
    w.line("#pragma unroll 1");
    w.open("for (int " + outer + ")");
  }
  w.comment(
      "Stage this reduction step's padded input patch and weights; every thread of the block\n"
      "loads, consecutive threads reading consecutive addresses.");
  w.open("for (int i = tid; i < RC_IN * PATCH_H * PATCH_W; i += THREADS)");
  w.line("const int ci = i / (PATCH_H * PATCH_W), py = (i / PATCH_W) % PATCH_H, px = i % PATCH_W;");
  w.line("const int iy = y0 * S - P + ryo * RY_IN + py, ix = x0 * S - P + rxo * RX_IN + px;");
  w.line("patch[i] = (iy >= 0 && iy < H && ix >= 0 && ix < W)");
  w.line(std::string("               ? A[((img * CI + ") + (grouped ? "c0 + " : "") +
         "rco * RC_IN + ci) * H + iy) * W + ix]");
  w.line("               : 0.0f;");
  w.close();
  w.open("for (int i = tid; i < BLOCK_F * RC_IN * RY_IN * RX_IN; i += THREADS)");
  w.line("const int fl = i / (RC_IN * RY_IN * RX_IN), ci = (i / (RY_IN * RX_IN)) % RC_IN;");
  w.line("const int ky = (i / RX_IN) % RY_IN, kx = i % RX_IN;");
  w.line(std::string(
             "wTile[((ci * RY_IN + ky) * RX_IN + kx) * LDW + fl] = B[(((index_t)(f0 + fl) * ") +
         (grouped ? "CG" : "CI") +
         " + rco * RC_IN + ci) * KH + ryo * RY_IN + ky) * KW + rxo * RX_IN + kx];");
  w.close();
  w.line("__syncthreads();");
  w.comment("auto_unroll_max_step = " + str(t.autoUnrollMaxStep) + ", unroll_explicit = " +
            (t.unrollExplicit ? "1" : "0") + ": loops with at most that many innermost steps are " +
            (t.unrollExplicit ? "unrolled (#pragma unroll)" : "left to the compiler") +
            ",\nlonger ones kept rolled (#pragma unroll 1).");
  const std::vector<Loop> reduction = {
      {"rci", t.rc[1], "RC_IN"}, {"ryi", t.ry[1], "RY_IN"}, {"rxi", t.rx[1], "RX_IN"}};
  w.openNest(reduction, unroll, t.accumulators());
  w.line("const int tap = (rci * RY_IN + ryi) * RX_IN + rxi;");
  std::string weight = "wTile[tap * LDW + (vf * F_TH + tz) * F_IN + fi]";
  if (vectorWeights) {
    w.comment("This tap's weights of the thread's channels, four at a time.");
    w.line("float wReg[F_VT][F_IN];");
    const std::vector<Loop> quads = {{"vf", t.f[1], "F_VT"}, {"q", t.f[3] / 4, "F_IN / 4"}};
    w.openNest(quads, unroll);
    w.line(
        "const float4 v = *reinterpret_cast<const float4*>(&wTile[tap * LDW + (vf * F_TH + tz) * "
        "F_IN + q * 4]);");
    w.line(
        "wReg[vf][q * 4] = v.x, wReg[vf][q * 4 + 1] = v.y, wReg[vf][q * 4 + 2] = v.z, "
        "wReg[vf][q * 4 + 3] = v.w;");
    w.closeNest(quads.size());
    weight = "wReg[vf][fi]";
  }
  w.openNest(tile, unroll);
  w.line("const int yl = (vy * Y_TH + ty) * Y_IN + yi, xl = (vx * X_TH + tx) * X_IN + xi;");
  w.line("acc[vf][vy][vx][fi][yi][xi] +=");
  w.line("    patch[(rci * PATCH_H + yl * S + ryi) * PATCH_W + xl * S + rxi] * " + weight + ";");
  w.closeNest(tile.size() + reduction.size());
  w.comment("The next stage overwrites the tiles: wait until everyone has read them.");
  w.line("__syncthreads();");
  w.closeNest(3);
  w.line();
  auto openStore = [&] {
    w.openNest(tile, unroll);
    w.line("const int f = f0 + (vf * F_TH + tz) * F_IN + fi;");
    w.line(
        "const int oy = y0 + (vy * Y_TH + ty) * Y_IN + yi, ox = x0 + (vx * X_TH + tx) * X_IN + "
        "xi;");
  };
  // Each output through `v`, finished by `finish` (the epilogue, or a split's sum) before it is
  // stored.
  auto writeStore = [&](const std::function<void()>& finish) {
    openStore();
    w.line("const index_t at = (((index_t)img * F + f) * OH + oy) * OW + ox;");
    w.line("float v = acc[vf][vy][vx][fi][yi][xi];");
    finish();
    w.line("C[at] = v;");
    w.closeNest(tile.size());
  };
  if (split) {
    writeSplitKStore(w, turn, "(z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x", [&] {
      writeStore([&] { writeSplitKSum(w, op, ctx.backend, "v", "f", "at"); });
    });
  } else if (op.epilogue.empty()) {
    openStore();
    w.line("C[((img * F + f) * OH + oy) * OW + ox] = acc[vf][vy][vx][fi][yi][xi];");
    w.closeNest(tile.size());
  } else {
    writeStore([&] { writeEpilogue(w, op, ctx.backend, "v", "f", "at"); });
  }
  w.close();
  w.close();
  g.source = w.str();
  return g;
}

}  // namespace opevo::codegen::detail
