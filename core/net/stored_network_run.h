#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/run_status.h"
#include "net/kept_network.h"
#include "net/network_tuning.h"
#include "net/torch_script.h"
#include "store/records.h"

namespace opevo {
class Store;
}

namespace opevo::net {

// A stored network run as a reader sees it, read from the store alone: nothing is built, tuned,
// locked or measured, so a run tuned on a GPU reads on a machine without one, and a run another
// process tunes reads as far as it got. `opevo net runs ID` prints it; the Networks page shows it.
// A finished run's figures are the ones its end stored; an unfinished run's come from its stored
// units and trials, as the scheduler saw them (each task's best working trial).

struct StoredNetworkTask {
  std::string name;
  std::int64_t weight = 1;  // Task::weightCount()
  int trials = 0;
  std::optional<double> bestMs;  // none until a configuration worked
  // The configuration it ran with: its best, or once the run ended the untuned one of a task
  // that had none (empty: none yet).
  std::string config;
  // Its library's time, where the end timed them (net tune --task-references, and on a GPU).
  std::optional<double> referenceMs;
  std::string referenceLibrary, referenceError;
  // What an earlier task's choice asked of its output layout (joint mode, topological
  // scheduler; net/layout_constraints.h): pinned, or left free when no valid configuration had
  // it. A residual ties the whole output layout to the task it meets in the residual; a depthwise
  // convolution's input ties the channel blocks alone (layout.out_c), the depthwise task's to its
  // producer's or, where the producer was tuned after it, the producer's to the depthwise task's;
  // a 1x1 convolution's input ties its input layout to its producer's output layout.
  struct LayoutConstraint {
    ConstraintOutcome outcome = ConstraintOutcome::NoValidConfiguration;
    std::string by, tensor, outputLayout;  // outputLayout: the parameters pinned
    // Runs stored before the field had residual links alone.
    LinkKind link = LinkKind::Residual;
    // A depthwise-input link the other way round: `by` is the depthwise task, reading this
    // task's output (`tensor`) as its input; otherwise this task reads `by`'s.
    bool byReadsIt = false;
  };
  std::optional<LayoutConstraint> layoutConstraint;
};

// The task's layout constraint in a sentence, as `opevo net tune` and `net runs ID` print it:
// "dw: channel blocks pinned to expand's, whose output expand_relu it reads as its depthwise
// input (layout.out_c=1,48)", "b: output layout pinned to a's, which it meets in the residual
// a_out (...)"; empty where it has none.
std::string layoutConstraintText(const StoredNetworkTask& task);

// One unit of trials the scheduler gave a task, in order.
struct StoredNetworkUnit {
  int task = 0;
  int unitTrials = 0;                // measured in it
  int trials = 0;                    // the network's trials after it
  std::optional<double> estimateMs;  // sum of weight x best then (none while a task has none)
  // A unit of the twins' closing round: the twins its configurations came from (one name per
  // trial); empty for the scheduler's units and runs stored before the round.
  std::vector<std::string> closingFrom;
};

struct StoredEndToEnd {
  double ms = 0;  // median of whole forward passes
  int runs = 0;   // how many were timed
  double tasksMs = 0, conversionsMs = 0, fixedMs = 0;
  std::vector<std::pair<std::string, double>> steps;  // each step's median alone, by layer
  bool verified = false;
  double error = -1;   // the output's max relative error against its reference
  std::string device;  // the GPU it ran on (empty: this CPU, against libtorch)
  double compileSeconds = 0;
  std::string referenceName;  // "libtorch 1.13.0", or the device's reference kernels
  TorchForm referenceForm = TorchForm::Eager;  // how libtorch ran (runs stored before: eagerly)
  // The stored form's name where this version knows no such form (a later version's run): the
  // run still reads, its reference named as stored, and referenceForm is left Eager.
  std::string unknownReferenceForm;
  std::optional<double> referenceMs;  // libtorch's best median (none on a GPU)
  int referenceThreads = 0, referenceProcesses = 0;
  std::string referenceMissing;  // why there is no libtorch time, when there is none
};

// What `net tune` (or a race on the Networks page) ran on the CPU after the tuned network to
// compare it with (ConcludeOptions::untunedToo), and the network it kept; all empty where nothing
// ran.
struct NetworkComparison {
  // The untuned configurations end to end, in the same process; none where they were not run.
  std::optional<StoredEndToEnd> untuned;
  bool untunedIsTuned = false;  // not run: every task's chosen configuration is its untuned one
  std::string untunedError;     // why the untuned run failed, when it did
  // The network run whose conclude ran the untuned network, where a race's contender shared it
  // (ConcludeOptions::untunedRuns); 0: this run's own.
  std::int64_t untunedRunBy = 0;
  // Each task's configuration that ran faster in the chain, tuned or untuned, run end to end
  // after both (net/chain_choice.h); none where that is one of the two, or untuned did not run.
  std::optional<StoredEndToEnd> mixed;
  std::vector<std::string> mixedUntunedTasks;  // the tasks it switched to untuned
  std::string mixedError;                      // why it failed, when it did
  // The network kept once the untuned configurations ran (none where they did not): what `net
  // export` writes.
  std::optional<KeptNetwork> kept;

  // The kept network's run where it is not the tuned one (the untuned or the mixed network);
  // null where the tuned one was kept, nothing was, or a result edited by hand lacks that run.
  const StoredEndToEnd* keptOtherRun() const;
};

struct StoredNetworkRun {
  NetworkRecord record;
  RunStatus status =
      RunStatus::Running;  // as LiveStatus reads it (a dead "running" is interrupted)
  NetworkTuningPlan plan;
  std::string planNote;  // how its plan differs from a new run's (storedPlanNote); empty: none
  int trials = 0;        // measured so far
  std::vector<StoredNetworkTask> tasks;
  std::vector<StoredNetworkUnit> units;
  bool concluded = false;  // its end ran (tasks' bests and configurations as it chose them)
  std::optional<double> sumOfTasksMs;
  std::optional<double> sumOfReferencesMs, libraryNetworkMs;
  std::optional<StoredEndToEnd> endToEnd;
  NetworkComparison comparison;
  std::string endToEndMissing;  // why there is none, when it concluded without one
  std::string endToEndError;    // the device's error, when its end-to-end run failed
  // Why the result its end stored does not read (not JSON, or fields of the wrong kind); the
  // run is then read as one that never concluded (its tasks' bests from their trials), as its
  // trials are all still there.
  std::string resultError;
};

// A run end's figures from the result it stored (NetworkSession::resultJson, and `opevo net run
// --json`'s alike); none when it did not run end to end.
std::optional<StoredEndToEnd> endToEndFromResult(const nlohmann::json& result);

// The comparison a run end stored beside its result (NetworkSession::conclude). Throws
// InputError naming `where` for a kept network that does not read (keptNetworkFromResult).
NetworkComparison comparisonFromResult(const nlohmann::json& result, const std::string& where);

// Throws InputError naming the run when there is none with that id, or its stored network, params
// or plan do not read; a stored result that does not read sets resultError instead.
StoredNetworkRun readStoredNetworkRun(const Store& store, std::int64_t id);

}  // namespace opevo::net
