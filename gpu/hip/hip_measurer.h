#pragma once

#include <string>

#include "backends/gpu_measurer.h"

namespace opevo {

using HipMeasurerOptions = GpuMeasurerOptions;

// Tunes HIP kernels on AMD device 0: hiprtc compiles the same kernel source the CUDA backend
// uses into a code object for the device's gfx architecture; the worker loads it with
// hipModuleLoadData and times it with HIP events.
class HipMeasurer final : public GpuMeasurer {
 public:
  // Throws InputError naming what is missing: the HIP runtime, an AMD device, hiprtc, or a
  // device architecture hiprtc is not known to compile for.
  HipMeasurer(OperatorDefinition def, HipMeasurerOptions options = {});

 protected:
  CompileResult compileSource(const std::string& source) const override;
  std::string binaryExtension() const override { return ".hsaco"; }
};

}  // namespace opevo
