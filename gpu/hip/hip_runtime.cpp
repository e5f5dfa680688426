#include "hip/hip_runtime.h"

#include <cctype>
#include <cstring>
#include <vector>

namespace opevo::hip {

// Runtime entry points with their ABI types (hipDevice_t is int, device pointers and handles
// are pointers). Declared here rather than taken from hip_runtime_api.h so that the build needs
// no HIP headers.
struct HipRuntime::Api {
  int (*init)(unsigned) = nullptr;
  int (*deviceCount)(int*) = nullptr;
  int (*setDevice)(int) = nullptr;
  int (*deviceName)(char*, int, int) = nullptr;
  int (*attribute)(int*, int, int) = nullptr;
  int (*properties)(void*, int) = nullptr;
  int (*runtimeVersion)(int*) = nullptr;
  int (*deviceSynchronize)() = nullptr;
  int (*moduleLoadData)(void**, const void*) = nullptr;
  int (*moduleUnload)(void*) = nullptr;
  int (*moduleGetFunction)(void**, void*, const char*) = nullptr;
  int (*funcGetAttribute)(int*, int, void*) = nullptr;
  int (*malloc)(void**, std::size_t) = nullptr;
  int (*free)(void*) = nullptr;
  int (*htod)(void*, const void*, std::size_t) = nullptr;
  int (*dtoh)(void*, void*, std::size_t) = nullptr;
  int (*memsetD8)(void*, unsigned char, std::size_t) = nullptr;
  int (*memsetD32)(void*, int, std::size_t) = nullptr;
  int (*launch)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                void**, void**) = nullptr;
  int (*eventCreate)(void**) = nullptr;
  int (*eventDestroy)(void*) = nullptr;
  int (*eventRecord)(void*, void*) = nullptr;
  int (*eventSynchronize)(void*) = nullptr;
  int (*eventElapsed)(float*, void*, void*) = nullptr;
  const char* (*errorName)(int) = nullptr;
};

namespace {

// hipDeviceAttribute_t values (hip_runtime_api.h, unchanged from ROCm 5.0 on).
constexpr int kAttrL2CacheSize = 19;
constexpr int kAttrMaxGridDimX = 29;
constexpr int kAttrMaxThreadsPerBlock = 56;
constexpr int kAttrMultiprocessorCount = 63;
constexpr int kAttrMaxSharedMemoryPerBlock = 74;

// hipDeviceProp_t's gcnArchName: at byte 396 of the struct hipGetDeviceProperties fills (ROCm 5's
// layout, which later releases keep behind that unversioned name); looked for anywhere after the
// device name if a release moved it. The struct is read into a buffer far larger than any
// release's, so a bigger struct cannot overrun it.
constexpr std::size_t kPropsBytes = 16 * 1024;
constexpr std::size_t kGcnArchNameOffset = 396;

std::string gfxAt(const char* p, std::size_t room) {
  std::string s(p, strnlen(p, room));
  if (s.rfind("gfx", 0) != 0 || s.size() < 4) return "";
  return s.substr(0, s.find(':'));  // "gfx90a:sramecc+:xnack-" -> "gfx90a"
}

std::string archFromProperties(const std::vector<char>& props) {
  if (std::string arch = gfxAt(props.data() + kGcnArchNameOffset, 256); !arch.empty()) return arch;
  for (std::size_t i = 256; i + 4 < props.size(); ++i)
    if (std::string arch = gfxAt(props.data() + i, props.size() - i); !arch.empty()) return arch;
  return "";
}

void* ptr(DevicePtr p) {
  return reinterpret_cast<void*>(p);
}

}  // namespace

std::string DeviceProperties::describe() const {
  return name + ", " + (arch.empty() ? "unknown architecture" : arch) + ", " +
         std::to_string(computeUnits) + " CUs, HIP " + std::to_string(runtimeVersion / 10000000) +
         "." + std::to_string(runtimeVersion / 100000 % 100);
}

std::vector<std::string> HipRuntime::defaultCandidates() {
  return {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so", "/opt/rocm/lib/libamdhip64.so"};
}

HipRuntime& HipRuntime::shared() {
  static HipRuntime runtime(defaultCandidates());
  return runtime;
}

HipRuntime::HipRuntime(const std::vector<std::string>& candidates)
    : m_api(std::make_unique<Api>()) {
  std::string tried;
  m_lib = SharedLibrary::openFirst(candidates, "hipModuleLaunchKernel", &tried);
  if (!m_lib) {
    m_reason = "no HIP runtime (tried " + tried + ")";
    return;
  }
  Api& a = *m_api;
  bool ok = true;
  auto bind = [&](auto& fn, const char* name) {
    fn = m_lib->symbol<std::remove_reference_t<decltype(fn)>>(name);
    ok = ok && fn;
  };
  bind(a.init, "hipInit");
  bind(a.deviceCount, "hipGetDeviceCount");
  bind(a.setDevice, "hipSetDevice");
  bind(a.deviceName, "hipDeviceGetName");
  bind(a.attribute, "hipDeviceGetAttribute");
  bind(a.properties, "hipGetDeviceProperties");
  bind(a.runtimeVersion, "hipRuntimeGetVersion");
  bind(a.deviceSynchronize, "hipDeviceSynchronize");
  bind(a.moduleLoadData, "hipModuleLoadData");
  bind(a.moduleUnload, "hipModuleUnload");
  bind(a.moduleGetFunction, "hipModuleGetFunction");
  bind(a.funcGetAttribute, "hipFuncGetAttribute");
  bind(a.malloc, "hipMalloc");
  bind(a.free, "hipFree");
  bind(a.htod, "hipMemcpyHtoD");
  bind(a.dtoh, "hipMemcpyDtoH");
  bind(a.memsetD8, "hipMemsetD8");
  bind(a.memsetD32, "hipMemsetD32");
  bind(a.launch, "hipModuleLaunchKernel");
  bind(a.eventCreate, "hipEventCreate");
  bind(a.eventDestroy, "hipEventDestroy");
  bind(a.eventRecord, "hipEventRecord");
  bind(a.eventSynchronize, "hipEventSynchronize");
  bind(a.eventElapsed, "hipEventElapsedTime");
  bind(a.errorName, "hipGetErrorName");
  if (!ok) {
    m_reason = m_lib->name() + " lacks HIP runtime entry points this backend needs";
    return;
  }
  a.runtimeVersion(&m_props.runtimeVersion);
  // Without a device ROCm 5.2's hipInit fails with hipErrorInvalidDevice and the count with
  // hipErrorNoDevice; either way there is nothing to measure on.
  if (int rc = a.init(0); rc != 0) {
    m_reason = "no HIP device: hipInit failed with " + errorString(rc) + ", no usable AMD GPU (" +
               m_lib->name() + " loaded)";
    return;
  }
  if (int rc = a.deviceCount(&m_deviceCount); rc != 0 || m_deviceCount == 0) {
    m_reason = "no HIP device: " + (rc ? errorString(rc) : std::string("none found")) + " (" +
               m_lib->name() + " loaded)";
    m_deviceCount = 0;
    return;
  }
  readProperties();
  if (m_props.arch.empty()) {
    m_reason = "the HIP runtime did not say device 0's gfx architecture";
    return;
  }
  m_ready = true;
}

void HipRuntime::readProperties() {
  const Api& a = *m_api;
  char name[256] = {0};
  a.deviceName(name, sizeof name - 1, 0);
  m_props.name = name;
  auto attr = [&](int& out, int which) { a.attribute(&out, which, 0); };
  attr(m_props.l2Bytes, kAttrL2CacheSize);
  for (int i = 0; i < 3; ++i) attr(m_props.maxGrid[i], kAttrMaxGridDimX + i);
  attr(m_props.maxThreadsPerBlock, kAttrMaxThreadsPerBlock);
  attr(m_props.computeUnits, kAttrMultiprocessorCount);
  attr(m_props.maxSharedBytesPerBlock, kAttrMaxSharedMemoryPerBlock);
  std::vector<char> props(kPropsBytes, 0);
  if (a.properties(props.data(), 0) == 0) m_props.arch = archFromProperties(props);
}

HipRuntime::~HipRuntime() = default;

std::string HipRuntime::library() const {
  return m_lib ? m_lib->name() : "";
}

std::string HipRuntime::errorString(int code) const {
  const char* s = m_api->errorName ? m_api->errorName(code) : nullptr;
  return (s ? std::string(s) : std::string("HIP error")) + " (" + std::to_string(code) + ")";
}

void HipRuntime::check(int rc, const char* what) const {
  if (rc != 0) throw HipError(rc, std::string(what) + ": " + errorString(rc));
}

void HipRuntime::makeCurrent() {
  if (!m_ready) throw HipError(-1, m_reason);
  check(m_api->setDevice(0), "hipSetDevice");
}

void* HipRuntime::loadModule(const std::string& image) {
  void* module = nullptr;
  check(m_api->moduleLoadData(&module, image.data()), "hipModuleLoadData");
  return module;
}

void HipRuntime::unloadModule(void* module) noexcept {
  if (module) m_api->moduleUnload(module);
}

Function HipRuntime::getFunction(void* module, const std::string& name) {
  Function f = nullptr;
  check(m_api->moduleGetFunction(&f, module, name.c_str()), "hipModuleGetFunction");
  return f;
}

int HipRuntime::functionAttribute(Function f, int attribute) {
  int value = 0;
  check(m_api->funcGetAttribute(&value, attribute, f), "hipFuncGetAttribute");
  return value;
}

DevicePtr HipRuntime::alloc(std::size_t bytes) {
  void* p = nullptr;
  check(m_api->malloc(&p, bytes), "hipMalloc");
  return reinterpret_cast<DevicePtr>(p);
}

void HipRuntime::free(DevicePtr p) noexcept {
  m_api->free(ptr(p));
}

void HipRuntime::copyToDevice(DevicePtr dst, const void* src, std::size_t bytes) {
  check(m_api->htod(ptr(dst), src, bytes), "hipMemcpyHtoD");
}

void HipRuntime::copyToHost(void* dst, DevicePtr src, std::size_t bytes) {
  check(m_api->dtoh(dst, ptr(src), bytes), "hipMemcpyDtoH");
}

void HipRuntime::memset8(DevicePtr p, unsigned char value, std::size_t count) {
  check(m_api->memsetD8(ptr(p), value, count), "hipMemsetD8");
}

void HipRuntime::memset32(DevicePtr p, unsigned value, std::size_t count) {
  check(m_api->memsetD32(ptr(p), static_cast<int>(value), count), "hipMemsetD32");
}

void HipRuntime::launch(Function f, const unsigned grid[3], const unsigned block[3],
                        unsigned sharedBytes, void** args) {
  check(m_api->launch(f, grid[0], grid[1], grid[2], block[0], block[1], block[2], sharedBytes,
                      nullptr, args, nullptr),
        "hipModuleLaunchKernel");
}

void HipRuntime::synchronize() {
  check(m_api->deviceSynchronize(), "kernel execution");
}

Event HipRuntime::createEvent() {
  Event e = nullptr;
  check(m_api->eventCreate(&e), "hipEventCreate");
  return e;
}

void HipRuntime::destroyEvent(Event e) noexcept {
  m_api->eventDestroy(e);
}

void HipRuntime::record(Event e) {
  check(m_api->eventRecord(e, nullptr), "hipEventRecord");
}

void HipRuntime::waitEvent(Event e) {
  check(m_api->eventSynchronize(e), "kernel execution");
}

float HipRuntime::elapsedMs(Event start, Event end) {
  float ms = 0;
  check(m_api->eventElapsed(&ms, start, end), "hipEventElapsedTime");
  return ms;
}

}  // namespace opevo::hip
