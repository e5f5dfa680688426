#include "cuda/cuda_driver.h"

namespace opevo::cuda {

// Driver entry points with their ABI types (CUdevice is int, CUdeviceptr 64-bit, handles
// pointers). The _v2 names are the ones cuda.h maps the plain names to.
struct CudaDriver::Api {
  int (*init)(unsigned) = nullptr;
  int (*driverVersion)(int*) = nullptr;
  int (*deviceGet)(int*, int) = nullptr;
  int (*deviceName)(char*, int, int) = nullptr;
  int (*attribute)(int*, int, int) = nullptr;
  int (*primaryRetain)(void**, int) = nullptr;
  int (*primaryRelease)(int) = nullptr;
  int (*ctxSetCurrent)(void*) = nullptr;
  int (*ctxSynchronize)() = nullptr;
  int (*moduleLoadData)(void**, const void*) = nullptr;
  int (*moduleUnload)(void*) = nullptr;
  int (*moduleGetFunction)(void**, void*, const char*) = nullptr;
  int (*funcGetAttribute)(int*, int, void*) = nullptr;
  int (*funcSetAttribute)(void*, int, int) = nullptr;
  int (*memAlloc)(DevicePtr*, std::size_t) = nullptr;
  int (*memFree)(DevicePtr) = nullptr;
  int (*htod)(DevicePtr, const void*, std::size_t) = nullptr;
  int (*dtoh)(void*, DevicePtr, std::size_t) = nullptr;
  int (*memsetD8)(DevicePtr, unsigned char, std::size_t) = nullptr;
  int (*memsetD32)(DevicePtr, unsigned, std::size_t) = nullptr;
  int (*launch)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                void*, void**, void**) = nullptr;
  int (*eventCreate)(void**, unsigned) = nullptr;
  int (*eventDestroy)(void*) = nullptr;
  int (*eventRecord)(void*, void*) = nullptr;
  int (*eventSynchronize)(void*) = nullptr;
  int (*eventElapsed)(float*, void*, void*) = nullptr;
  int (*errorString)(int, const char**) = nullptr;
};

namespace {

template <class F>
bool bind(const SharedLibrary& lib, F& fn, const char* name) {
  fn = lib.symbol<F>(name);
  return fn != nullptr;
}

}  // namespace

std::string DeviceProperties::describe() const {
  return name + ", " + arch() + ", " + std::to_string(smCount) + " SMs, driver " +
         std::to_string(driverVersion / 1000) + "." + std::to_string((driverVersion % 1000) / 10);
}

CudaDriver& CudaDriver::shared() {
  static CudaDriver driver;
  return driver;
}

CudaDriver::CudaDriver() : m_api(std::make_unique<Api>()) {
  std::string tried;
  m_lib = SharedLibrary::openFirst({"libcuda.so.1", "libcuda.so"}, "cuInit", &tried);
  if (!m_lib) {
    m_reason = "no NVIDIA driver (tried " + tried + ")";
    return;
  }
  Api& a = *m_api;
  bool ok = bind(*m_lib, a.init, "cuInit") && bind(*m_lib, a.driverVersion, "cuDriverGetVersion") &&
            bind(*m_lib, a.deviceGet, "cuDeviceGet") &&
            bind(*m_lib, a.deviceName, "cuDeviceGetName") &&
            bind(*m_lib, a.attribute, "cuDeviceGetAttribute") &&
            bind(*m_lib, a.primaryRetain, "cuDevicePrimaryCtxRetain") &&
            bind(*m_lib, a.primaryRelease, "cuDevicePrimaryCtxRelease_v2") &&
            bind(*m_lib, a.ctxSetCurrent, "cuCtxSetCurrent") &&
            bind(*m_lib, a.ctxSynchronize, "cuCtxSynchronize") &&
            bind(*m_lib, a.moduleLoadData, "cuModuleLoadData") &&
            bind(*m_lib, a.moduleUnload, "cuModuleUnload") &&
            bind(*m_lib, a.moduleGetFunction, "cuModuleGetFunction") &&
            bind(*m_lib, a.funcGetAttribute, "cuFuncGetAttribute") &&
            bind(*m_lib, a.funcSetAttribute, "cuFuncSetAttribute") &&
            bind(*m_lib, a.memAlloc, "cuMemAlloc_v2") && bind(*m_lib, a.memFree, "cuMemFree_v2") &&
            bind(*m_lib, a.htod, "cuMemcpyHtoD_v2") && bind(*m_lib, a.dtoh, "cuMemcpyDtoH_v2") &&
            bind(*m_lib, a.memsetD8, "cuMemsetD8_v2") &&
            bind(*m_lib, a.memsetD32, "cuMemsetD32_v2") &&
            bind(*m_lib, a.launch, "cuLaunchKernel") &&
            bind(*m_lib, a.eventCreate, "cuEventCreate") &&
            bind(*m_lib, a.eventDestroy, "cuEventDestroy_v2") &&
            bind(*m_lib, a.eventRecord, "cuEventRecord") &&
            bind(*m_lib, a.eventSynchronize, "cuEventSynchronize") &&
            bind(*m_lib, a.eventElapsed, "cuEventElapsedTime") &&
            bind(*m_lib, a.errorString, "cuGetErrorString");
  if (!ok) {
    m_reason = m_lib->name() + " lacks driver API entry points this backend needs (driver too old)";
    return;
  }
  if (int rc = a.init(0); rc != 0) {
    m_reason = "cuInit failed: " + errorString(rc) + " (no usable NVIDIA GPU)";
    return;
  }
  if (int rc = a.deviceGet(&m_device, 0); rc != 0) {
    m_reason = "no CUDA device: " + errorString(rc);
    return;
  }
  char name[256] = {0};
  a.deviceName(name, sizeof name - 1, m_device);
  m_props.name = name;
  a.driverVersion(&m_props.driverVersion);
  auto attr = [&](int& out, int which) { a.attribute(&out, which, m_device); };
  attr(m_props.maxThreadsPerBlock, 1);    // MAX_THREADS_PER_BLOCK
  attr(m_props.maxBlock[0], 2);           // MAX_BLOCK_DIM_X
  attr(m_props.maxBlock[1], 3);
  attr(m_props.maxBlock[2], 4);
  attr(m_props.maxGrid[0], 5);            // MAX_GRID_DIM_X
  attr(m_props.maxGrid[1], 6);
  attr(m_props.maxGrid[2], 7);
  attr(m_props.registersPerBlock, 12);    // MAX_REGISTERS_PER_BLOCK
  attr(m_props.smCount, 16);              // MULTIPROCESSOR_COUNT
  attr(m_props.l2Bytes, 38);              // L2_CACHE_SIZE
  attr(m_props.major, 75);                // COMPUTE_CAPABILITY_MAJOR
  attr(m_props.minor, 76);
  attr(m_props.maxSharedBytesOptin, 97);  // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
  m_ready = true;
}

CudaDriver::~CudaDriver() {
  // The primary context is torn down by the driver at exit; releasing it here could run after
  // libcuda's own static destructors.
}

std::string CudaDriver::errorString(int code) const {
  const char* s = nullptr;
  if (m_api->errorString) m_api->errorString(code, &s);
  return (s ? std::string(s) : std::string("CUDA error")) + " (" + std::to_string(code) + ")";
}

void CudaDriver::check(int rc, const char* what) const {
  if (rc != 0) throw CudaError(rc, std::string(what) + ": " + errorString(rc));
}

void CudaDriver::makeCurrent() {
  if (!m_ready) throw CudaError(-1, m_reason);
  if (!m_context) check(m_api->primaryRetain(&m_context, m_device), "cuDevicePrimaryCtxRetain");
  check(m_api->ctxSetCurrent(m_context), "cuCtxSetCurrent");
}

void* CudaDriver::loadModule(const std::string& image) {
  void* module = nullptr;
  check(m_api->moduleLoadData(&module, image.c_str()), "cuModuleLoadData");
  return module;
}

void CudaDriver::unloadModule(void* module) noexcept {
  if (module) m_api->moduleUnload(module);
}

Function CudaDriver::getFunction(void* module, const std::string& name) {
  Function f = nullptr;
  check(m_api->moduleGetFunction(&f, module, name.c_str()), "cuModuleGetFunction");
  return f;
}

int CudaDriver::functionAttribute(Function f, int attribute) {
  int value = 0;
  check(m_api->funcGetAttribute(&value, attribute, f), "cuFuncGetAttribute");
  return value;
}

void CudaDriver::setFunctionAttribute(Function f, int attribute, int value) {
  check(m_api->funcSetAttribute(f, attribute, value), "cuFuncSetAttribute");
}

DevicePtr CudaDriver::alloc(std::size_t bytes) {
  DevicePtr p = 0;
  check(m_api->memAlloc(&p, bytes), "cuMemAlloc");
  return p;
}

void CudaDriver::free(DevicePtr p) noexcept { m_api->memFree(p); }

void CudaDriver::copyToDevice(DevicePtr dst, const void* src, std::size_t bytes) {
  check(m_api->htod(dst, src, bytes), "cuMemcpyHtoD");
}

void CudaDriver::copyToHost(void* dst, DevicePtr src, std::size_t bytes) {
  check(m_api->dtoh(dst, src, bytes), "cuMemcpyDtoH");
}

void CudaDriver::memset8(DevicePtr p, unsigned char value, std::size_t count) {
  check(m_api->memsetD8(p, value, count), "cuMemsetD8");
}

void CudaDriver::memset32(DevicePtr p, unsigned value, std::size_t count) {
  check(m_api->memsetD32(p, value, count), "cuMemsetD32");
}

void CudaDriver::launch(Function f, const unsigned grid[3], const unsigned block[3],
                        unsigned sharedBytes, void** args) {
  check(m_api->launch(f, grid[0], grid[1], grid[2], block[0], block[1], block[2], sharedBytes,
                      nullptr, args, nullptr),
        "cuLaunchKernel");
}

void CudaDriver::synchronize() { check(m_api->ctxSynchronize(), "kernel execution"); }

Event CudaDriver::createEvent() {
  Event e = nullptr;
  check(m_api->eventCreate(&e, 0), "cuEventCreate");
  return e;
}

void CudaDriver::destroyEvent(Event e) noexcept { m_api->eventDestroy(e); }

void CudaDriver::record(Event e) { check(m_api->eventRecord(e, nullptr), "cuEventRecord"); }

void CudaDriver::waitEvent(Event e) { check(m_api->eventSynchronize(e), "kernel execution"); }

float CudaDriver::elapsedMs(Event start, Event end) {
  float ms = 0;
  check(m_api->eventElapsed(&ms, start, end), "cuEventElapsedTime");
  return ms;
}

}  // namespace opevo::cuda
