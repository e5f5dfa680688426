#pragma once

// A network run as the store keeps it, from its creation (or its resume) to its result: what
// `opevo net tune` and the window's Networks page both drive, so a run started in one resumes in
// the other.

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend_factory.h"
#include "codegen/cpu_compiler.h"
#include "net/end_to_end.h"
#include "net/network_json.h"
#include "net/network_tuning.h"
#include "store/records.h"

namespace opevo {
class RunLock;
class Store;
class StoreRecorder;
}  // namespace opevo

namespace opevo::net {

// What a network run is made of, fresh or stored.
struct NetworkSource {
  std::string source;  // as given (a preset name or a path)
  std::string text;    // the network file's JSON text, kept with the run
  ParamOverrides params;
  std::string backend = "cpu";
  NetworkTuningPlan plan;
};

// A stored network run's source and record; InputError naming the id and the database when it is
// not there.
NetworkSource storedNetworkSource(const Store& store, std::int64_t id,
                                  NetworkRecord* record = nullptr);

// The options a task of a plan is measured with: `o` with the weights timed cold where the plan
// says so and the task reads weights (NetworkTuningPlan::coldWeights, Task::readsWeights), its
// activations where the plan says so (NetworkTuningPlan::coldActivations).
BackendOptions taskMeasuringOptions(BackendOptions o, const NetworkTuningPlan& plan,
                                    const Task& task);

// What conclude() is doing, for a caller that shows progress.
enum class ConcludeStep {
  TaskReferences,
  EndToEndOnCpu,
  UntunedOnCpu,
  MixedOnCpu,
  EndToEndOnDevice
};

// The untuned configurations of a network, run end to end (ConcludeOptions::untunedToo). The
// program is built from the mode and templates as well as the configurations: joint and
// joint-np share their spaces, and so their untuned configurations, but only joint propagates
// layouts.
struct UntunedRun {
  layout::TuningMode mode = layout::TuningMode::Joint;
  TaskTemplates templates;
  std::vector<Config> configs;
  EndToEnd run;
  std::int64_t networkId = 0;  // the network run whose conclude ran it
};

struct ConcludeOptions {
  EndToEndOptions endToEnd;
  bool taskReferences = false;  // time each task's library on the CPU too (always on cuda, hip)
  // false where the tasks were measured elsewhere (a cluster's agents): nothing runs here.
  bool endToEndHere = true;
  std::optional<ReferenceTimes> reference;  // libtorch, timed before the tuning (CPU runs)
  // On the CPU, after the tuned network: the untuned configurations (`opevo net run`'s) end to
  // end in the same process, checked against the same reference. A task's best is timed alone,
  // and in the chain the bests and their layouts' conversions can cost more than they gained
  // (MobileNetV2 at batch 4, docs/results/networks.md); this says so. Skipped where every task's
  // chosen configuration (its best, or untried) is its untuned one; a failure of it is named in
  // the result (untuned_error), the tuned run stored as it would be without it. Where some tasks'
  // steps ran faster untuned, the network of each task's faster configuration runs as well
  // (net/chain_choice.h), and the result names the fastest of them: what `net export` writes.
  bool untunedToo = false;
  // The untuned networks already run in this process (a race's earlier contenders): where one
  // is this run's (same mode, templates and configurations) it is compared with instead of run
  // again, and the result names the run that ran it (untuned_run_by), else the run made here is
  // added. Contenders of one mode and template set share one untuned network, and each ran it
  // again (minutes on a large network). It was timed before this contender's tuned network, not
  // just after it: the choice of net/chain_choice.h then reads medians of two moments of the
  // machine, which its 3% rule is meant to cover.
  std::vector<UntunedRun>* untunedRuns = nullptr;
  std::function<void(ConcludeStep)> onStep;
};

struct Conclusion {
  nlohmann::json result;  // as stored by finish()
  std::optional<EndToEnd> endToEnd;
  std::optional<EndToEnd> untuned;  // ConcludeOptions::untunedToo, also result["untuned"]
  std::optional<EndToEnd> mixed;    // each task's faster configuration, also result["mixed"]
  std::string endToEndError;        // the device run's failure, also in result["end_to_end_error"]
};

class NetworkSession {
 public:
  // A new run, in the store at once with a run per task (all or nothing). Its tasks are measured
  // as options say (on a cluster's agents when options.cluster is set).
  NetworkSession(Store& store, NetworkSource source, const BackendOptions& options = {});
  // Continues stored run `id` to its budget; InputError when it is missing or has finished, or
  // when its tasks no longer match its stored task runs.
  NetworkSession(Store& store, std::int64_t id, const BackendOptions& options = {});
  ~NetworkSession();
  NetworkSession(const NetworkSession&) = delete;
  NetworkSession& operator=(const NetworkSession&) = delete;

  std::int64_t id() const { return m_id; }
  const NetworkSource& source() const { return m_source; }
  const Network& network() const { return m_network; }
  const TaskGraph& graph() const { return m_graph; }
  const SearchSpace& space(std::size_t task) const { return *m_setups.at(task).space; }
  NetworkTuning& tuning() { return *m_tuning; }
  const NetworkTuning& tuning() const { return *m_tuning; }
  // Trials the run had when it was resumed (0 for a new one).
  int resumedAt() const { return m_resumedAt; }

  // One unit, stored as it ends; false once the budget is spent, every task is used up or the
  // run was stopped.
  bool step();
  // From a signal handler or another thread: the trial in hand is committed, step() returns false.
  void stopFromSignal() { m_tuning->stopFromSignal(); }
  bool interrupted() const { return m_tuning->interrupted(); }
  // The network and its task runs stored as interrupted: resumable.
  void markInterrupted();

  // Each task's best configuration, or its untuned one when none worked.
  std::vector<Config> configs() const;
  // sum of weight x best latency over the tasks; nullopt while a task has none.
  std::optional<double> sumOfTasksMs() const;
  // Times each task's reference with the task's own measurer (cuBLAS / cuDNN, followed by the
  // epilogue kernel of a fused task, on CUDA; OpenBLAS / oneDNN on the CPU), verified as a trial
  // is, and stores it on the task's run: the per-operator figure the tuned tasks are compared
  // with on the GPU backends (where libtorch is not). From then on tasksJson
  // and resultJson carry them.
  void measureTaskReferences();
  // sum of weight x reference latency, when every task's reference was measured and verified.
  std::optional<double> sumOfReferencesMs() const;
  // [{name, weight, trials, best_ms, config, tuned, layout_constraint (null, or how an earlier
  //  task's choice constrained its layout: net/layout_constraints.h)}, and after
  //  measureTaskReferences
  //  reference_library, reference_ms (null when it failed) and reference_error]
  nlohmann::json tasksJson() const;
  // [{trials, task, estimate_ms}] after each unit
  nlohmann::json curveJson() const;
  // {id, network, params, backend, algorithm, scheduler, trials, sum_of_tasks_ms (null while a
  //  task has no working kernel), tasks, curve,
  //  end_to_end_ms, verified, reference, and times_ms, fixed_kernels_ms when run end to end;
  //  sum_of_references_ms after measureTaskReferences; conclude() adds untuned, the untuned
  //  configurations' end_to_end_ms, verified, reference... when ConcludeOptions::untunedToo
  //  (and untuned_run_by, the network run whose conclude ran it where it was shared), or
  //  untuned_is_tuned: true where they are the chosen ones, or untuned_error; and with the
  //  untuned run mixed (the same, for each task's faster configuration in the chain) with
  //  mixed_untuned_tasks, or mixed_error, then chosen ("tuned", "mixed" or "untuned") and, unless
  //  tuned, chosen_configs (one per task, as formatTaskConfig writes it)}
  nlohmann::json resultJson(const EndToEnd* endToEnd) const;

  // libtorch's forward of the network as stored (before tuning: the line the tuning aims at).
  ReferenceTimes timeReference(const EndToEndOptions& options) const;
  // Runs the tuned network end to end on this CPU against libtorch (reference: already timed;
  // the network file as stored is what both read), or on the CUDA device against its plain
  // reference kernels (runEndToEndCuda; no libtorch). Not for hip.
  EndToEnd runEndToEnd(const EndToEndOptions& options,
                       std::optional<ReferenceTimes> reference = std::nullopt) const;
  // The task runs and the network finished with this result, in one transaction: until then a
  // resume takes the network up again.
  void finish(const nlohmann::json& result);
  // After the tuning, what `opevo net tune` and the Networks page both do: each task's library
  // timed (on cuda and hip, or when options ask), the tuned network run end to end where it can
  // run here (this CPU, or the CUDA device), and the run finished with the result. On CUDA the
  // run is stored as tuned before the chained run, so that a kernel that faults or hangs there,
  // or a signal, loses nothing; that run's failure is named in the result, not thrown. A CPU run
  // throws as runEndToEnd does, the run left unfinished (resumable).
  Conclusion conclude(const ConcludeOptions& options);

 private:
  void build(const std::vector<EngineOptions>& options);
  // The network on this CPU with these configurations (the file as stored is what libtorch
  // reads too); `reference`: already timed.
  EndToEnd runOnCpu(const std::vector<Config>& configs, const EndToEndOptions& options,
                    std::optional<ReferenceTimes> reference) const;
  // The stored network text as a file, for the reference program, which reads files.
  std::string writeNetworkFile(const TempDir& dir) const;

  // The network run and its resumed task runs, held for this process (RunLock); a new run's task
  // runs are held by their recorders. First, so that they are let go last.
  std::vector<std::shared_ptr<RunLock>> m_locks;
  Store& m_store;
  NetworkSource m_source;
  Network m_network;
  TaskGraph m_graph;
  std::vector<MeasurementSetup> m_setups;
  std::unique_ptr<NetworkTuning> m_tuning;
  std::vector<std::unique_ptr<StoreRecorder>> m_recorders;
  std::vector<std::optional<Measurer::Reference>> m_references;  // by task, once measured
  std::int64_t m_id = 0;
  int m_units = 0;  // stored units
  int m_resumedAt = 0;
};

}  // namespace opevo::net
