#pragma once

#include <memory>
#include <string>

#include "cpu/cpu_runner.h"
#include "engine/measurement.h"
#include "engine/speed_unit.h"
#include "kas/budget_solver.h"
#include "kas/kas_codegen.h"
#include "worker/worker_client.h"

namespace opevo::kas {

// oneDNN's (or the plain loop nest's) convolution of a replaced layer, timed in `worker`; its
// library names the layer ("oneDNN ... convolution of layer1.0.conv1"). nullopt when the worker
// could not time it.
std::optional<Measurer::Reference> timeConvolution(WorkerClient& worker, const ConvTarget& target,
                                                   const TimingOptions& timing,
                                                   double timeoutSeconds);

// A Canvas kernel at one replaced layer, its free sizes solved.
struct KasLayer {
  MicroDag dag;
  ConvTarget target;
  Bindings bindings{};
  std::vector<std::vector<std::int64_t>> dims;  // every node's shape there
  double flops = 0;                             // the kernel's, at this layer
};
KasLayer kasLayer(const MicroDag& dag, const ConvTarget& target, const LayerSizes& sizes);

struct KasMeasurerOptions {
  int compileThreads = 2;
  double compileTimeoutSeconds = 20;
  double timeoutSeconds = 20;  // per trial, in the worker
  // A schedule this many times slower than the fastest verified one is timed by one run, as the
  // CPU measurer's kernels are (SlowCutoff; 0: never).
  double cutoffFactor = 10;
  TimingOptions timing;
  std::string cacheDir;  // empty: defaultKernelCacheDir("kas-kernels")
  std::string workerPath = WorkerClient::defaultWorkerPath();
};

// How schedules are built and timed, as a search stores it (KasSearchSettings::measuring) and
// `opevo kas search` and `kas tune` take it, in `opevo tune`'s words: compile threads, the trial's
// timeout, the minimum time of the timed runs and the slow cut-off. The cache and the worker are
// the machine's, not the search's.
nlohmann::json measuringJson(const KasMeasurerOptions& o);
// o with the fields j holds (measuringJson's); one it lacks keeps o's value, as a search stored
// before they were has none. Throws InputError naming a field of the wrong type.
KasMeasurerOptions measuringFromJson(const nlohmann::json& j, KasMeasurerOptions o = {});
// Throws InputError naming the option at fault (a timeout of 0, a minimum time no trial can
// finish within its timeout).
void checkMeasuring(const KasMeasurerOptions& o);

// Measures schedules (kasScheduleSpace) of one kernel at one layer for real on this CPU: the fused
// kernel is generated and built here, verified against the primitive-by-primitive reference and
// timed in opevo-worker. Speed is the kernel's FLOPs per second. The reference is oneDNN's (or
// the plain loop nest's) convolution of the replaced layer, its speed given as the kernel's FLOPs
// over the convolution's time so that the two compare as times do.
class KasMeasurer final : public Measurer {
 public:
  explicit KasMeasurer(KasLayer layer, KasMeasurerOptions options = {});
  ~KasMeasurer() override;

  const SearchSpace& space() const { return m_space; }
  std::string label() const override;
  std::string device() const override { return m_device; }
  bool isReplay() const override { return false; }
  std::string speedUnit() const override { return deviceSpeedUnit("cpu"); }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override;
  void measureEach(const std::vector<Config>& configs, const TrialCallback& done) override;
  std::optional<Reference> reference() override;

  // The generated source of a schedule (for export and the GUI).
  std::string source(const Config& config) const;

 private:
  KasLayer m_layer;
  KasMeasurerOptions m_options;
  SearchSpace m_space;
  nlohmann::json m_kernelJson, m_bindingsJson;
  std::string m_device;
  std::unique_ptr<WorkerClient> m_worker;
  SlowCutoff m_cutoff;
};

}  // namespace opevo::kas
