#pragma once

#include <memory>
#include <string>

#include "codegen/compile_result.h"
#include "codegen/kernel_codegen.h"
#include "cpu/cpu_runner.h"
#include "engine/measurement.h"
#include "ops/operator_json.h"
#include "worker/worker_client.h"

namespace opevo {

struct GpuMeasurerOptions {
  int compileThreads = 2;
  double timeoutSeconds =
      20;  // per trial, in the worker (a fresh worker pays for the runtime's init)
  TimingOptions timing;
  // A kernel whose checked run is this many times slower than the fastest verified so far is
  // timed by one run (TimingOptions::cutoffMs); 0 times every kernel fully.
  double cutoffFactor = 10;
  bool coldL2 = false;   // flush L2 before each timed run
  std::string cacheDir;  // empty: $XDG_CACHE_HOME/opevo-studio/<backend>-kernels
  std::string workerPath = WorkerClient::defaultWorkerPath();
};

// What the CUDA and HIP measurers share: each configuration is generated and compiled for the
// device's architecture on several threads (the image is written to the cache directory), while
// an opevo-worker process checks, verifies and times the finished ones one at a time, so a
// faulting kernel costs a worker restart and never the engine. A subclass checks its runtime and
// compiler, then calls start(), and supplies the compiler.
class GpuMeasurer : public Measurer {
 public:
  ~GpuMeasurer() override;

  std::string label() const override { return m_backend + ": " + m_device; }
  std::string device() const override { return m_device; }
  bool isReplay() const override { return false; }
  std::string speedUnit() const override { return "TFLOPS"; }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override;
  void measureEach(const std::vector<Config>& configs, const TrialCallback& done) override;
  std::optional<Reference> reference() override;

  const std::string& arch() const { return m_arch; }

 protected:
  // backend: the worker protocol's name ("cuda", "hip").
  GpuMeasurer(std::string backend, codegen::Backend codegenBackend, OperatorDefinition def,
              GpuMeasurerOptions options);
  // Creates the cache directory and the worker once the subclass knows the device.
  void start(std::string device, std::string arch);
  virtual CompileResult compileSource(const std::string& source) const = 0;
  virtual std::string binaryExtension() const = 0;  // ".cubin", ".hsaco"

 private:
  struct Compiled;
  Compiled compile(const Config& config) const;
  Measurement timeInWorker(const Compiled& c);

  std::string m_backend;
  codegen::Backend m_codegenBackend;
  OperatorDefinition m_def;
  GpuMeasurerOptions m_options;
  std::string m_device;
  std::string m_arch;
  std::unique_ptr<WorkerClient> m_worker;
  SlowCutoff m_cutoff;
};

// The local memory one CUDA thread may have (every device since compute capability 2.0).
inline constexpr std::int64_t kCudaLocalBytesPerThread = 512 * 1024;

// Adds the device's known limits as one constraint of the space (one instantiation of the
// template per check): a configuration whose block needs more dynamic shared memory than
// maxSharedBytes (the opt-in maximum on CUDA, the LDS size on AMD), or whose thread accumulates
// maxLocalBytesPerThread or more (0: not checked), is never proposed. The accumulators are not
// all a thread keeps (its staged operands come on top), hence "or more": on an H200 every
// configuration with 512 KiB or more of them failed to launch (cuLaunchKernel: invalid argument).
void addDeviceLimitConstraint(OperatorDefinition& def, std::int64_t maxSharedBytes,
                              codegen::Backend backend = codegen::Backend::Cuda,
                              std::int64_t maxLocalBytesPerThread = 0);

}  // namespace opevo
