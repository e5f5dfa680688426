#pragma once

// Just enough of the CUDA driver API, opened with dlopen, to run generated kernels in tests.
// The measurement backend has its own; this one stays small and obviously correct.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codegen/kernel_codegen.h"
#include "common/shared_library.h"

namespace opevo::test {

class CudaTestDriver {
 public:
  // Opens libcuda, initialises it and makes device 0's primary context current; on failure
  // ready() is false and reason() says why (no driver, no device).
  CudaTestDriver() {
    std::string tried;
    m_lib = SharedLibrary::openFirst({"libcuda.so.1", "libcuda.so"}, "cuInit", &tried);
    if (!m_lib) {
      m_reason = "no CUDA driver (tried " + tried + ")";
      return;
    }
    bind();
    if (int rc = m_init(0); rc != 0) {
      m_reason = "cuInit failed: " + error(rc) + " (no usable NVIDIA GPU)";
      return;
    }
    if (int rc = m_deviceGet(&m_device, 0); rc != 0) {
      m_reason = "no CUDA device: " + error(rc);
      return;
    }
    if (int rc = m_primaryRetain(&m_context, m_device); rc != 0) {
      m_reason = "cannot retain the primary context: " + error(rc);
      return;
    }
    m_ctxSetCurrent(m_context);
    m_ready = true;
  }
  ~CudaTestDriver() {
    for (void* m : m_modules) m_moduleUnload(m);
    if (m_ready) m_primaryRelease(m_device);
  }

  bool ready() const { return m_ready; }
  const std::string& reason() const { return m_reason; }

  int computeCapability() const {
    int major = 0, minor = 0;
    m_attribute(&major, 75, m_device);  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
    m_attribute(&minor, 76, m_device);  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
    return major * 10 + minor;
  }
  std::int64_t maxSharedBytesPerBlock() const {
    int bytes = 0;
    m_attribute(&bytes, 97, m_device);  // ..._MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    return bytes;
  }

  // Loads a cubin or PTX image; "" or the driver's error. Modules live as long as the driver.
  std::string load(const std::string& image) {
    void* module = nullptr;
    if (int rc = m_moduleLoadData(&module, image.c_str()); rc != 0)
      return "cuModuleLoadData: " + error(rc);
    m_modules.push_back(module);
    return "";
  }

  // Runs entry from the last loaded module on A and B, returning C (size elements of C), or an
  // error in *failure.
  std::vector<float> run(const std::string& entry, const codegen::LaunchConfig& launch,
                         const std::vector<float>& a, const std::vector<float>& b,
                         std::size_t cSize, std::string* failure) {
    std::vector<float> c(cSize, 0.0f);
    void* function = nullptr;
    std::uint64_t dA = 0, dB = 0, dC = 0;
    auto check = [&](int rc, const char* what) {
      if (rc != 0 && failure->empty()) *failure = std::string(what) + ": " + error(rc);
      return rc == 0;
    };
    if (!check(m_moduleGetFunction(&function, m_modules.back(), entry.c_str()),
               "cuModuleGetFunction"))
      return c;
    // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: needed above 48 KiB.
    if (launch.sharedBytes > 48 * 1024 &&
        !check(m_funcSetAttribute(function, 8, static_cast<int>(launch.sharedBytes)),
               "cuFuncSetAttribute"))
      return c;
    const std::size_t bytesA = a.size() * 4, bytesB = b.size() * 4, bytesC = cSize * 4;
    if (check(m_memAlloc(&dA, bytesA), "cuMemAlloc") &&
        check(m_memAlloc(&dB, bytesB), "cuMemAlloc") &&
        check(m_memAlloc(&dC, bytesC), "cuMemAlloc") &&
        check(m_htod(dA, a.data(), bytesA), "cuMemcpyHtoD") &&
        check(m_htod(dB, b.data(), bytesB), "cuMemcpyHtoD") &&
        // NaN bit patterns: an element the kernel forgets to write cannot pass for a result.
        check(m_memsetD32(dC, 0x7fc00000u, cSize), "cuMemsetD32")) {
      void* args[] = {&dA, &dB, &dC};
      const auto& g = launch.grid;
      const auto& bl = launch.block;
      if (check(m_launch(function, unsigned(g.x), unsigned(g.y), unsigned(g.z), unsigned(bl.x),
                         unsigned(bl.y), unsigned(bl.z), unsigned(launch.sharedBytes), nullptr,
                         args, nullptr),
                "cuLaunchKernel") &&
          check(m_synchronize(), "kernel execution"))
        check(m_dtoh(c.data(), dC, bytesC), "cuMemcpyDtoH");
    }
    for (std::uint64_t p : {dA, dB, dC})
      if (p) m_memFree(p);
    return c;
  }

 private:
  std::string error(int rc) const {
    const char* s = nullptr;
    if (m_errorString) m_errorString(rc, &s);
    return (s ? std::string(s) : "CUDA error") + " (" + std::to_string(rc) + ")";
  }

  void bind() {
    auto get = [&](auto& fn, const char* name) {
      fn = m_lib->symbol<std::remove_reference_t<decltype(fn)>>(name);
    };
    get(m_init, "cuInit");
    get(m_deviceGet, "cuDeviceGet");
    get(m_attribute, "cuDeviceGetAttribute");
    get(m_primaryRetain, "cuDevicePrimaryCtxRetain");
    get(m_primaryRelease, "cuDevicePrimaryCtxRelease_v2");
    get(m_ctxSetCurrent, "cuCtxSetCurrent");
    get(m_moduleLoadData, "cuModuleLoadData");
    get(m_moduleUnload, "cuModuleUnload");
    get(m_moduleGetFunction, "cuModuleGetFunction");
    get(m_funcSetAttribute, "cuFuncSetAttribute");
    get(m_memAlloc, "cuMemAlloc_v2");
    get(m_memFree, "cuMemFree_v2");
    get(m_htod, "cuMemcpyHtoD_v2");
    get(m_dtoh, "cuMemcpyDtoH_v2");
    get(m_memsetD32, "cuMemsetD32_v2");
    get(m_launch, "cuLaunchKernel");
    get(m_synchronize, "cuCtxSynchronize");
    get(m_errorString, "cuGetErrorString");
  }

  std::unique_ptr<SharedLibrary> m_lib;
  bool m_ready = false;
  std::string m_reason;
  int m_device = 0;
  void* m_context = nullptr;
  std::vector<void*> m_modules;

  int (*m_init)(unsigned) = nullptr;
  int (*m_deviceGet)(int*, int) = nullptr;
  int (*m_attribute)(int*, int, int) = nullptr;
  int (*m_primaryRetain)(void**, int) = nullptr;
  int (*m_primaryRelease)(int) = nullptr;
  int (*m_ctxSetCurrent)(void*) = nullptr;
  int (*m_moduleLoadData)(void**, const void*) = nullptr;
  int (*m_moduleUnload)(void*) = nullptr;
  int (*m_moduleGetFunction)(void**, void*, const char*) = nullptr;
  int (*m_funcSetAttribute)(void*, int, int) = nullptr;
  int (*m_memAlloc)(std::uint64_t*, std::size_t) = nullptr;
  int (*m_memFree)(std::uint64_t) = nullptr;
  int (*m_htod)(std::uint64_t, const void*, std::size_t) = nullptr;
  int (*m_dtoh)(void*, std::uint64_t, std::size_t) = nullptr;
  int (*m_memsetD32)(std::uint64_t, unsigned, std::size_t) = nullptr;
  int (*m_launch)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                  void*, void**, void**) = nullptr;
  int (*m_synchronize)() = nullptr;
  int (*m_errorString)(int, const char**) = nullptr;
};

}  // namespace opevo::test
