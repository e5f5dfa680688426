#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cpu/cpu_runner.h"
#include "engine/measurement.h"
#include "engine/speed_unit.h"
#include "ops/operator_json.h"
#include "worker/worker_client.h"

namespace opevo {

// How the CPU measurers take a batch: every configuration's source built first (on
// compileThreads compilers, a library per source text kept in cacheDir), then each built kernel
// timed in turn by `time` (given the library's path) and reported through `done`. Timing never
// shares the cores with a compiler: a kernel timed while compilers run loses them for its OpenMP
// threads, and its time says more about the compilers than about the kernel (seen: the same code
// timed 7x apart). GPU backends overlap the two; here they take turns.
void buildThenTime(const std::vector<Config>& configs, int compileThreads,
                   double compileTimeoutSeconds, const std::string& cacheDir,
                   const std::function<std::string(const Config&)>& source,
                   const std::function<Measurement(const std::string& library)>& time,
                   const Measurer::TrialCallback& done);

struct CpuMeasurerOptions {
  int compileThreads = 2;
  double timeoutSeconds = 10;  // per trial, in the worker
  // Per kernel build: longer is a failed trial (CpuCompilerOptions::timeoutSeconds). Builds take
  // about a second here; the few that took 6-76 s (huge unrolled register tiles) ran 10-15x
  // slower than their task's best kernel, so the limit loses no good kernel.
  double compileTimeoutSeconds = 20;
  TimingOptions timing;
  // Kernels whose checked run is this many times slower than the fastest kernel measured so far
  // are timed by that run alone (TimingOptions::cutoffMs); 0 times every kernel fully.
  double cutoffFactor = 10;
  std::string cacheDir;  // empty: $XDG_CACHE_HOME/opevo-studio/cpu-kernels
  std::string workerPath = WorkerClient::defaultWorkerPath();
};

// Tunes CPU kernels for real: each configuration's C++ source (gpu/codegen's CPU template) is
// built by the system compiler on several threads while an opevo-worker process verifies and
// times the finished ones one at a time, so timing never shares the cores with a compiler.
class CpuMeasurer final : public Measurer {
 public:
  CpuMeasurer(OperatorDefinition def, CpuMeasurerOptions options = {});
  ~CpuMeasurer() override;

  std::string label() const override;
  std::string device() const override { return m_device; }
  bool isReplay() const override { return false; }
  std::string speedUnit() const override { return deviceSpeedUnit("cpu"); }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override;
  void measureEach(const std::vector<Config>& configs, const TrialCallback& done) override;
  std::optional<Reference> reference() override;

 private:
  Measurement timeInWorker(const std::string& library);

  OperatorDefinition m_def;
  CpuMeasurerOptions m_options;
  std::string m_device;
  std::unique_ptr<WorkerClient> m_worker;
  SlowCutoff m_cutoff;
};

}  // namespace opevo
