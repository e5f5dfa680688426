#pragma once

#include <string>

#include "backends/gpu_measurer.h"

namespace opevo {

using CudaMeasurerOptions = GpuMeasurerOptions;

// Tunes CUDA kernels on device 0: NVRTC compiles for the device's architecture (a cubin, or PTX
// when NVRTC is older than the device); the worker times with CUDA events.
class CudaMeasurer final : public GpuMeasurer {
 public:
  // Throws InputError when the driver or NVRTC is missing.
  CudaMeasurer(OperatorDefinition def, CudaMeasurerOptions options = {});

 protected:
  CompileResult compileSource(const std::string& source) const override;
  std::string binaryExtension() const override;
};

}  // namespace opevo
