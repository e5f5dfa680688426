#pragma once

// What the GPU tests need to run generated kernels directly, on top of the production driver
// wrapper (gpu/cuda/cuda_driver.h) so the tests exercise the same binding the backend uses.

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/kernel_codegen.h"
#include "cuda/cuda_driver.h"

namespace opevo::test {

class CudaTestDriver {
 public:
  // On failure ready() is false and reason() says why (no driver, no device).
  CudaTestDriver() : m_driver(cuda::CudaDriver::shared()) {
    if (!m_driver.ready()) {
      m_reason = m_driver.reason();
      return;
    }
    try {
      m_driver.makeCurrent();
      m_ready = true;
    } catch (const cuda::CudaError& e) {
      m_reason = e.what();
    }
  }
  ~CudaTestDriver() {
    for (void* m : m_modules) m_driver.unloadModule(m);
  }

  bool ready() const { return m_ready; }
  const std::string& reason() const { return m_reason; }
  int computeCapability() const { return m_driver.device().computeCapability(); }
  std::int64_t maxSharedBytesPerBlock() const { return m_driver.device().maxSharedBytesOptin; }

  // Loads a cubin or PTX image; "" or the driver's error. Modules live as long as this object.
  std::string load(const std::string& image) {
    try {
      m_modules.push_back(m_driver.loadModule(image));
      return "";
    } catch (const cuda::CudaError& e) {
      return e.what();
    }
  }

  // Runs entry from the last loaded module on A and B, returning C (cSize elements), or an error
  // in *failure.
  std::vector<float> run(const std::string& entry, const codegen::LaunchConfig& launch,
                         const std::vector<float>& a, const std::vector<float>& b,
                         std::size_t cSize, std::string* failure) {
    std::vector<float> c(cSize, 0.0f);
    try {
      const cuda::Function f = m_driver.getFunction(m_modules.back(), entry);
      if (launch.sharedBytes > 48 * 1024)
        m_driver.setFunctionAttribute(f, cuda::CudaDriver::kFuncMaxDynamicSharedBytes,
                                      static_cast<int>(launch.sharedBytes));
      cuda::DeviceBuffer dA(m_driver, a.size() * 4), dB(m_driver, b.size() * 4),
          dC(m_driver, cSize * 4);
      m_driver.copyToDevice(dA.get(), a.data(), dA.bytes());
      m_driver.copyToDevice(dB.get(), b.data(), dB.bytes());
      // NaN bit patterns: an element the kernel forgets to write cannot pass for a result.
      m_driver.memset32(dC.get(), 0x7fc00000u, cSize);
      void* none = nullptr;  // Bias and Residual: these operators have no epilogue
      void* args[] = {dA.address(), dB.address(), dC.address(), &none, &none};
      const auto& g = launch.grid;
      const auto& bl = launch.block;
      const unsigned grid[3] = {unsigned(g.x), unsigned(g.y), unsigned(g.z)};
      const unsigned block[3] = {unsigned(bl.x), unsigned(bl.y), unsigned(bl.z)};
      m_driver.launch(f, grid, block, unsigned(launch.sharedBytes), args);
      m_driver.synchronize();
      m_driver.copyToHost(c.data(), dC.get(), dC.bytes());
    } catch (const cuda::CudaError& e) {
      if (failure->empty()) *failure = e.what();
    }
    return c;
  }

 private:
  cuda::CudaDriver& m_driver;
  bool m_ready = false;
  std::string m_reason;
  std::vector<void*> m_modules;
};

}  // namespace opevo::test
