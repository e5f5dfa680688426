#include "probe/backend_probe.h"

#include <dlfcn.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "hip/hip_runtime.h"
#include "hip/hiprtc_compiler.h"

namespace opevo {
namespace {

void* openFirst(const std::vector<const char*>& names, std::string& opened) {
  for (const char* name : names) {
    if (void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)) {
      opened = name;
      return handle;
    }
  }
  return nullptr;
}

BackendInfo probeCuda() {
  BackendInfo info{"cuda", false, "", "", {}};
  void* lib = openFirst({"libcuda.so.1", "libcuda.so"}, info.library);
  if (!lib) {
    info.reason = "no NVIDIA driver (libcuda.so.1 not found)";
    return info;
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  using GetFn = int (*)(int*, int);
  using NameFn = int (*)(char*, int, int);
  using AttrFn = int (*)(int*, int, int);
  using VersionFn = int (*)(int*);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(lib, "cuDeviceGetCount"));
  auto get = reinterpret_cast<GetFn>(dlsym(lib, "cuDeviceGet"));
  auto name = reinterpret_cast<NameFn>(dlsym(lib, "cuDeviceGetName"));
  auto attr = reinterpret_cast<AttrFn>(dlsym(lib, "cuDeviceGetAttribute"));
  auto version = reinterpret_cast<VersionFn>(dlsym(lib, "cuDriverGetVersion"));
  if (!init || !count || !get || !name || !attr) {
    info.reason = "libcuda lacks the driver API entry points";
    return info;
  }
  if (int rc = init(0); rc != 0) {
    info.reason = "cuInit failed with error " + std::to_string(rc) + " (no usable NVIDIA GPU)";
    return info;
  }
  int n = 0;
  if (count(&n) != 0 || n == 0) {
    info.reason = "the driver reports no CUDA device";
    return info;
  }
  int driver = 0;
  if (version) version(&driver);
  for (int i = 0; i < n; ++i) {
    int dev = 0;
    get(&dev, i);
    char buffer[256] = {0};
    name(buffer, sizeof buffer, dev);
    int major = 0, minor = 0, sms = 0;
    attr(&major, 75, dev);  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
    attr(&minor, 76, dev);  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
    attr(&sms, 16, dev);    // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
    info.devices.push_back({buffer, "sm_" + std::to_string(major) + std::to_string(minor) + ", " +
                                        std::to_string(sms) + " SMs, driver " +
                                        std::to_string(driver / 1000) + "." +
                                        std::to_string((driver % 1000) / 10)});
  }
  info.available = true;
  return info;
}

// Through the backend's own wrapper, so `opevo devices` says exactly why tuning on hip would be
// refused (no runtime, hipInit failing, no device, an architecture hiprtc cannot compile for).
BackendInfo probeHip() {
  const hip::HipRuntime& runtime = hip::HipRuntime::shared();
  BackendInfo info{"hip", false, runtime.library(), "", {}};
  if (!runtime.ready()) {
    info.reason = runtime.reason();
    return info;
  }
  const auto& p = runtime.device();
  info.devices.push_back({p.name, p.describe()});
  if (const HiprtcCompiler& hiprtc = HiprtcCompiler::shared(); !hiprtc.available())
    info.reason = "hiprtc is missing: " + hiprtc.unavailableReason();
  else
    info.reason = hiprtc.checkArch(p.arch);
  info.available = info.reason.empty();
  return info;
}

BackendInfo probeCpu() {
  BackendInfo info{"cpu", true, "system compiler", "", {}};
  std::string model = "CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  info.devices.push_back({model, std::to_string(std::thread::hardware_concurrency()) + " threads"});
  return info;
}

}  // namespace

std::vector<BackendInfo> probeBackends() { return {probeCuda(), probeHip(), probeCpu()}; }

std::string bestBackend(const std::vector<BackendInfo>& backends) {
  for (const auto& b : backends)
    if (b.available) return b.name;
  return "cpu";
}

}  // namespace opevo
