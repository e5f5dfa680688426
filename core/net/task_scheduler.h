#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "common/rng.h"

namespace opevo::net {

// How a network's tuning budget is shared among its tasks, one unit (a batch of trials of one
// task's run) at a time. Topological is ALT's: the tasks one after another in the order their
// kernels run, each to its share of the budget (NetworkTuning hands out the shares and closes a
// task once its share is spent), so that a task's layouts can be chosen knowing what the tasks
// before it chose.
enum class SchedulerKind { Gradient, RoundRobin, Topological };

std::string_view schedulerKindName(SchedulerKind kind);
// Throws InputError naming the accepted names.
SchedulerKind parseSchedulerKind(std::string_view name);

// What the scheduler knows of a task: how often it occurs in the network (its weight in the
// end-to-end latency), its work, its output elements, and its group (the same operator kind):
// the tasks of its group and of a similar size are its similar tasks, whose best speed says how
// fast this task could become.
struct SchedulerTask {
  double weight = 1;
  double flops = 0;
  int group = 0;
  std::size_t position = 0;  // where its kernel first runs (Task::position): topological order
  double outputs = 0;        // output elements; 0: unknown, similar to every task of its group
};

// Ansor's gradient policy (seed 002, sec. 6) and its defaults, as TVM ships them, but for
// similarSize.
struct GradientSettings {
  double alpha = 0.2;     // weight of the measured (backward) slope against the optimistic guess
  double beta = 2;        // how far a similar task's speed is trusted as reachable
  int window = 3;         // units the backward slope looks back
  double epsilon = 0.05;  // probability of a uniformly random task
  // Tasks of one group are similar when their output elements differ by at most this factor
  // (0: the whole group, as Ansor). A small layer cannot reach a large one's speed where the
  // speed comes from parallelism: on an H200 at batch 1 (docs/results/gpu.md, 2026-11-28),
  // AlexNet's conv4 (43k outputs) stayed "far behind" conv2's 8.5 TFLOPS (140k outputs) and
  // took 184 of 400 trials, the last 103 finding nothing, while the three fc layers, 37% of
  // the tuned time, got 52; ResNet-18's fc got 4.
  double similarSize = 2;
};

// Throws InputError for settings the scheduler cannot work with (a window below 1, a
// similarSize between 0 and 1, under which a task would not be similar to itself).
void checkGradientSettings(const GradientSettings& settings);

// Chooses which task the engine steps next so the network's latency f = sum_i w_i * g_i (g_i:
// the best latency of task i) drops fastest. Every task gets one unit first (round-robin warm-up),
// since a task with no latency leaves the network unable to run; then each unit goes to the task
// with the most negative estimated df/dt_i:
//   w_i * (alpha * (g_i(t) - g_i(t - window)) / window
//          + (1 - alpha) * min(-g_i(t) / t, beta * C_i / max_{k similar} V_k - g_i(t)))
// with t the units task i received, C_i its FLOPs and V_k the best FLOP/s of a similar task (of
// its group and size, GradientSettings::similarSize).
// Round-robin is the baseline. Topological gives every unit to the open task that runs first
// (ties: the lower index) and has no warm-up: a task is tuned once, before the tasks after it.
// Deterministic for a seed and a sequence of calls.
class TaskScheduler {
 public:
  TaskScheduler(std::vector<SchedulerTask> tasks, SchedulerKind kind, std::uint64_t seed,
                GradientSettings settings = {});

  // The task that gets the next unit; nullopt once every task is exhausted.
  std::optional<std::size_t> next();
  // The best latency (seconds, > 0) of task i after the unit it was just given; a task whose
  // every configuration failed so far reports nothing and keeps an infinite latency.
  void record(std::size_t task, std::optional<double> bestSeconds);
  // A task whose space is used up (or budget spent) is never chosen again.
  void exhaust(std::size_t task);

  std::size_t size() const { return m_tasks.size(); }
  std::size_t units(std::size_t task) const { return m_history[task].size(); }
  // Best latency after each unit given to the task (infinity until one configuration worked).
  const std::vector<double>& history(std::size_t task) const { return m_history[task]; }
  bool exhausted(std::size_t task) const { return m_exhausted[task]; }
  // sum_i w_i * best_i; infinity while some task has no working configuration.
  double objective() const;
  // The estimate the gradient policy compares (more negative: chosen first); for tests and the
  // GUI's explanation of a choice. Infinite slopes (no latency yet) come back as -infinity.
  double gradient(std::size_t task) const;

 private:
  double best(std::size_t task) const;
  // Whether task b's speed says how fast task a could become (GradientSettings::similarSize).
  bool similar(std::size_t a, std::size_t b) const;

  std::vector<SchedulerTask> m_tasks;
  SchedulerKind m_kind;
  GradientSettings m_settings;
  Rng m_rng;
  std::vector<std::vector<double>> m_history;
  std::vector<bool> m_exhausted;
  std::size_t m_cursor = 0;  // round-robin: the next task to consider
};

}  // namespace opevo::net
