#include "net/network_tuning.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "engine/speed_unit.h"
#include "ops/matvec_space.h"
#include "ops/operator_json.h"
#include "ops/presets.h"
#include "ops/winograd_space.h"

namespace opevo::net {

namespace {

// Whether a task has a layout template a network can run: an ungrouped convolution, or a
// (batch) matmul: a dense layer's weights are packed once, a product of two activations (the
// attention's) has its B converted in every pass, as its A.
bool hasLayoutTemplate(const Task& task) {
  if (task.op.kind == OpKind::Conv2D) return task.op.groups == 1;
  return true;  // MatMul or BatchMatMul
}

}  // namespace

OperatorDefinition taskDefinition(const Task& task, layout::TuningMode mode,
                                  TaskTemplates templates) {
  const bool layouts = layout::tunesLayouts(mode) && hasLayoutTemplate(task);
  OperatorDefinition def{task.op, defaultSpace(task.op)};
  // These templates work on the plain layouts: in a layout mode the tasks they take read and
  // write those, the others tune their layouts.
  if (templates.winograd && winogradPays(task.op))
    return withSpaceTarget(std::move(def), SpaceTarget::Winograd);
  if (templates.matvec && matvecApplies(task.op))
    return withSpaceTarget(std::move(def), SpaceTarget::MatVec);
  if (layouts) return withTuningMode(std::move(def), layout::TuningMode::Joint);
  return def;
}

std::optional<OperatorDefinition> formerTaskDefinition(const Task& task, layout::TuningMode mode,
                                                       TaskTemplates templates) {
  if (!layout::tunesLayouts(mode) || task.op.kind == OpKind::Conv2D) return std::nullopt;
  return taskDefinition(task, layout::TuningMode::Loop, templates);
}

OperatorDefinition taskDefinitionOf(const Task& task, layout::TuningMode mode,
                                    TaskTemplates templates, const Config& config) {
  OperatorDefinition def = taskDefinition(task, mode, templates);
  if (def.space.contains(config)) return def;
  if (auto former = formerTaskDefinition(task, mode, templates);
      former && former->space.contains(config))
    return *former;
  return def;  // generateKernel says what is wrong with the configuration
}

std::vector<SchedulerTask> schedulerTasks(const TaskGraph& graph) {
  std::vector<SchedulerTask> tasks;
  for (const Task& t : graph.tasks)
    tasks.push_back({t.weight(), t.op.flops(), static_cast<int>(t.op.kind), t.position,
                     static_cast<double>(t.op.outputElements())});
  return tasks;
}

NetworkTuning::NetworkTuning(const TaskGraph& graph, std::vector<TaskMeasurement> measurements,
                             NetworkTuningPlan plan,
                             const std::vector<EngineOptions>& engineOptions)
    : m_graph(graph),
      m_plan(std::move(plan)),
      m_scheduler(schedulerTasks(graph), m_plan.scheduler, m_plan.seed, m_plan.gradient) {
  if (measurements.size() != graph.tasks.size())
    throw std::logic_error("network tuning: one measurement per task");
  if (m_plan.trials < 1) throw InputError("a network needs a budget of at least 1 trial");
  if (m_plan.unit < 1) throw InputError("a scheduling unit holds at least 1 trial");
  const std::size_t n = graph.tasks.size();
  m_taskTrials.assign(n, 0);
  m_begun.assign(n, false);
  m_constraints.assign(n, std::nullopt);
  m_twins = twinTasks(graph);
  for (std::size_t i = 0; i < n; ++i) m_order.push_back(i);
  std::stable_sort(m_order.begin(), m_order.end(), [&](std::size_t a, std::size_t b) {
    return graph.tasks[a].position < graph.tasks[b].position;
  });
  for (std::size_t i = 0; i < n; ++i) {
    // A task's speeds are a FLOP rate in its measurer's unit (TFLOPS on a GPU, GFLOP/s on a CPU).
    const std::string unit = measurements[i].measurer->speedUnit();
    m_flopsPerUnit.push_back(flopsPerSecondIn(unit));
    if (!(m_flopsPerUnit.back() > 0))
      throw InputError("a network's tasks are timed as FLOP rates, and '" + unit + "' is not one");
    m_spaces.push_back(std::make_unique<SearchSpace>(*measurements[i].space));
    m_engines.push_back(
        std::make_unique<Engine>(*m_spaces.back(), *measurements[i].measurer,
                                 i < engineOptions.size() ? engineOptions[i] : EngineOptions{}));
    RunPlan run;
    run.algorithm = m_plan.algorithm;
    run.settings = m_plan.settings;
    run.seed = m_plan.seed + i;  // tasks draw independent streams
    run.budget.trials = m_plan.trials;
    // The budget is the network's; a task gets about its share of it.
    run.plannedTrials = std::max(1, m_plan.trials / static_cast<int>(graph.tasks.size()));
    m_engines.back()->addRun(std::move(run));
  }
}

bool NetworkTuning::propagatesAcrossTasks() const {
  return m_plan.scheduler == SchedulerKind::Topological && m_plan.mode == layout::TuningMode::Joint;
}

void NetworkTuning::begin(std::size_t task) {
  if (m_begun[task]) return;
  m_begun[task] = true;
  if (!propagatesAcrossTasks()) return;
  // The tasks before it in topological order have all been tuned (the scheduler closes each
  // before the next); their best configurations are their choices.
  std::vector<std::size_t> before;
  for (std::size_t k : m_order) {
    if (k == task) break;
    before.push_back(k);
  }
  std::vector<const SearchSpace*> spaces;
  for (const auto& s : m_spaces) spaces.push_back(s.get());
  m_constraints[task] = constrainOutputLayout(m_graph, task, before, spaces, bestConfigs(),
                                              *m_spaces[task], m_plan.seed + task);
  // The tuner addRun built copied the parameters it tunes: it is built again over the narrowed
  // space (the task has no trial yet, restored ones come after this).
  if (m_constraints[task] && m_constraints[task]->outcome == ConstraintOutcome::Applied)
    m_engines[task]->rebuildTuner(0);
}

int NetworkTuning::shareLeft(std::size_t task) const {
  if (m_plan.scheduler != SchedulerKind::Topological) return std::numeric_limits<int>::max();
  int before = 0;
  std::size_t rank = 0;
  for (std::size_t k : m_order) {
    if (k == task) break;
    before += m_taskTrials[k];
    ++rank;
  }
  const int remaining = static_cast<int>(m_order.size() - rank);
  return std::max(1, (m_plan.trials - before) / remaining) - m_taskTrials[task];
}

void NetworkTuning::countUnit(std::size_t task, int trials) {
  m_taskTrials[task] += trials;
  if (shareLeft(task) <= 0 && !m_scheduler.exhausted(task)) m_scheduler.exhaust(task);
}

void NetworkTuning::addObserver(EngineObserver& observer) {
  for (auto& e : m_engines) e->addObserver(observer);
}

double NetworkTuning::secondsAt(std::size_t task, double speed) const {
  return m_graph.tasks[task].op.flops() / (speed * m_flopsPerUnit[task]);
}

std::optional<double> NetworkTuning::bestSeconds(std::size_t task) const {
  const RunState& r = m_engines.at(task)->runs().front();
  if (!(r.best > 0)) return std::nullopt;
  return secondsAt(task, r.best);
}

std::optional<double> NetworkTuning::estimateSeconds() const {
  double sum = 0;
  for (std::size_t i = 0; i < m_graph.tasks.size(); ++i) {
    const std::optional<double> s = bestSeconds(i);
    if (!s) return std::nullopt;
    sum += m_graph.tasks[i].weight() * *s;
  }
  return sum;
}

std::vector<std::optional<Config>> NetworkTuning::bestConfigs() const {
  std::vector<std::optional<Config>> out;
  for (const auto& e : m_engines) out.push_back(e->runs().front().bestConfig);
  return out;
}

void NetworkTuning::stopFromSignal() {
  m_stop = true;
  for (auto& e : m_engines) e->stopFromSignal();
}

std::vector<TwinProposal> NetworkTuning::twinsFirst(std::size_t task, std::size_t limit,
                                                    const MeasuredTrials& measured) const {
  std::vector<const SearchSpace*> spaces;
  for (const auto& s : m_spaces) spaces.push_back(s.get());
  return twinProposals(task, m_twins[task], spaces, measured, limit);
}

bool NetworkTuning::step() {
  if (m_stop || m_trials >= m_plan.trials) return false;
  const std::optional<std::size_t> chosen = m_scheduler.next();
  if (!chosen) return false;
  begin(*chosen);
  Engine& engine = *m_engines[*chosen];
  const RunState& run = engine.runs().front();
  const int before = run.trials;
  const std::size_t size =
      std::min(m_plan.unit,
               static_cast<std::size_t>(std::min(m_plan.trials - m_trials, shareLeft(*chosen))));
  // Its twins' best configurations first (measured by this task as any trial), then what its
  // tuner proposes, which has observed them.
  const std::vector<TwinProposal> twins =
      twinsFirst(*chosen, size, [this](std::size_t t) -> const std::vector<Observation>& {
        return m_engines[t]->tuner(0).history();
      });
  bool stepped = true;
  std::vector<std::size_t> fromTwins;
  if (!twins.empty()) {
    std::vector<Config> configs;
    for (const TwinProposal& p : twins) configs.push_back(p.config);
    stepped = engine.step(0, configs);
    for (int k = before; k < run.trials; ++k)
      fromTwins.push_back(twins[static_cast<std::size_t>(k - before)].from);
  }
  if (const auto taken = static_cast<std::size_t>(run.trials - before);
      stepped && !run.ended() && taken < size) {
    engine.setBatch(0, size - taken);
    stepped = engine.step(0);
  }
  const int measured = run.trials - before;
  m_trials += measured;
  if (!stepped || measured == 0) {
    // Its space is used up, it failed, or a stop ended it: the scheduler moves on.
    m_scheduler.exhaust(*chosen);
    if (engine.stopping()) return false;
  } else {
    m_scheduler.record(*chosen, bestSeconds(*chosen));
  }
  countUnit(*chosen, measured);
  m_units.push_back({static_cast<int>(m_units.size()) + 1, *chosen, m_trials, bestSeconds(*chosen),
                     m_scheduler.objective(), std::move(fromTwins)});
  return true;
}

void NetworkTuning::replayUnit(std::size_t task, int trials, const std::vector<TaskRestore>& tasks,
                               std::vector<int>& counted) {
  const std::optional<std::size_t> chosen = m_scheduler.next();
  if (!chosen || *chosen != task)
    throw std::runtime_error("the stored units of this network do not replay: unit " +
                             std::to_string(m_units.size() + 1) + " went to task " +
                             std::to_string(task) + ", the scheduler now picks " +
                             (chosen ? std::to_string(*chosen) : std::string("none")));
  // Which of the unit's first trials were its twins' configurations: what the rule proposes from
  // the trials counted so far, as far as the stored trials follow it (a run stored before twins
  // shared anything does not).
  std::vector<std::vector<Observation>> before(tasks.size());
  for (std::size_t t = 0; t < tasks.size(); ++t)
    for (int k = 0; k < counted[t]; ++k) {
      const auto& [config, m] = tasks[t].trials[static_cast<std::size_t>(k)];
      before[t].push_back({config, m.status == TrialStatus::Ok ? m.speed : 0.0});
    }
  std::vector<std::size_t> fromTwins;
  const std::vector<TwinProposal> twins =
      twinsFirst(task, static_cast<std::size_t>(trials),
                 [&](std::size_t t) -> const std::vector<Observation>& { return before[t]; });
  for (const TwinProposal& p : twins) {
    const std::size_t at = static_cast<std::size_t>(counted[task]) + fromTwins.size();
    if (tasks[task].trials[at].first != p.config) break;
    fromTwins.push_back(p.from);
  }
  counted[task] += trials;
  m_trials += trials;
  if (trials == 0) {
    m_scheduler.exhaust(task);
  } else {
    // The task's best after the trials counted so far, as the uninterrupted run recorded it.
    double best = 0;
    for (int k = 0; k < counted[task]; ++k) {
      const Measurement& m = tasks[task].trials[static_cast<std::size_t>(k)].second;
      if (m.status == TrialStatus::Ok && m.speed > best) best = m.speed;
    }
    std::optional<double> seconds;
    if (best > 0) seconds = secondsAt(task, best);
    m_scheduler.record(task, seconds);
  }
  countUnit(task, trials);
  // The task's best at this unit, as the scheduler recorded it (not its best over every trial).
  const std::vector<double>& history = m_scheduler.history(task);
  std::optional<double> seconds;
  if (!history.empty() && std::isfinite(history.back())) seconds = history.back();
  m_units.push_back({static_cast<int>(m_units.size()) + 1, task, m_trials, seconds,
                     m_scheduler.objective(), std::move(fromTwins)});
}

std::vector<UnitRecord> NetworkTuning::restore(const std::vector<TaskRestore>& tasks,
                                               const std::vector<UnitRecord>& units) {
  if (tasks.size() != m_engines.size())
    throw std::logic_error("network tuning: one restore per task");
  // In tuning order: a task that had begun is constrained again, from the restored choices of
  // the tasks before it, before its own trials are restored.
  for (std::size_t i : m_order) {
    if (!tasks[i].trials.empty()) begin(i);
    m_engines[i]->restore(0, tasks[i].trials, tasks[i].secondsBefore);
    m_engines[i]->setStoreId(0, tasks[i].storeId);
  }
  std::vector<int> counted(tasks.size(), 0);
  for (const UnitRecord& u : units) {
    if (u.task >= tasks.size() ||
        counted[u.task] + u.trials > static_cast<int>(tasks[u.task].trials.size()))
      throw std::runtime_error("the stored units of this network name trials it does not have");
    replayUnit(u.task, u.trials, tasks, counted);
  }
  // A kill mid-unit: the scheduler had picked that task, so it picks it again now.
  std::vector<UnitRecord> added;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const int left = static_cast<int>(tasks[i].trials.size()) - counted[i];
    if (left <= 0) continue;
    replayUnit(i, left, tasks, counted);
    added.push_back({i, left});
  }
  return added;
}

void NetworkTuning::run(const std::function<void(const NetworkUnit&)>& afterUnit) {
  while (step())
    if (afterUnit) afterUnit(m_units.back());
}

}  // namespace opevo::net
