#pragma once

// The HIP runtime (libamdhip64), opened with dlopen so that every binary builds and runs on
// machines without ROCm. It has the same calls under the same names as cuda::CudaDriver, so the
// shared measurement code (common/device_run.h) drives either. Every call that can fail throws
// HipError carrying HIP's code and message.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/device_memory.h"
#include "common/shared_library.h"

namespace opevo::hip {

using DevicePtr = std::uint64_t;
using Function = void*;
using Event = void*;

class HipError : public DeviceError {
 public:
  using DeviceError::DeviceError;
};

// What the measurement needs to know about device 0, read once when the runtime opens.
struct DeviceProperties {
  std::string name;
  std::string arch;  // "gfx90a" (gcnArchName without its ":sramecc+:xnack-" features)
  int computeUnits = 0;
  int maxThreadsPerBlock = 0;
  int maxSharedBytesPerBlock = 0;
  int l2Bytes = 0;
  int maxGrid[3] = {0, 0, 0};
  int runtimeVersion = 0;  // major * 10^7 + minor * 10^5 + patch

  // "AMD Instinct MI210, gfx90a, 104 CUs, HIP 5.2"
  std::string describe() const;
};

class HipRuntime {
 public:
  // The process-wide runtime, opened and initialised on first use (never throws: see ready()).
  static HipRuntime& shared();
  static std::vector<std::string> defaultCandidates();

  // Opens the first of candidates (for tests; the backend uses shared()).
  explicit HipRuntime(const std::vector<std::string>& candidates);
  ~HipRuntime();
  HipRuntime(const HipRuntime&) = delete;
  HipRuntime& operator=(const HipRuntime&) = delete;

  bool ready() const { return m_ready; }
  // Why ready() is false: no library, hipInit failed, no device.
  const std::string& reason() const { return m_reason; }
  // The library opened, even when no device was found; empty when none loaded.
  std::string library() const;
  const DeviceProperties& device() const { return m_props; }
  int deviceCount() const { return m_deviceCount; }

  // Selects device 0 on the calling thread.
  void makeCurrent();

  // A module from an AMDGPU code object.
  void* loadModule(const std::string& image);
  void unloadModule(void* module) noexcept;
  Function getFunction(void* module, const std::string& name);
  int functionAttribute(Function f, int attribute);  // HIP_FUNC_ATTRIBUTE_*

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

  // HIP's name for an error, e.g. "hipErrorNoDevice (100)".
  std::string errorString(int code) const;

  // hipFunction_attribute values used here (hip_runtime_api.h).
  static constexpr int kFuncMaxThreadsPerBlock = 0;
  static constexpr int kFuncSharedBytes = 1;
  static constexpr int kFuncNumRegs = 4;

 private:
  struct Api;
  void check(int rc, const char* what) const;
  void readProperties();

  std::unique_ptr<SharedLibrary> m_lib;
  std::unique_ptr<Api> m_api;
  bool m_ready = false;
  std::string m_reason;
  DeviceProperties m_props;
  int m_deviceCount = 0;
};

}  // namespace opevo::hip
