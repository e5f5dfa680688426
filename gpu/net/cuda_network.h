#pragma once

#include <memory>
#include <string>
#include <vector>

#include "net/network_program.h"

namespace opevo::net {

// A network run end to end on the CUDA device: every kernel of a CUDA NetworkProgram compiled by
// NVRTC side by side (one module each), its tensors and parameters in device memory, and its
// steps launched in order on the default stream, as the tuned network would run in production.
// It runs in this process, in the device's primary context: a kernel that faults ends the
// context, and every later call throws DeviceError (`net tune` stores the tuned network first).
class CudaNetworkRun {
 public:
  // Throws DeviceError when there is no CUDA device, a kernel's launch would break a limit of the
  // device (naming the step) or a runtime call fails, std::runtime_error with NVRTC's log when a
  // kernel does not compile, InputError for a program of another backend.
  explicit CudaNetworkRun(NetworkProgram program);
  ~CudaNetworkRun();
  CudaNetworkRun(const CudaNetworkRun&) = delete;
  CudaNetworkRun& operator=(const CudaNetworkRun&) = delete;

  // One forward pass; the output tensor. Every tensor a step writes starts as NaN, so an element
  // no kernel wrote shows in the output.
  const std::vector<float>& forward();
  // Whole forward passes timed with CUDA events (ms), after `warmup` untimed ones.
  std::vector<double> time(int warmup, int runs);
  // The median time of each step alone, by name.
  std::vector<StepTime> stepTimes(int runs);
  // "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, driver 13.0"
  std::string device() const;
  // Seconds NVRTC took for all modules, side by side.
  double compileSeconds() const { return m_compileSeconds; }

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
  double m_compileSeconds = 0;
};

}  // namespace opevo::net
