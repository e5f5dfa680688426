#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ops/operator.h"
#include "space/search_space.h"

namespace opevo::codegen {

enum class Backend { Cuda, Hip, Cpu };

std::string_view backendName(Backend backend);
// "cuda", "hip" or "cpu"; throws InputError listing them otherwise.
Backend parseBackend(std::string_view name);

struct Dim3 {
  std::int64_t x = 1, y = 1, z = 1;
  std::int64_t volume() const { return x * y * z; }
};

// How the host launches a generated GPU kernel. The kernels use dynamic shared memory only, so
// sharedBytes is the whole shared memory of a block: pass it to
// cuLaunchKernel/hipModuleLaunchKernel (above 48 KiB CUDA also needs
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES set first).
struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  std::int64_t sharedBytes = 0;
};

struct CodegenOptions {
  // Name of the extern "C" entry point; empty: opevo_kernel (GPU), opevo_cpu_kernel (CPU) or
  // opevo_reference (reference kernels). Distinct names let several kernels share one source and
  // one compiler invocation.
  std::string entry;
  // Largest grid.z to launch (the device's maxGridDim[2]); Conv2D's fused (image, channel block)
  // axis is strided over when longer.
  std::int64_t maxGridZ = 65535;
};

// One kernel's source and how to launch it. Every entry point has the signature
//   extern "C" void ENTRY(const float* A, const float* B, float* C, const float* Bias,
//                         const float* Residual)
// (__global__ on GPUs): MatMul/BatchMatMul C = op(A) * op(B), row-major, batches contiguous;
// Conv2D A = input NCHW, B = weights F x C/groups x Kh x Kw, C = output NFHoWo. All fp32. C is
// fully written, the operator's epilogue applied (Bias: biasSize floats, one per output channel
// or column; Residual: shaped as C); Bias and Residual may be null when the epilogue has no bias
// or add step.
struct GeneratedKernel {
  Backend backend = Backend::Cuda;
  std::string entry;
  std::string source;
  // GPU: the launch. CPU: grid counts the iterations of the OpenMP-parallel block loops, block
  // the "threads" of one block (run one after another), sharedBytes 0.
  LaunchConfig launch;
  // Floats one thread accumulates in registers (all its virtual threads' inner tiles): above a
  // few hundred the compiler spills them to local memory.
  std::int64_t accumulators = 0;
  // One line describing the tiling.
  std::string summary;
  // The layouts of A, B and C (and Residual) as ALT primitive sequences (layout::Layout::describe)
  // when the kernel uses layouts of its own (a configuration of a joint layout space); empty for
  // the plain layouts above. Such a CPU library also exports, for the harness (not timed):
  //   long long ENTRY_packed_size(int operand)      elements of A (0), B (1), C (2) as laid out
  //   void ENTRY_pack_a / _pack_b / _pack_c(const float* plain, float* laid_out)
  //   void ENTRY_unpack_c(const float* laid_out, float* plain)
  // A CUDA/HIP kernel exports nothing more: its harness converts with core/layout's
  // Layout::pack / unpack on the host (layout::operandLayouts of the same configuration).
  std::string layoutA, layoutB, layoutC;
  bool usesLayouts() const { return !layoutC.empty(); }
  // B is the weights transformed (Winograd's U, codegen::winogradWeights), A and C plain. A CPU
  // library exports ENTRY_packed_size and ENTRY_pack_b for its harness, which converts the
  // weights once, untimed, as for a layout kernel; a CUDA/HIP kernel's harness transforms them
  // on the host with codegen::winogradWeights before the upload (GpuKernelRequest).
  bool packedWeights = false;
};

// Instantiates the operator's template (MatMul, BatchMatMul, Conv2D; see tiling.h for what each
// factor means) for a configuration of `space` (normally defaultSpace(op)). Throws InputError
// when the configuration does not fit the template. Constraints of the space are not checked here:
// callers reject configurations with space.satisfies() first.
GeneratedKernel generateKernel(const OperatorSpec& op, const SearchSpace& space,
                               const Config& config, Backend backend,
                               const CodegenOptions& options = {});

// A plain kernel with one thread (GPU) or one loop iteration (CPU) per output element and the
// same signature, used to verify tuned kernels on devices without cuBLAS/cuDNN.
GeneratedKernel generateReferenceKernel(const OperatorSpec& op, Backend backend,
                                        const CodegenOptions& options = {});

// The operator's epilogue alone (bias, relu, gelu, scale, residual add), applied in place to C by
// one GPU thread per element, with the same signature: what a library call of the plain operator
// needs after it to compute the fused one (the vendor references of fused operators). Throws
// InputError for the CPU backend or an operator without an epilogue.
GeneratedKernel generateEpilogueKernel(const OperatorSpec& op, Backend backend,
                                       const CodegenOptions& options = {});

// What the GPU backends verify a large output with, on the device: each of the launch's threads
// writes to Worst[its index] the largest |C[i] - Ref[i]| / (1 + |Ref[i]|) over the elements it
// strides over (maxRelativeError's measure, in double precision; +infinity where one is NaN), and
// the host takes the largest of them. Entry opevo_max_relative_error(const float* C, const float*
// Ref, unsigned long long n, double* Worst); launch.grid.x * launch.block.x values of Worst.
// Throws InputError for the CPU backend.
GeneratedKernel generateComparisonKernel(Backend backend);

// Element counts of the kernel arguments A, B and C.
struct OperandSizes {
  std::int64_t a = 0, b = 0, c = 0;
};
OperandSizes operandSizes(const OperatorSpec& op);
// Elements of the Bias and Residual arguments: 0 when the epilogue does not read them.
std::int64_t biasSize(const OperatorSpec& op);
std::int64_t residualSize(const OperatorSpec& op);

}  // namespace opevo::codegen
