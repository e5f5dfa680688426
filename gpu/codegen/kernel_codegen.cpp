#include "codegen/kernel_codegen.h"

#include <limits>

#include "codegen/templates.h"
#include "common/error.h"
#include "ops/matvec_space.h"
#include "ops/winograd_space.h"

namespace opevo::codegen {

std::string_view backendName(Backend backend) {
  switch (backend) {
    case Backend::Cuda:
      return "cuda";
    case Backend::Hip:
      return "hip";
    case Backend::Cpu:
      return "cpu";
  }
  return "?";
}

Backend parseBackend(std::string_view name) {
  for (Backend b : {Backend::Cuda, Backend::Hip, Backend::Cpu})
    if (backendName(b) == name) return b;
  throw InputError("unknown backend '" + std::string(name) + "' (backends: cuda, hip, cpu)");
}

OperandSizes operandSizes(const OperatorSpec& op) {
  if (op.kind == OpKind::Conv2D)
    return {op.batch * op.inChannels * op.height * op.width,
            op.outChannels * (op.inChannels / op.groups) * op.kernelH * op.kernelW,
            op.batch * op.outChannels * op.outHeight() * op.outWidth()};
  return {op.batch * op.n * op.k, op.batch * op.k * op.m, op.batch * op.n * op.m};
}

std::int64_t biasSize(const OperatorSpec& op) {
  for (const EpilogueStep& s : op.epilogue)
    if (s.kind == EpilogueKind::Bias) return op.kind == OpKind::Conv2D ? op.outChannels : op.m;
  return 0;
}

std::int64_t residualSize(const OperatorSpec& op) {
  for (const EpilogueStep& s : op.epilogue)
    if (s.kind == EpilogueKind::Add) return operandSizes(op).c;
  return 0;
}

namespace detail {

std::string gpuPrelude(Backend backend) {
  std::string p;
  if (backend == Backend::Hip) {
    p += "// ---- prelude: HIP (hiprtc, or hipcc for an exported kernel) ----\n";
    // hiprtc declares the HIP built-ins itself and cannot open the runtime headers.
    p += "#if !defined(__HIPCC_RTC__)\n#include <hip/hip_runtime.h>\n#endif\n";
  } else {
    p += "// ---- prelude: CUDA (NVRTC, or nvcc for an exported kernel) ----\n";
  }
  p += "#define OPEVO_RESTRICT __restrict__\n";
  // __launch_bounds__ matters most on AMD, whose compilers otherwise assume 256 threads per block
  // at most; on CUDA it lets ptxas budget registers for the real block size.
  p += "#define OPEVO_KERNEL(max_threads) extern \"C\" __global__ void "
       "__launch_bounds__(max_threads)\n";
  p += "// ---- end of prelude ----\n";
  return p;
}

std::string indexType(const OperatorSpec& op) {
  const OperandSizes s = operandSizes(op);
  const std::int64_t limit = std::numeric_limits<std::int32_t>::max();
  return (s.a <= limit && s.b <= limit && s.c <= limit) ? "int" : "long long";
}

std::string describeLaunch(const LaunchConfig& l) {
  auto dim = [](const Dim3& d) {
    std::string s = "(";
    s.append(std::to_string(d.x)).append(", ").append(std::to_string(d.y)).append(", ");
    return s.append(std::to_string(d.z)).append(")");
  };
  return "grid " + dim(l.grid) + ", block " + dim(l.block) + ", " + std::to_string(l.sharedBytes) +
         " bytes of dynamic shared memory";
}

void openGpuKernel(CodeWriter& w, const KernelContext& ctx, std::int64_t threads,
                   const std::string& index, std::int64_t splitKTiles) {
  w.line(gpuPrelude(ctx.backend));
  if (splitKTiles > 0) writeSplitKTurns(w, ctx.entry + "_turn", splitKTiles);
  w.open("OPEVO_KERNEL(" + std::to_string(threads) + ") " + ctx.entry + kernelParams(ctx.backend));
  w.line("using index_t = " + index + ";  // wide enough for every offset");
}

void writeHeader(CodeWriter& w, const KernelContext& ctx, const std::string& what,
                 const std::string& launch) {
  w.comment("OpEvo Studio kernel for " + std::string(backendName(ctx.backend)) +
            ", generated from the configuration below; regenerate rather than edit.");
  w.comment("Operator:      " + ctx.op->name + ": " + ctx.op->describe());
  if (!ctx.configText.empty()) w.comment("Configuration: " + ctx.configText);
  w.comment("Template:      " + what);
  if (!launch.empty()) w.comment("Launch:        " + launch);
  const bool conv = ctx.op->kind == OpKind::Conv2D;
  w.comment("Signature:     " + ctx.entry +
            "(const float* A, const float* B, float* C, const float* Bias, const float* Residual), "
            "fp32, " +
            (conv ? "A = input NCHW, B = weights F(C/groups)KhKw, C = output NFHoWo"
                  : "row-major, C = op(A) * op(B), batches stored one after another"));
  if (!ctx.op->epilogue.empty())
    w.comment("Epilogue:     " + describeEpilogue(ctx.op->epilogue) + " (Bias per output " +
              (conv ? "channel" : "column") + ", Residual shaped as C)");
}

}  // namespace detail

GeneratedKernel generateKernel(const OperatorSpec& op, const SearchSpace& space,
                               const Config& config, Backend backend,
                               const CodegenOptions& options) {
  op.validate();
  if (!space.contains(config))
    throw InputError("codegen: the configuration is not a point of the operator's space");
  detail::KernelContext ctx{&op, backend, options.entry, space.format(config), options.maxGridZ};
  if (ctx.maxGridZ < 1) throw InputError("codegen: maxGridZ must be at least 1");
  const bool cpu = backend == Backend::Cpu;
  if (ctx.entry.empty()) ctx.entry = cpu ? "opevo_cpu_kernel" : "opevo_kernel";
  if (layout::isLayoutSpace(space)) {
    if (op.kind == OpKind::Conv2D) {
      const layout::Conv2DBlocking b = layout::conv2dBlocking(op, space, config);
      return cpu ? detail::conv2dLayoutCpu(ctx, b) : detail::conv2dLayoutGpu(ctx, b);
    }
    const layout::MatMulBlocking b = layout::matmulBlocking(op, space, config);
    return cpu ? detail::matmulLayoutCpu(ctx, b) : detail::matmulLayoutGpu(ctx, b);
  }
  if (isWinogradSpace(space)) {
    const WinogradTiling t = winogradTiling(op, space, config);
    return cpu ? detail::conv2dWinogradCpu(ctx, t) : detail::conv2dWinogradGpu(ctx, t);
  }
  if (isMatVecSpace(space)) {
    const MatVecTiling t = matvecTiling(op, space, config);
    return cpu ? detail::matvecCpu(ctx, t) : detail::matvecGpu(ctx, t);
  }
  if (op.kind == OpKind::Conv2D) {
    const Conv2DTiling t = conv2dTiling(op, space, config);
    return cpu ? detail::conv2dCpu(ctx, t) : detail::conv2dGpu(ctx, t);
  }
  const MatMulTiling t = matmulTiling(op, space, config);
  return cpu ? detail::matmulCpu(ctx, t) : detail::matmulGpu(ctx, t);
}

GeneratedKernel generateReferenceKernel(const OperatorSpec& op, Backend backend,
                                        const CodegenOptions& options) {
  op.validate();
  detail::KernelContext ctx{&op, backend, options.entry, "", options.maxGridZ};
  if (ctx.entry.empty()) ctx.entry = "opevo_reference";
  return backend == Backend::Cpu ? detail::referenceCpu(ctx) : detail::referenceGpu(ctx);
}

GeneratedKernel generateEpilogueKernel(const OperatorSpec& op, Backend backend,
                                       const CodegenOptions& options) {
  op.validate();
  if (backend == Backend::Cpu)
    throw InputError("codegen: the epilogue kernel is for the GPU references (cuda, hip)");
  if (op.epilogue.empty())
    throw InputError("codegen: " + op.name + " has no epilogue to generate a kernel for");
  detail::KernelContext ctx{&op, backend, options.entry, "", options.maxGridZ};
  if (ctx.entry.empty()) ctx.entry = "opevo_epilogue";
  return detail::epilogueGpu(ctx);
}

GeneratedKernel generateComparisonKernel(Backend backend) {
  if (backend == Backend::Cpu)
    throw InputError("codegen: the comparison kernel is for the GPU backends (cuda, hip)");
  return detail::comparisonGpu(backend);
}

}  // namespace opevo::codegen
