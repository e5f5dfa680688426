#pragma once

// The CUDA driver API, opened with dlopen (libcuda.so.1) so that every binary builds and runs on
// machines without an NVIDIA driver; the measurement worker, the CUDA measurer and the GPU tests
// all use this one wrapper. Every call that can fail throws CudaError carrying the driver's code
// and message, so callers can tell a launch error from a fault without checking each return.

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/device_memory.h"
#include "common/shared_library.h"

namespace opevo::cuda {

using DevicePtr = std::uint64_t;
using Function = void*;
using Event = void*;

// CUresult codes the backend tells apart (cuda.h).
inline constexpr int kErrorInvalidValue = 1;
inline constexpr int kErrorOutOfMemory = 2;
inline constexpr int kErrorLaunchOutOfResources = 701;
inline constexpr int kErrorLaunchTimeout = 702;

class CudaError : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

// What the measurement needs to know about device 0, read once when the driver opens.
struct DeviceProperties {
  std::string name;
  int major = 0, minor = 0;
  int smCount = 0;
  int maxThreadsPerBlock = 0;
  int maxSharedBytesOptin = 0;  // per block, with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  int registersPerBlock = 0;
  int l2Bytes = 0;
  int maxGrid[3] = {0, 0, 0};
  int maxBlock[3] = {0, 0, 0};
  int driverVersion = 0;  // 13000 for 13.0

  int computeCapability() const { return major * 10 + minor; }
  std::string arch() const { return "sm_" + std::to_string(computeCapability()); }
  // "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, driver 13.0"
  std::string describe() const;
};

class CudaDriver {
 public:
  // The process-wide driver, opened and initialised on first use (never throws: see ready()).
  static CudaDriver& shared();

  bool ready() const { return m_ready; }
  // Why ready() is false: no driver library, cuInit failed, no device.
  const std::string& reason() const { return m_reason; }
  const DeviceProperties& device() const { return m_props; }

  // Makes device 0's primary context current on the calling thread, retaining it on first use.
  // While tuning, the parent process only reads attributes and creates no context (it would cost
  // device memory next to the worker's); a network's end-to-end run after tuning
  // (net/cuda_network.h) is the one use in the parent.
  void makeCurrent();

  // A module from a cubin or PTX image.
  void* loadModule(const std::string& image);
  void unloadModule(void* module) noexcept;
  Function getFunction(void* module, const std::string& name);
  int functionAttribute(Function f, int attribute);  // CU_FUNC_ATTRIBUTE_*
  void setFunctionAttribute(Function f, int attribute, int value);

  DevicePtr alloc(std::size_t bytes);
  void free(DevicePtr p) noexcept;
  void copyToDevice(DevicePtr dst, const void* src, std::size_t bytes);
  void copyToHost(void* dst, DevicePtr src, std::size_t bytes);
  void memset8(DevicePtr p, unsigned char value, std::size_t count);
  void memset32(DevicePtr p, unsigned value, std::size_t count);

  void launch(Function f, const unsigned grid[3], const unsigned block[3], unsigned sharedBytes,
              void** args);
  void synchronize();

  Event createEvent();
  void destroyEvent(Event e) noexcept;
  void record(Event e);
  void waitEvent(Event e);
  float elapsedMs(Event start, Event end);

  // The driver's name for a CUresult, e.g. "an illegal memory access was encountered (700)".
  std::string errorString(int code) const;

  // CU_FUNC_ATTRIBUTE_* and CU_DEVICE_ATTRIBUTE_* values used here.
  static constexpr int kFuncMaxThreadsPerBlock = 0;
  static constexpr int kFuncNumRegs = 4;
  static constexpr int kFuncMaxDynamicSharedBytes = 8;

  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;
  ~CudaDriver();

 private:
  CudaDriver();
  struct Api;
  void check(int rc, const char* what) const;

  std::unique_ptr<SharedLibrary> m_lib;
  std::unique_ptr<Api> m_api;
  bool m_ready = false;
  std::string m_reason;
  DeviceProperties m_props;
  int m_device = 0;
  void* m_context = nullptr;
};

using DeviceBuffer = opevo::DeviceBuffer<CudaDriver>;

}  // namespace opevo::cuda
