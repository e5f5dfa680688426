#include "common/device_run.h"

#include <fstream>
#include <iterator>

namespace opevo {

GpuRunResult deviceFailure(const DeviceError& e) {
  GpuRunResult r;
  const std::string what = e.what();
  bool launch = false;
  for (const char* call : {"cuLaunchKernel", "cuFunc", "cuModule", "hipModule", "hipFunc"})
    launch = launch || what.rfind(call, 0) == 0;
  r.measurement.status = launch ? TrialStatus::LaunchError : TrialStatus::RuntimeFault;
  r.measurement.message = what;
  r.contextLost = true;
  return r;
}

void finishTiming(Measurement& m, std::vector<double> times, const OperatorSpec& op) {
  m.timesMs = std::move(times);
  m.medianMs = median(m.timesMs);
  m.speed = m.medianMs > 0 ? op.flops() / (m.medianMs * 1e-3) / 1e12 : 0;
}

std::string readBinaryFile(const std::string& path, const char* loadCall) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DeviceError(-1, std::string(loadCall) + ": cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace opevo
