#include "common/device_run.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>
#include <stdexcept>

#include "codegen/winograd_transforms.h"
#include "common/median.h"
#include "engine/speed_unit.h"

namespace opevo {

HostOperands::HostOperands(const OperatorBuffers& buffers, const layout::OperandLayouts* layouts,
                           bool winogradWeights)
    : a(buffers.a), b(buffers.b), residual(buffers.residual), cSize(buffers.outputSize()) {
  if (winogradWeights) {
    if (layouts) throw std::logic_error("a kernel with transformed weights has plain layouts");
    m_b = codegen::winogradWeights(buffers.op, buffers.b);
    b = m_b;
    return;
  }
  if (!layouts) return;
  auto pack = [](const layout::Layout& l, std::span<const float> plain, std::vector<float>& out) {
    out.resize(static_cast<std::size_t>(l.size()));
    l.pack(plain, out);  // throws std::invalid_argument when the layout is another operator's
    return std::span<const float>(out);
  };
  a = pack(layouts->a, buffers.a, m_a);
  b = pack(layouts->b, buffers.b, m_b);
  // The residual is added where C is written, so it comes in C's layout.
  if (!buffers.residual.empty()) residual = pack(layouts->c, buffers.residual, m_residual);
  cSize = static_cast<std::size_t>(layouts->c.size());
  cLayout = layouts->c;
}

std::shared_ptr<const HostOperands> hostOperandsFor(const OperatorBuffers& buffers,
                                                    const layout::OperandLayouts* layouts,
                                                    bool winogradWeights) {
  if (!layouts && !winogradWeights) return std::make_shared<const HostOperands>(buffers, nullptr);
  static std::mutex mutex;
  static std::uint64_t lastBuffers = 0;  // OperatorBuffers::serial: new buffers, new data
  static std::optional<layout::OperandLayouts> lastLayouts;
  static bool lastWinograd = false;
  static std::shared_ptr<const HostOperands> last;
  std::lock_guard lock(mutex);
  const bool sameLayouts = layouts
                               ? lastLayouts && lastLayouts->a == layouts->a &&
                                     lastLayouts->b == layouts->b && lastLayouts->c == layouts->c
                               : !lastLayouts;
  const bool same =
      last && lastBuffers == buffers.serial && sameLayouts && lastWinograd == winogradWeights;
  if (!same) {
    last.reset();  // its memory first: the tensors may be large
    last = std::make_shared<const HostOperands>(buffers, layouts, winogradWeights);
    lastBuffers = buffers.serial;
    lastLayouts = layouts ? std::optional(*layouts) : std::nullopt;
    lastWinograd = winogradWeights;
  }
  return last;
}

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
  m.speed = speedIn(deviceSpeedUnit("cuda"), op.flops(), m.medianMs);  // a GPU's (CUDA or HIP)
}

std::string readBinaryFile(const std::string& path, const char* loadCall) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DeviceError(-1, std::string(loadCall) + ": cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace opevo
