#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "layout/tuning_mode.h"
#include "net/layout_constraints.h"
#include "net/task_scheduler.h"
#include "net/task_templates.h"
#include "net/tasks.h"
#include "net/twin_tasks.h"
#include "ops/operator_json.h"

namespace opevo::net {

struct NetworkTuningPlan {
  std::string algorithm = "opevo-m";
  std::map<std::string, std::string> settings;  // the algorithm's settings that differ
  std::uint64_t seed = 1;
  int trials = 0;  // for the whole network
  // Trials per unit the scheduler hands out (the last one gets what is left): small, so the
  // scheduler can move trials to the task where latency drops fastest.
  std::size_t unit = 4;
  SchedulerKind scheduler = SchedulerKind::Gradient;
  GradientSettings gradient;
  // Loop: every task tunes its template's loops over plain layouts. Joint: tasks with a layout
  // template (conv2d without groups) tune layouts and loops (ALT), the others their loops; the
  // network converts activations into and out of each task's layouts (docs/layouts.md).
  layout::TuningMode mode = layout::TuningMode::Loop;
  // The templates of their own that tasks take where they pay (TaskTemplates). Layout modes are
  // the CPU's only.
  TaskTemplates templates;
  // On the CPU, each task's kernels (and its library, with --task-references) are timed with
  // their weights evicted from the caches before every run (TimingOptions::coldWeights): in the
  // chain each layer's weights come from memory, and a kernel timed warm in a loop was chosen for
  // a cache it does not have there. Runs stored before this field were timed warm.
  bool coldWeights = true;
  // And with their activations (input, residual, output) evicted too (TimingOptions::
  // coldActivations): the chain finds them out of the caches as well, and a kernel timed with
  // them cached took half its time in the chain (depthwise ones most). Runs stored before this
  // field were timed with them cached, and go on so.
  bool coldActivations = true;
  // In joint topological mode, whether a depthwise convolution and its producer are tuned on one
  // channel blocking (net/layout_constraints.h's depthwise link, takesPartInClosingRound). Runs
  // stored before that pin tuned their depthwise tasks on blocks of their own (the program gives
  // them their producers' after tuning) and planned their closing round with them: their plans
  // say false, so that they resume as they were tuned, residuals alone pinned.
  bool depthwisePins = true;
  // In joint topological mode, whether a 1x1 convolution tuned after the task that writes its
  // input is tuned on that task's output layout (net/layout_constraints.h's input link), so that
  // no conversion stands between them. Off unless asked (net tune --pin-inputs): on MobileNetV2
  // the kernels pinned to their depthwise producers' blocking ran slower than the conversions
  // they saved (docs/results/networks.md); free, the program gives a 1x1 reader its producer's
  // blocking after tuning where its loops fit. Runs stored before the field pinned none.
  bool inputPins = false;
  // In joint topological mode, whether a residual's reader tuned before the residual's writer
  // keeps its choice through the closing round (takesPartInClosingRound): the writer was pinned to
  // its output layout. Runs stored before this field let the reader take part (and planned their
  // closing round so): their plans say false, so that they resume as they were tuned.
  bool residualReaderKeeps = true;
  // The closing round of twin tasks (NetworkTuning); false: none, as runs stored before it. Not
  // stored with the plan: a resume finds a run without one from its units (NetworkTuning::restore).
  bool closingRound = true;
};

// What a task is tuned as under a mode: its operator and space (see NetworkTuningPlan::mode), or
// the space of one of `templates` where it takes the task.
OperatorDefinition taskDefinition(const Task& task, layout::TuningMode mode,
                                  TaskTemplates templates = {});

// What taskDefinition gave before (batch) matmul and depthwise convolution tasks tuned layouts in
// the layout modes (their loops over plain layouts), for those tasks of runs stored then; nullopt
// for any other task.
std::optional<OperatorDefinition> formerTaskDefinition(const Task& task, layout::TuningMode mode,
                                                       TaskTemplates templates = {});

// The definition `config` belongs to: taskDefinition's, or formerTaskDefinition's for a
// configuration of a run stored before (a stored run's tuned kernels keep running as they were
// measured).
OperatorDefinition taskDefinitionOf(const Task& task, layout::TuningMode mode,
                                    TaskTemplates templates, const Config& config);

// `config` as text in the space it belongs to (taskDefinitionOf's): a resumed run's network can
// hold its tasks' former configurations beside current ones (the untuned ones), and each reads
// back only in its own space.
std::string formatTaskConfig(const Task& task, layout::TuningMode mode, TaskTemplates templates,
                             const Config& config);

// What formatTaskConfig wrote: read in taskDefinition's space, or in formerTaskDefinition's where
// the current one does not read the text, or reads it only through values it gives absent
// parameters. Throws the current space's InputError when neither reads it.
Config parseTaskConfig(const Task& task, layout::TuningMode mode, TaskTemplates templates,
                       const std::string& text);

// What one task measures with: its space and measurer, owned by the caller for the whole run.
struct TaskMeasurement {
  const SearchSpace* space = nullptr;
  Measurer* measurer = nullptr;
};

// A unit as the store keeps it: the task and the trials it measured (0: the task could not go
// on, and the scheduler dropped it).
struct UnitRecord {
  std::size_t task = 0;
  int trials = 0;
};

// What a resumed task brings: its stored trials in order, its tuning time and its store id.
struct TaskRestore {
  std::vector<std::pair<Config, Measurement>> trials;
  double secondsBefore = 0;
  std::int64_t storeId = 0;
};

// After each unit: the task, its best latency, and the network's estimate sum_i w_i * best_i.
struct NetworkUnit {
  int unit = 0;
  std::size_t task = 0;
  int trials = 0;  // the network's, after this unit
  std::optional<double> taskSeconds;
  double objectiveSeconds = 0;  // infinity while a task has no working configuration
  // The twin task each of the unit's first trials came from: its twins' best configurations,
  // measured before its tuner's proposals (net/twin_tasks.h). A resumed network finds them again
  // from the stored trials; the store keeps no field for it.
  std::vector<std::size_t> fromTwins;
  // A unit of the closing round: its twins' best configurations alone, no proposal of its tuner.
  bool closing = false;
};

// Tunes a network's tasks with one engine per task (each task has its own space and measurer),
// the task scheduler choosing which task's run the next unit of trials goes to: Ansor's
// gradient policy, round-robin, or ALT's topological order. Each task's latency is its best
// measured speed turned back into seconds (FLOPs / speed); the objective weighs it by how often
// the task occurs.
//
// A unit of a task that has twins (net/twin_tasks.h) begins with the best configurations its
// twins measured and it has not: real trials of the task, in its share of the budget. A twin's
// best found after the task's last unit would be missed, so the tuning ends with a closing round:
// the scheduler hands out the budget less a reserve (closingReserve), then each task with twins,
// in the order they run, gets one unit of its twins' best configurations it has not measured (at
// most kTwinConfigsPerUnit, none when it has measured them all), within the budget; what the
// round leaves of the reserve goes to the tasks without twins (the scheduler's choice among
// them), since a task with twins that found a new best then would leave its twins without it.
// Every unit, the closing round's too, is a stored unit (task, trials): a resume replays them.
//
// Topological: the tasks one after another by Task::position, each to its share of the budget,
// (budget - trials of the tasks before it) / (tasks from it on), at least 1: the trials / tasks
// every task plans its joint stage on, with what a task whose space ran out left over passed on.
// In joint mode (ALT, layouts propagated) a task then begins with its output layout pinned to
// the one an earlier task chose where a residual links them (net/layout_constraints.h), so
// tuners never propose another and the residual is read with no conversion; and a depthwise
// convolution (or a producer tuned after its depthwise reader) with its output channel blocking
// pinned to the other's, so that the program reads the producer's buffer as it is (or copies
// whole channel blocks into the depthwise layout) with the configuration the depthwise task was
// timed with; and a 1x1 convolution with its input blocking and output rows and columns pinned
// to read its producer's output as it is.
// Where a task has several links, the first tuned decides, or with 1x1 inputs pinned the larger
// tensor's (net/layout_constraints.h).
// (The depthwise and 1x1 pins only where the plan has them, NetworkTuningPlan::depthwisePins and
// inputPins.)
class NetworkTuning {
 public:
  // engineOptions: per task (a resumed task's trials continue its stored order); empty: defaults.
  NetworkTuning(const TaskGraph& graph, std::vector<TaskMeasurement> measurements,
                NetworkTuningPlan plan, const std::vector<EngineOptions>& engineOptions = {});

  // Before the first step of a resumed network: gives each task's engine its stored trials and
  // replays the scheduler through the stored units, so it goes on as if never interrupted. Trials
  // a task committed after its last stored unit (a kill mid-unit) become one more unit, which is
  // returned so the caller stores it. Units that do not replay with a closing round but do
  // without one are a run stored before the round existed: it goes on without one (as it was
  // tuned). Throws std::runtime_error when the units do not replay.
  std::vector<UnitRecord> restore(const std::vector<TaskRestore>& tasks,
                                  const std::vector<UnitRecord>& units);

  // Observers of every task's engine (the store, a progress printer); add before stepping.
  void addObserver(EngineObserver& observer);
  // One unit; false once the budget is spent or every task's space is used up.
  bool step();
  void run(const std::function<void(const NetworkUnit&)>& afterUnit = {});

  // From a signal handler (Ctrl-C) or another thread: every task's engine commits the trial in
  // hand and stops; step() then returns false. The network stays resumable.
  void stopFromSignal();
  bool interrupted() const { return m_stop.load(); }

  int trials() const { return m_trials; }
  // The trials kept for the closing round (0: none, or a resumed run stored before it existed).
  int closingReserve() const;
  // Whether this run ends with a closing round (false for a resumed run stored without one).
  bool closingRound() const { return m_closingRound; }
  // storedPlanNote of this run, said of the closing round it has: a resumed run stored before
  // the round existed has none, so none of its tasks takes part.
  std::string planNote(bool ended) const;
  const TaskScheduler& scheduler() const { return m_scheduler; }
  // What task i is tuned over: its own space, narrowed where an earlier task constrains it.
  const SearchSpace& space(std::size_t task) const { return *m_spaces.at(task); }
  // How an earlier task's choice constrained task i (topological scheduler, joint mode), once
  // the task has begun; nullopt when nothing did.
  const std::optional<LayoutConstraint>& layoutConstraint(std::size_t task) const {
    return m_constraints.at(task);
  }
  // Whether tasks' layout choices constrain later tasks (the free function, of this plan).
  bool propagatesAcrossTasks() const;
  const Engine& engine(std::size_t task) const { return *m_engines.at(task); }
  Engine& engine(std::size_t task) { return *m_engines.at(task); }
  // The best configuration of each task so far (nullopt: none worked yet).
  std::vector<std::optional<Config>> bestConfigs() const;
  std::optional<double> bestSeconds(std::size_t task) const;
  // The network's estimate, sum of weight x best over every task; nullopt while a task has no
  // working configuration (a sum over the others would pass for the whole network's).
  std::optional<double> estimateSeconds() const;
  const std::vector<NetworkUnit>& units() const { return m_units; }
  // The tasks of the same operator as task i, apart from the epilogue (net/twin_tasks.h).
  const std::vector<std::size_t>& twins(std::size_t task) const { return m_twins.at(task); }

 private:
  double secondsAt(std::size_t task, double speed) const;  // task's time at that speed

  const TaskGraph& m_graph;
  NetworkTuningPlan m_plan;
  // Each task's space, owned here so that it can be narrowed before the task begins.
  std::vector<std::unique_ptr<SearchSpace>> m_spaces;
  std::vector<std::unique_ptr<Engine>> m_engines;
  std::vector<double> m_flopsPerUnit;  // FLOP/s in one unit of each task's speeds
  TaskScheduler m_scheduler;
  int m_trials = 0;
  std::vector<NetworkUnit> m_units;
  std::atomic<bool> m_stop{false};
  std::vector<std::size_t> m_order;  // the tasks by position: the order they run in
  std::vector<int> m_taskTrials;     // counted unit by unit
  std::vector<bool> m_begun;
  std::vector<std::optional<LayoutConstraint>> m_constraints;
  std::vector<std::vector<std::size_t>> m_twins;
  bool m_closingRound = true;
  // Where the closing round stands, a function of the units so far (a resume replays it).
  struct Closing {
    bool begun = false, ended = false;
    // Tasks with twins (in joint topological mode, see takesPartInClosingRound).
    std::vector<bool> takesPart;
    std::vector<bool> done;   // its closing unit measured, or nothing left to measure
    std::vector<int> trials;  // measured in the round
  } m_closing;

  // What the next unit is: a task of the scheduler's (the tuner's proposals, after its twins'
  // best), or of the closing round with the twins' configurations it measures.
  struct Next {
    std::size_t task = 0;
    bool closing = false;
    std::vector<TwinProposal> twins;  // the closing round's
  };
  std::optional<Next> next(const MeasuredTrials& measured);
  // The trials the scheduler hands out before the closing round (the budget less its reserve).
  int mainBudget() const;
  std::vector<UnitRecord> replayAll(const std::vector<TaskRestore>& tasks,
                                    const std::vector<UnitRecord>& units);

  // Before a task's first unit: an earlier task's choice constrains it where layouts propagate.
  void begin(std::size_t task);
  // Topological: the trials the task may still take of its share of the scheduler's budget
  // (mainBudget); otherwise unbounded.
  int shareLeft(std::size_t task) const;
  // After a unit of `trials` given to the task: counted, and a spent share closes the task.
  void countUnit(std::size_t task, int trials);
  void replayUnit(std::size_t task, int trials, const std::vector<TaskRestore>& tasks,
                  std::vector<int>& counted);
  // twinProposals for the task's next unit of at most `limit` trials, over each task's trials
  // as `measured` gives them.
  std::vector<TwinProposal> twinsFirst(std::size_t task, std::size_t limit,
                                       const MeasuredTrials& measured) const;
};

// Whether a plan's tasks' layout choices constrain later tasks: the topological scheduler in joint
// mode (ALT's propagation, net/layout_constraints.h).
bool propagatesAcrossTasks(const NetworkTuningPlan& plan);

// The tasks by position (a task's first occurrence): the order a topological run tunes them in,
// which every scheduler's closing round and restore also go through.
std::vector<std::size_t> tuningOrder(const TaskGraph& graph);

// Whether `task` takes part in the closing round of `plan`'s run: a task with twins
// (`twins`, twinTasks(graph)), except in joint topological mode one whose output layout a task
// tuned after it (in `order`, tuningOrder(graph)) was pinned to, which must keep its choice: a
// residual either way round (the reader's way where the plan says so,
// NetworkTuningPlan::residualReaderKeeps); a depthwise convolution's input either way round where
// the plan pins those; a 1x1 reader's input where it pins those.
bool takesPartInClosingRound(const TaskGraph& graph, const NetworkTuningPlan& plan,
                             const std::vector<std::vector<std::size_t>>& twins,
                             const std::vector<std::size_t>& order, std::size_t task);

// What a stored plan tunes otherwise than a new run of it would, in a sentence ("net tune
// --resume", `net runs ID`, the Networks page): a joint topological run stored before depthwise
// tasks were pinned (NetworkTuningPlan::depthwisePins) tunes them on channel blocks of their own,
// and the program gives them their producers' where those fit (gpu/net/network_program.cpp),
// blocks they were not timed with; one stored before a residual's reader tuned ahead of its writer
// kept its choice (NetworkTuningPlan::residualReaderKeeps) lets such readers take part in its
// closing round. Both said, where both differ, in one sentence. `ended`: said of a run whose
// tuning is over. Empty where nothing differs.
std::string storedPlanNote(const TaskGraph& graph, const NetworkTuningPlan& plan, bool ended);

// What the scheduler knows of each task: its weight, its FLOPs, its group (the operator kind).
std::vector<SchedulerTask> schedulerTasks(const TaskGraph& graph);

}  // namespace opevo::net
