// Naive kernels, one output element per GPU thread or loop iteration: slow, but short enough to
// be checked by reading, which is what a reference for verifying tuned kernels must be.

#include <functional>

#include "codegen/templates.h"

namespace opevo::codegen::detail {
namespace {

constexpr std::int64_t kReferenceThreads = 256;

std::string str(std::int64_t v) {
  return std::to_string(v);
}

// Declares the problem's constants and computes output element i into C[i], epilogue applied.
void writeReferenceBody(CodeWriter& w, const OperatorSpec& op, Backend backend) {
  if (op.kind == OpKind::Conv2D) {
    w.line("constexpr index_t NB = " + str(op.batch) + ", CI = " + str(op.inChannels) +
           ", H = " + str(op.height) + ", W = " + str(op.width) + ";");
    w.comment("Groups: output channel f reads the CG input channels of its group only.");
    w.line("constexpr index_t CG = " + str(op.inChannels / op.groups) +
           ", FG = " + str(op.outChannels / op.groups) + ";");
    w.line("constexpr index_t F = " + str(op.outChannels) + ", KH = " + str(op.kernelH) +
           ", KW = " + str(op.kernelW) + ", OH = " + str(op.outHeight()) +
           ", OW = " + str(op.outWidth()) + ";");
    w.line("constexpr index_t S = " + str(op.stride) + ", P = " + str(op.pad) + ";");
    w.line("const index_t img = i / (F * OH * OW), f = (i / (OH * OW)) % F;");
    w.line("const index_t oy = (i / OW) % OH, ox = i % OW;");
    w.line("float sum = 0.0f;");
    w.open("for (index_t c = 0; c < CG; ++c)");
    w.open("for (index_t ky = 0; ky < KH; ++ky)");
    w.open("for (index_t kx = 0; kx < KW; ++kx)");
    w.line("const index_t iy = oy * S - P + ky, ix = ox * S - P + kx;");
    w.line("if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;  // zero padding");
    w.line("sum += A[((img * CI + (f / FG) * CG + c) * H + iy) * W + ix] *");
    w.line("       B[((f * CG + c) * KH + ky) * KW + kx];");
    w.closeNest(3);
    writeEpilogue(w, op, backend, "sum", "f", "i");
    w.line("C[i] = sum;");
    return;
  }
  w.line("constexpr index_t N = " + str(op.n) + ", M = " + str(op.m) + ", K = " + str(op.k) + ";");
  w.line("const index_t batch = i / (N * M), row = (i / M) % N, col = i % M;");
  w.line("float sum = 0.0f;");
  w.open("for (index_t k = 0; k < K; ++k)");
  w.line("sum += A[" + aOffset(op, "batch", "row", "k") + "] * B[" +
         bOffset(op, "batch", "k", "col") + "];");
  w.close();
  writeEpilogue(w, op, backend, "sum", "col", "i");
  w.line("C[i] = sum;");
  if (op.kind == OpKind::MatMul) w.line("(void)batch;");
}

std::string describeReference(const OperatorSpec& op) {
  return op.kind == OpKind::Conv2D ? "reference Conv2D: one output element each, zero padding"
                                   : "reference MatMul: one output element each, a plain K loop";
}

// A GPU kernel of one thread per output element i (256 per block), its statements written by
// body.
GeneratedKernel oneThreadPerOutput(const KernelContext& ctx, const std::string& summary,
                                   const std::function<void(CodeWriter&)>& body) {
  GeneratedKernel g;
  g.backend = ctx.backend;
  g.entry = ctx.entry;
  g.accumulators = 1;
  const std::int64_t total = operandSizes(*ctx.op).c;
  g.launch.grid = {(total + kReferenceThreads - 1) / kReferenceThreads, 1, 1};
  g.launch.block = {kReferenceThreads, 1, 1};
  g.summary = summary;
  CodeWriter w;
  writeHeader(w, ctx, summary, describeLaunch(g.launch));
  w.line();
  openGpuKernel(w, ctx, kReferenceThreads, "long long");
  w.line("const index_t i = (index_t)blockIdx.x * blockDim.x + threadIdx.x;");
  w.line("if (i >= " + str(total) + ") return;");
  body(w);
  w.close();
  g.source = w.str();
  return g;
}

}  // namespace

GeneratedKernel referenceGpu(const KernelContext& ctx) {
  return oneThreadPerOutput(ctx, describeReference(*ctx.op),
                            [&](CodeWriter& w) { writeReferenceBody(w, *ctx.op, ctx.backend); });
}

GeneratedKernel epilogueGpu(const KernelContext& ctx) {
  const OperatorSpec& op = *ctx.op;
  return oneThreadPerOutput(
      ctx, "the epilogue alone, in place on C, one element each", [&](CodeWriter& w) {
        if (op.kind == OpKind::Conv2D)
          w.line("const index_t channel = (i / " + str(op.outHeight() * op.outWidth()) + ") % " +
                 str(op.outChannels) + ";");
        else
          w.line("const index_t channel = i % " + str(op.m) + ";");
        w.line("float value = C[i];");
        writeEpilogue(w, op, ctx.backend, "value", "channel", "i");
        w.line("C[i] = value;");
        w.line("(void)A; (void)B; (void)Bias; (void)Residual; (void)channel;");
      });
}

GeneratedKernel comparisonGpu(Backend backend) {
  GeneratedKernel g;
  g.backend = backend;
  g.entry = "opevo_max_relative_error";
  g.accumulators = 1;
  // 512 x 256 threads keep an H100's 132 SMs streaming (C2's 72 M elements are 550 a thread)
  // and leave the host 131,072 partial results, a megabyte, to reduce.
  g.launch.grid = {512, 1, 1};
  g.launch.block = {kReferenceThreads, 1, 1};
  g.summary = "the largest relative error of C against Ref, one partial result a thread";
  CodeWriter w;
  w.comment("OpEvo Studio: compares a kernel's output with the reference on the device, as");
  w.comment("maxRelativeError does on the host (gpu/cpu/operator_buffers.h).");
  w.comment("Launch:        " + describeLaunch(g.launch));
  w.line();
  w.line(gpuPrelude(backend));
  w.open("OPEVO_KERNEL(" + str(kReferenceThreads) + ") " + g.entry +
         "(const float* OPEVO_RESTRICT C, const float* OPEVO_RESTRICT Ref, unsigned long long n, "
         "double* OPEVO_RESTRICT Worst)");
  w.line(
      "const unsigned long long first = (unsigned long long)blockIdx.x * blockDim.x + "
      "threadIdx.x;");
  w.line("const unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;");
  w.line("double worst = 0.0;");
  w.open("for (unsigned long long i = first; i < n; i += step)");
  w.comment(
      "In double precision, as on the host: the verdict must not depend on where it is made.");
  w.line("const double e = fabs((double)C[i] - (double)Ref[i]) / (1.0 + fabs((double)Ref[i]));");
  w.comment("A NaN (an element the kernel left unwritten: C was filled with NaN) is the worst");
  w.comment("there is, and stays so: fmax would drop it. (Built without fast math, which would");
  w.comment("fold e == e to true.)");
  w.line("worst = e == e ? fmax(worst, e) : __longlong_as_double(0x7ff0000000000000LL);");
  w.close();
  w.line("Worst[first] = worst;");
  w.close();
  g.source = w.str();
  return g;
}

GeneratedKernel referenceCpu(const KernelContext& ctx) {
  const OperatorSpec& op = *ctx.op;
  GeneratedKernel g;
  g.backend = Backend::Cpu;
  g.entry = ctx.entry;
  g.accumulators = 1;
  const std::int64_t total = operandSizes(op).c;
  g.launch.grid = {total, 1, 1};
  g.summary = describeReference(op);
  CodeWriter w;
  writeHeader(w, ctx, describeReference(op), "");
  w.line();
  w.open("extern \"C\" void " + ctx.entry + kernelParams(Backend::Cpu));
  w.line("using index_t = long long;");
  w.line("#pragma omp parallel for schedule(static)");
  w.open("for (index_t i = 0; i < " + str(total) + "; ++i)");
  writeReferenceBody(w, op, ctx.backend);
  w.close();
  w.close();
  g.source = w.str();
  return g;
}

}  // namespace opevo::codegen::detail
