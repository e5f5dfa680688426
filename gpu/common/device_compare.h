#pragma once

// Verification of large outputs on the device (docs/performance.md): the output's copy back to the
// host and the comparison there grew with the output, and C2's 287 MB made them most of the time
// between its trials on the H200. Here the reference goes to the device once per operator, a
// kernel compares, and the host reads back one partial result a thread. The measure (in double
// precision) and its tolerance are maxRelativeError's.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "codegen/compile_result.h"
#include "codegen/kernel_codegen.h"
#include "common/device_memory.h"
#include "cpu/operator_buffers.h"

namespace opevo {

// Outputs smaller than this are compared on the host, as they always were: the copy is short
// there, and the host's comparison is the one the tests have checked longest.
inline constexpr std::size_t kDeviceCompareMin = std::size_t{1} << 22;

template <class Api>
class DeviceComparison {
 public:
  using Compile = std::function<CompileResult(const std::string&)>;

  // compile: the backend's compiler (NVRTC, hiprtc), run on the first large output.
  DeviceComparison(codegen::Backend backend, Compile compile)
      : m_kernel(codegen::generateComparisonKernel(backend)), m_compile(std::move(compile)) {}
  DeviceComparison(const DeviceComparison&) = delete;
  DeviceComparison& operator=(const DeviceComparison&) = delete;

  // maxRelativeError of the output in c against buffers.reference, computed on the device; nullopt
  // for a small output, or when the kernel cannot run (it did not compile or load, or a call
  // failed and left the context usable): the caller then compares on the host. A failure that
  // leaves the context unusable is thrown, as any device error of a trial is.
  std::optional<double> maxRelativeError(Api& api, const DeviceBuffer<Api>& c,
                                         const OperatorBuffers& buffers) {
    const std::size_t n = c.bytes() / sizeof(float);
    if (n < kDeviceCompareMin || n != buffers.reference.size()) {
      m_reference.reset();  // a large operator's 287 MB are not kept for a small one's trials
      return std::nullopt;
    }
    if (m_unusable) return std::nullopt;
    try {
      if (!ready(api)) return std::nullopt;
      ++m_comparisons;
      return compare(api, c, buffers);
    } catch (const DeviceError& e) {
      m_unusable = true;
      m_why = std::string("the comparison kernel failed: ") + e.what();
      try {
        api.synchronize();
      } catch (const DeviceError& lost) {
        // The context is lost: the trial's failure, named after the call that found it, and
        // the worker's end, as for a kernel's own fault.
        throw DeviceError(lost.code(), std::string(lost.what()) + " (after " + m_why + ")");
      }
      return std::nullopt;
    }
  }

  // After a verdict of the device the host contradicted: a kernel that wrote past its output may
  // have damaged the reference there, so it is copied again for the next comparison.
  void forgetReference() { m_reference.reset(); }

  // Why large outputs are compared on the host; empty while the device compares them.
  const std::string& unusableBecause() const { return m_why; }
  // How many outputs the device has compared, and where its copy of the reference is (0: none);
  // for tests and diagnostics.
  int comparisons() const { return m_comparisons; }
  std::uint64_t referenceOnDevice() const { return m_reference ? m_reference->get() : 0; }

 private:
  bool ready(Api& api) {
    if (m_function) return true;
    const CompileResult compiled = m_compile(m_kernel.source);
    if (!compiled.ok) {
      m_unusable = true;
      m_why = "the comparison kernel did not compile: " + compiled.log.substr(0, 500);
      return false;
    }
    // Loaded for the worker's lifetime: the worker exits without unloading anything.
    void* module = api.loadModule(compiled.binary);
    try {
      m_function = api.getFunction(module, m_kernel.entry);
    } catch (...) {
      api.unloadModule(module);
      throw;
    }
    return true;
  }

  double compare(Api& api, const DeviceBuffer<Api>& c, const OperatorBuffers& buffers) {
    if (m_referenceOf != buffers.serial || !m_reference || m_reference->bytes() != c.bytes()) {
      m_reference.reset();
      m_reference.emplace(api, c.bytes());
      api.copyToDevice(m_reference->get(), buffers.reference.data(), c.bytes());
      m_referenceOf = buffers.serial;
    }
    const codegen::LaunchConfig& l = m_kernel.launch;
    const std::size_t threads = std::size_t(l.grid.x * l.block.x);
    if (!m_partials) m_partials.emplace(api, threads * sizeof(double));
    std::uint64_t output = c.get(), reference = m_reference->get(), partials = m_partials->get();
    unsigned long long count = c.bytes() / sizeof(float);
    void* args[] = {&output, &reference, &count, &partials};
    const unsigned grid[3] = {unsigned(l.grid.x), 1, 1};
    const unsigned block[3] = {unsigned(l.block.x), 1, 1};
    api.launch(m_function, grid, block, 0, args);
    m_worst.resize(threads);
    api.copyToHost(m_worst.data(), m_partials->get(), threads * sizeof(double));
    double worst = 0;
    for (double v : m_worst) {
      // The kernel writes +infinity for a NaN; a NaN here would be a broken kernel, and std::max
      // would drop it: it counts as the worst instead.
      if (std::isnan(v)) return INFINITY;
      worst = std::max(worst, v);
    }
    return worst;
  }

  codegen::GeneratedKernel m_kernel;
  Compile m_compile;
  void* m_function = nullptr;
  bool m_unusable = false;
  std::string m_why;
  int m_comparisons = 0;
  std::uint64_t m_referenceOf = 0;  // the OperatorBuffers::serial whose reference is on the device
  std::optional<DeviceBuffer<Api>> m_reference, m_partials;
  std::vector<double> m_worst;
};

}  // namespace opevo
