#include "hip/hip_measurer.h"

#include "common/error.h"
#include "hip/hip_runtime.h"
#include "hip/hiprtc_compiler.h"

namespace opevo {

HipMeasurer::HipMeasurer(OperatorDefinition def, HipMeasurerOptions options)
    : GpuMeasurer("hip", codegen::Backend::Hip, std::move(def), std::move(options)) {
  const hip::HipRuntime& runtime = hip::HipRuntime::shared();
  if (!runtime.ready()) throw InputError("the hip backend cannot run here: " + runtime.reason());
  const HiprtcCompiler& hiprtc = HiprtcCompiler::shared();
  if (!hiprtc.available())
    throw InputError("the hip backend needs hiprtc: " + hiprtc.unavailableReason());
  if (std::string bad = hiprtc.checkArch(runtime.device().arch); !bad.empty())
    throw InputError("the hip backend cannot compile for this device: " + bad);
  start(runtime.device().describe(), runtime.device().arch);
}

CompileResult HipMeasurer::compileSource(const std::string& source) const {
  return HiprtcCompiler::shared().compile(source, arch());
}

}  // namespace opevo
