#include "cuda/cuda_measurer.h"

#include "common/error.h"
#include "cuda/cuda_driver.h"
#include "cuda/cuda_runner.h"
#include "cuda/nvrtc_compiler.h"

namespace opevo {

CudaMeasurer::CudaMeasurer(OperatorDefinition def, CudaMeasurerOptions options)
    : GpuMeasurer("cuda", codegen::Backend::Cuda, std::move(def), std::move(options)) {
  const cuda::CudaDriver& driver = cuda::CudaDriver::shared();
  if (!driver.ready()) throw InputError("the cuda backend cannot run here: " + driver.reason());
  if (!NvrtcCompiler::shared().available())
    throw InputError("the cuda backend needs NVRTC: " +
                     NvrtcCompiler::shared().unavailableReason());
  start(driver.device().describe(), cudaCompileArch(driver.device().computeCapability()));
}

CompileResult CudaMeasurer::compileSource(const std::string& source) const {
  return NvrtcCompiler::shared().compile(source, arch());
}

std::string CudaMeasurer::binaryExtension() const {
  return arch().rfind("sm_", 0) == 0 ? ".cubin" : ".ptx";
}

}  // namespace opevo
