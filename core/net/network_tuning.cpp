#include "net/network_tuning.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/error.h"
#include "engine/speed_unit.h"
#include "layout/conv2d_layout.h"
#include "net/tuning_budget.h"
#include "ops/matvec_space.h"
#include "ops/operator_json.h"
#include "ops/presets.h"
#include "ops/winograd_space.h"

namespace opevo::net {

namespace {

// Whether a task has a layout template a network can run: an ungrouped or depthwise
// convolution, or a (batch) matmul: a dense layer's weights are packed once, a product of two
// activations (the attention's) has its B converted in every pass, as its A.
bool hasLayoutTemplate(const Task& task) {
  if (task.op.kind == OpKind::Conv2D) return task.op.groups == 1 || layout::isDepthwise(task.op);
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
  // Depthwise convolutions tuned their loops alone before they had a layout template too.
  if (!layout::tunesLayouts(mode) ||
      (task.op.kind == OpKind::Conv2D && !layout::isDepthwise(task.op)))
    return std::nullopt;
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

std::string formatTaskConfig(const Task& task, layout::TuningMode mode, TaskTemplates templates,
                             const Config& config) {
  const SearchSpace space = taskDefinitionOf(task, mode, templates, config).space;
  // format reads a vertex per parameter: a configuration of neither space is a caller's bug.
  if (!space.contains(config))
    throw std::logic_error("formatTaskConfig: a configuration of neither of " + task.name +
                           "'s spaces");
  return space.format(config);
}

Config parseTaskConfig(const Task& task, layout::TuningMode mode, TaskTemplates templates,
                       const std::string& text) {
  const SearchSpace space = taskDefinition(task, mode, templates).space;
  std::optional<Config> now;
  std::string why;
  try {
    now = space.parse(text);
    // A parameter with a value when absent would read a former text too, as another kernel.
    if (space.format(*now) == text) return *now;
  } catch (const InputError& x) {
    why = x.what();
  }
  if (const auto former = formerTaskDefinition(task, mode, templates)) {
    try {
      const Config c = former->space.parse(text);
      if (former->space.format(c) == text || !now) return c;
    } catch (const InputError&) {
      // The current space's objection is the one to name.
    }
  }
  if (now) return *now;
  throw InputError(why);
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
  m_closingRound = m_plan.closingRound;
  m_closing.done.assign(n, false);
  m_closing.trials.assign(n, 0);
  m_order = tuningOrder(graph);
  for (std::size_t i = 0; i < n; ++i)
    m_closing.takesPart.push_back(takesPartInClosingRound(graph, m_plan, m_twins, m_order, i));
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

std::vector<std::size_t> tuningOrder(const TaskGraph& graph) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return graph.tasks[a].position < graph.tasks[b].position;
  });
  return order;
}

bool takesPartInClosingRound(const TaskGraph& graph, const NetworkTuningPlan& plan,
                             const std::vector<std::vector<std::size_t>>& twins,
                             const std::vector<std::size_t>& order, std::size_t task) {
  if (twins.at(task).empty()) return false;
  if (!propagatesAcrossTasks(plan)) return true;
  // A later task begins pinned to this one's output layout where it reads it as its residual: a
  // new best of another layout would undo that, and a resume (which constrains each task from the
  // restored bests of the tasks before it) would pin it to another layout than it was tuned in.
  // So with a depthwise convolution's input, either way round: a depthwise task tuned after its
  // producer takes the producer's channel blocks, a producer tuned after its depthwise reader
  // the reader's.
  const auto rank = [&](std::size_t t) {
    return std::find(order.begin(), order.end(), t) - order.begin();
  };
  // A residual's writer tuned after its reader is pinned to the reader's output layout (where
  // that link decides and leaves a valid configuration; decided here, before tuning, so that a
  // resume plans the same round), so the reader keeps its choice (runs stored before that was
  // seen let it take part).
  for (const ResidualLink& link : residualLinks(graph))
    if ((link.writer == task && rank(link.reader) > rank(task)) ||
        (plan.residualReaderKeeps && link.reader == task && rank(link.writer) > rank(task)))
      return false;
  // A run stored before the depthwise pin planned its round without it (and tuned so).
  if (plan.depthwisePins)
    for (const DepthwiseLink& link : depthwiseLinks(graph))
      if ((link.writer == task && rank(link.reader) > rank(task)) ||
          (link.reader == task && rank(link.writer) > rank(task)))
        return false;
  // And, where 1x1 inputs are pinned (--pin-inputs), a 1x1 reader's producer tuned first.
  if (plan.inputPins)
    for (const InputLink& link : inputLinks(graph))
      if (link.writer == task && rank(link.reader) > rank(task)) return false;
  return true;
}

namespace {

// An old joint topological plan's depthwise tasks, tuned on blocks of their own.
std::string depthwisePinNote(const TaskGraph& graph, const NetworkTuningPlan& plan, bool ended) {
  if (plan.depthwisePins) return {};
  const std::size_t links = depthwiseLinks(graph).size();
  if (links == 0) return {};
  const bool one = links == 1;
  const std::string tasks = one ? "depthwise task" : std::to_string(links) + " depthwise tasks";
  const std::string own = one ? "its own" : "their own";
  const std::string producers = one ? "its producer's" : "their producers'";
  const std::string tie = std::string("(a new run ties ") + (one ? "it" : "each") +
                          " to its producer's blocks as it is tuned)";
  const std::string head =
      "stored before depthwise tasks were tied to their producers' channel blocks, this run ";
  if (ended)
    return head + "tuned its " + tasks + " on blocks of " + own + " and ran " +
           (one ? "it" : "them") + " on " + producers + " where those fit, blocks " +
           (one ? "it was" : "they were") + " not timed with " + tie;
  return head + "goes on as it was tuned: its " + tasks + " on blocks of " + own + ", given " +
         producers + " after tuning where those fit " + tie;
}

// An old joint topological plan's residual readers tuned ahead of their writers, which take part
// in its closing round: a new best there can write another layout than the one the writer was
// pinned to, and the program then gives the writer the new one after tuning where it fits
// (adoptReaderLayouts, untimed) or converts the residual.
std::string residualReaderNote(const TaskGraph& graph, const NetworkTuningPlan& plan, bool ended) {
  if (plan.residualReaderKeeps || !plan.closingRound) return {};
  const std::vector<std::vector<std::size_t>> twins = twinTasks(graph);
  const std::vector<std::size_t> order = tuningOrder(graph);
  NetworkTuningPlan now = plan;
  now.residualReaderKeeps = true;
  std::size_t readers = 0;
  for (std::size_t t = 0; t < graph.tasks.size(); ++t)
    if (takesPartInClosingRound(graph, plan, twins, order, t) &&
        !takesPartInClosingRound(graph, now, twins, order, t))
      ++readers;
  if (readers == 0) return {};
  const bool one = readers == 1;
  const std::string which =
      one ? "its residual reader tuned ahead of its writer"
          : "its " + std::to_string(readers) + " residual readers tuned ahead of their writers";
  const std::string head =
      "stored before a residual's reader tuned ahead of its writer kept its choice, this run ";
  const std::string newRun = " (a new run keeps such a reader's choice)";
  if (ended)
    return head + "let " + which +
           " take part in its closing round, where a new best of another output layout could "
           "leave its writer a layout it was not timed with, or the residual converted" +
           newRun;
  return head + "goes on as it was tuned: " + which + (one ? " takes" : " take") +
         " part in its closing round, where a new best of another output layout leaves its "
         "writer a layout it was not timed with, or the residual converted" +
         newRun;
}

}  // namespace

std::string storedPlanNote(const TaskGraph& graph, const NetworkTuningPlan& plan, bool ended) {
  if (!propagatesAcrossTasks(plan)) return {};
  const std::string depthwise = depthwisePinNote(graph, plan, ended);
  const std::string residual = residualReaderNote(graph, plan, ended);
  if (depthwise.empty() || residual.empty()) return depthwise + residual;
  return depthwise + "; and " + residual;
}

std::string NetworkTuning::planNote(bool ended) const {
  NetworkTuningPlan asRun = m_plan;
  asRun.closingRound = m_closingRound;
  return storedPlanNote(m_graph, asRun, ended);
}

bool propagatesAcrossTasks(const NetworkTuningPlan& plan) {
  return plan.scheduler == SchedulerKind::Topological && plan.mode == layout::TuningMode::Joint;
}

bool NetworkTuning::propagatesAcrossTasks() const {
  return net::propagatesAcrossTasks(m_plan);
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
  m_constraints[task] =
      constrainLayout(m_graph, task, before, spaces, bestConfigs(), *m_spaces[task],
                      m_plan.seed + task, {m_plan.depthwisePins, m_plan.inputPins});
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
  return std::max(1, (mainBudget() - before) / remaining) - m_taskTrials[task];
}

int NetworkTuning::closingReserve() const {
  if (!m_closingRound) return 0;
  const auto taking = static_cast<std::size_t>(
      std::count(m_closing.takesPart.begin(), m_closing.takesPart.end(), true));
  return net::closingReserve(m_graph.tasks.size(), taking, m_plan);
}

int NetworkTuning::mainBudget() const {
  return m_plan.trials - closingReserve();
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

std::optional<NetworkTuning::Next> NetworkTuning::next(const MeasuredTrials& measured) {
  if (!m_closing.begun) {
    if (m_trials < mainBudget())
      if (const std::optional<std::size_t> chosen = m_scheduler.next())
        return Next{*chosen, false, {}};
    // The scheduler's budget is spent, or every task is: the closing round begins.
    m_closing.begun = true;
  }
  if (m_closingRound && !m_closing.ended) {
    for (std::size_t task : m_order) {
      if (!m_closing.takesPart[task] || m_closing.done[task]) continue;
      // The rest of a unit a stop cut short, after a resume, is measured as its own unit.
      const int room = std::min(static_cast<int>(kTwinConfigsPerUnit) - m_closing.trials[task],
                                m_plan.trials - m_trials);
      std::vector<TwinProposal> twins;
      if (room > 0) twins = twinsFirst(task, static_cast<std::size_t>(room), measured);
      if (twins.empty()) {
        m_closing.done[task] = true;  // it has measured them all (or the budget is spent)
        continue;
      }
      return Next{task, true, std::move(twins)};
    }
    m_closing.ended = true;
    // The rest of the reserve: a task with twins that found a new best now would leave its twins
    // without it, so the tasks without twins take it.
    for (std::size_t task = 0; task < m_twins.size(); ++task)
      if (!m_twins[task].empty()) m_scheduler.exhaust(task);
  }
  if (const std::optional<std::size_t> chosen = m_scheduler.next()) return Next{*chosen, false, {}};
  return std::nullopt;
}

bool NetworkTuning::step() {
  if (m_stop || m_trials >= m_plan.trials) return false;
  const MeasuredTrials history = [this](std::size_t t) -> const std::vector<Observation>& {
    return m_engines[t]->tuner(0).history();
  };
  std::optional<Next> chosen = next(history);
  if (!chosen) return false;
  const std::size_t task = chosen->task;
  begin(task);
  Engine& engine = *m_engines[task];
  const RunState& run = engine.runs().front();
  const int before = run.trials;
  const int budget = m_closing.begun ? m_plan.trials : mainBudget();
  const std::size_t size =
      chosen->closing
          ? chosen->twins.size()
          : std::min(m_plan.unit,
                     static_cast<std::size_t>(std::min(budget - m_trials, shareLeft(task))));
  // Its twins' best configurations first (measured by this task as any trial), then what its
  // tuner proposes, which has observed them; a closing unit measures the twins' alone.
  const std::vector<TwinProposal> twins =
      chosen->closing ? std::move(chosen->twins) : twinsFirst(task, size, history);
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
      !chosen->closing && stepped && !run.ended() && taken < size) {
    engine.setBatch(0, size - taken);
    stepped = engine.step(0);
  }
  const int measured = run.trials - before;
  m_trials += measured;
  if (chosen->closing) {
    // A stop before its first trial: the resume measures the unit again.
    if (measured == 0 && engine.stopping()) return false;
    if (measured == 0) m_closing.done[task] = true;  // its run has ended (failed, used up)
    m_closing.trials[task] += measured;
    m_taskTrials[task] += measured;
    if (measured > 0) m_scheduler.record(task, bestSeconds(task));
  } else {
    if (!stepped || measured == 0) {
      // Its space is used up, it failed, or a stop ended it: the scheduler moves on.
      m_scheduler.exhaust(task);
      if (engine.stopping()) return false;
    } else {
      m_scheduler.record(task, bestSeconds(task));
    }
    countUnit(task, measured);
  }
  m_units.push_back({static_cast<int>(m_units.size()) + 1, task, m_trials, bestSeconds(task),
                     m_scheduler.objective(), std::move(fromTwins), chosen->closing});
  return true;
}

void NetworkTuning::replayUnit(std::size_t task, int trials, const std::vector<TaskRestore>& tasks,
                               std::vector<int>& counted) {
  // Each task's trials counted so far, as its tuner had observed them then.
  std::vector<std::vector<Observation>> before(tasks.size());
  for (std::size_t t = 0; t < tasks.size(); ++t)
    for (int k = 0; k < counted[t]; ++k) {
      const auto& [config, m] = tasks[t].trials[static_cast<std::size_t>(k)];
      before[t].push_back({config, m.status == TrialStatus::Ok ? m.speed : 0.0});
    }
  const MeasuredTrials measured = [&](std::size_t t) -> const std::vector<Observation>& {
    return before[t];
  };
  const std::optional<Next> chosen = next(measured);
  const auto refuse = [&](const std::string& why) {
    throw std::runtime_error("the stored units of this network do not replay: unit " +
                             std::to_string(m_units.size() + 1) + " went to task " +
                             std::to_string(task) + ", " + why);
  };
  if (!chosen || chosen->task != task)
    refuse(std::string(chosen && chosen->closing ? "the closing round now picks "
                                                 : "the scheduler now picks ") +
           (chosen ? std::to_string(chosen->task) : std::string("none")));
  const auto at = [&](std::size_t k) -> const Config& {
    return tasks[task].trials[static_cast<std::size_t>(counted[task]) + k].first;
  };
  // Which of the unit's first trials were its twins' configurations: what the rule proposes from
  // the trials counted so far, as far as the stored trials follow it (a run stored before twins
  // shared anything does not). A closing unit is nothing but them.
  std::vector<std::size_t> fromTwins;
  const std::vector<TwinProposal> twins =
      chosen->closing ? chosen->twins
                      : twinsFirst(task, static_cast<std::size_t>(trials), measured);
  if (chosen->closing && static_cast<std::size_t>(trials) > twins.size())
    refuse("more trials than its closing unit has");
  for (const TwinProposal& p : twins) {
    if (fromTwins.size() == static_cast<std::size_t>(trials) || at(fromTwins.size()) != p.config)
      break;
    fromTwins.push_back(p.from);
  }
  if (chosen->closing && fromTwins.size() != static_cast<std::size_t>(trials))
    refuse("trials that are not its closing unit's");
  counted[task] += trials;
  m_trials += trials;
  // The task's best after the trials counted so far, as the uninterrupted run recorded it.
  const auto recordBest = [&] {
    double best = 0;
    for (int k = 0; k < counted[task]; ++k) {
      const Measurement& m = tasks[task].trials[static_cast<std::size_t>(k)].second;
      if (m.status == TrialStatus::Ok && m.speed > best) best = m.speed;
    }
    std::optional<double> seconds;
    if (best > 0) seconds = secondsAt(task, best);
    m_scheduler.record(task, seconds);
  };
  if (chosen->closing) {
    if (trials == 0) m_closing.done[task] = true;
    m_closing.trials[task] += trials;
    m_taskTrials[task] += trials;
    if (trials > 0) recordBest();
  } else {
    if (trials == 0)
      m_scheduler.exhaust(task);
    else
      recordBest();
    countUnit(task, trials);
  }
  // The task's best at this unit, as the scheduler recorded it (not its best over every trial).
  const std::vector<double>& history = m_scheduler.history(task);
  std::optional<double> seconds;
  if (!history.empty() && std::isfinite(history.back())) seconds = history.back();
  m_units.push_back({static_cast<int>(m_units.size()) + 1, task, m_trials, seconds,
                     m_scheduler.objective(), std::move(fromTwins), chosen->closing});
}

std::vector<UnitRecord> NetworkTuning::replayAll(const std::vector<TaskRestore>& tasks,
                                                 const std::vector<UnitRecord>& units) {
  std::vector<int> counted(tasks.size(), 0);
  for (const UnitRecord& u : units) {
    if (u.task >= tasks.size() ||
        counted[u.task] + u.trials > static_cast<int>(tasks[u.task].trials.size()))
      throw std::runtime_error("the stored units of this network name trials it does not have");
    replayUnit(u.task, u.trials, tasks, counted);
  }
  // A kill mid-unit: the scheduler (or the closing round) had picked that task, so it picks it
  // again now.
  std::vector<UnitRecord> added;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const int left = static_cast<int>(tasks[i].trials.size()) - counted[i];
    if (left <= 0) continue;
    replayUnit(i, left, tasks, counted);
    added.push_back({i, left});
  }
  return added;
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
  if (!m_closingRound) return replayAll(tasks, units);
  // What the replay changes, to replay again without a closing round.
  const TaskScheduler scheduler = m_scheduler;
  const std::vector<int> taskTrials = m_taskTrials;
  const Closing closing = m_closing;
  try {
    return replayAll(tasks, units);
  } catch (const std::runtime_error& withClosing) {
    // A run stored before the closing round: its scheduler handed out the whole budget (and
    // topological shares of it), which the units replay only without the reserve.
    const std::string why = withClosing.what();
    m_scheduler = scheduler;
    m_taskTrials = taskTrials;
    m_closing = closing;
    m_trials = 0;
    m_units.clear();
    m_closingRound = false;
    try {
      return replayAll(tasks, units);
    } catch (const std::runtime_error&) {
      throw std::runtime_error(why);
    }
  }
}

void NetworkTuning::run(const std::function<void(const NetworkUnit&)>& afterUnit) {
  while (step())
    if (afterUnit) afterUnit(m_units.back());
}

}  // namespace opevo::net
