#pragma once

#include <memory>
#include <string>

#include "cpu/cpu_runner.h"
#include "engine/measurement.h"
#include "ops/operator_json.h"
#include "worker/worker_client.h"

namespace opevo {

struct CudaMeasurerOptions {
  int compileThreads = 2;
  double timeoutSeconds = 20;  // per trial, in the worker (a fresh worker pays for cuInit)
  TimingOptions timing;
  bool coldL2 = false;         // flush L2 before each timed run
  std::string cacheDir;        // empty: $XDG_CACHE_HOME/opevo-studio/cuda-kernels
  std::string workerPath = WorkerClient::defaultWorkerPath();
};

// Tunes CUDA kernels on device 0: each configuration is generated and compiled by NVRTC for the
// device's architecture on several threads (the image is written to the cache directory), while
// an opevo-worker process checks, verifies and times the finished ones one at a time, so a
// faulting kernel costs a worker restart and never the engine.
class CudaMeasurer final : public Measurer {
 public:
  // Throws InputError when the driver or NVRTC is missing.
  CudaMeasurer(OperatorDefinition def, CudaMeasurerOptions options = {});
  ~CudaMeasurer() override;

  std::string label() const override { return "cuda: " + m_device; }
  std::string device() const override { return m_device; }
  bool isReplay() const override { return false; }
  std::string speedUnit() const override { return "TFLOPS"; }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override;
  void measureEach(const std::vector<Config>& configs, const TrialCallback& done) override;
  std::optional<Reference> reference() override;

  const std::string& arch() const { return m_arch; }

 private:
  struct Compiled;
  Compiled compile(const Config& config) const;
  Measurement timeInWorker(const Compiled& c);

  OperatorDefinition m_def;
  CudaMeasurerOptions m_options;
  std::string m_device;
  std::string m_arch;
  std::unique_ptr<WorkerClient> m_worker;
};

// Adds the device's known limit as a constraint of the space: a configuration whose block needs
// more dynamic shared memory than maxSharedBytes (the opt-in maximum) is never proposed.
void addSharedMemoryConstraint(OperatorDefinition& def, std::int64_t maxSharedBytes);

}  // namespace opevo
