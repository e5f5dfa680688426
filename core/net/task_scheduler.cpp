#include "net/task_scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/error.h"

namespace opevo::net {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

std::string_view schedulerKindName(SchedulerKind kind) {
  switch (kind) {
    case SchedulerKind::Gradient:
      return "gradient";
    case SchedulerKind::RoundRobin:
      return "round-robin";
    case SchedulerKind::Topological:
      return "topological";
  }
  return "?";
}

SchedulerKind parseSchedulerKind(std::string_view name) {
  for (SchedulerKind k :
       {SchedulerKind::Gradient, SchedulerKind::RoundRobin, SchedulerKind::Topological})
    if (schedulerKindName(k) == name) return k;
  throw InputError("unknown task scheduler '" + std::string(name) +
                   "' (accepted: gradient, round-robin, topological)");
}

void checkGradientSettings(const GradientSettings& s) {
  if (s.window < 1) throw InputError("task scheduler: window must be at least 1");
  if (!(s.similarSize == 0 || s.similarSize >= 1))
    throw InputError("task scheduler: similar_size is " + std::to_string(s.similarSize) +
                     ": 0 (every task of a kind) or a factor of at least 1");
}

TaskScheduler::TaskScheduler(std::vector<SchedulerTask> tasks, SchedulerKind kind,
                             std::uint64_t seed, GradientSettings settings)
    : m_tasks(std::move(tasks)),
      m_kind(kind),
      m_settings(settings),
      m_rng(seed),
      m_history(m_tasks.size()),
      m_exhausted(m_tasks.size(), false) {
  checkGradientSettings(m_settings);
  for (const SchedulerTask& t : m_tasks)
    if (!(t.weight > 0)) throw InputError("task scheduler: every task needs a positive weight");
}

double TaskScheduler::best(std::size_t task) const {
  return m_history[task].empty() ? kInf : m_history[task].back();
}

void TaskScheduler::record(std::size_t task, std::optional<double> bestSeconds) {
  // The best so far can only improve: a unit that found nothing better keeps the old best.
  double b = best(task);
  if (bestSeconds && *bestSeconds > 0) b = std::min(b, *bestSeconds);
  m_history.at(task).push_back(b);
}

void TaskScheduler::exhaust(std::size_t task) {
  m_exhausted.at(task) = true;
}

double TaskScheduler::objective() const {
  double f = 0;
  for (std::size_t i = 0; i < m_tasks.size(); ++i) f += m_tasks[i].weight * best(i);
  return f;
}

bool TaskScheduler::similar(std::size_t a, std::size_t b) const {
  const SchedulerTask& x = m_tasks[a];
  const SchedulerTask& y = m_tasks[b];
  if (x.group != y.group) return false;
  if (!(m_settings.similarSize > 0) || !(x.outputs > 0) || !(y.outputs > 0)) return true;
  return std::max(x.outputs, y.outputs) <= m_settings.similarSize * std::min(x.outputs, y.outputs);
}

double TaskScheduler::gradient(std::size_t task) const {
  const std::vector<double>& h = m_history[task];
  const double g = best(task);
  if (h.empty() || !std::isfinite(g)) return -kInf;
  const auto t = static_cast<double>(h.size());
  // Measured slope over the last `window` units, from the first working latency in that span.
  const auto window = static_cast<std::size_t>(m_settings.window);
  std::size_t from = h.size() > window ? h.size() - window : 0;
  while (!std::isfinite(h[from])) ++from;
  const double backward = (g - h[from]) / static_cast<double>(window);
  // Optimistic guess of the next unit: either the average gain so far repeats, or the task gets
  // to within beta of the speed its fastest similar task reached.
  double forward = -g / t;
  double fastest = 0;
  for (std::size_t k = 0; k < m_tasks.size(); ++k) {
    const double bk = best(k);
    if (similar(task, k) && std::isfinite(bk) && m_tasks[k].flops > 0)
      fastest = std::max(fastest, m_tasks[k].flops / bk);
  }
  if (fastest > 0 && m_tasks[task].flops > 0)
    forward = std::min(forward, m_settings.beta * m_tasks[task].flops / fastest - g);
  return m_tasks[task].weight * (m_settings.alpha * backward + (1 - m_settings.alpha) * forward);
}

std::optional<std::size_t> TaskScheduler::next() {
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < m_tasks.size(); ++i)
    if (!m_exhausted[i]) open.push_back(i);
  if (open.empty()) return std::nullopt;

  if (m_kind == SchedulerKind::Topological) {
    std::size_t first = open.front();
    for (std::size_t i : open)
      if (m_tasks[i].position < m_tasks[first].position) first = i;
    return first;
  }
  if (m_kind == SchedulerKind::RoundRobin) {
    for (std::size_t step = 0; step < m_tasks.size(); ++step) {
      const std::size_t i = (m_cursor + step) % m_tasks.size();
      if (!m_exhausted[i]) {
        m_cursor = i + 1;
        return i;
      }
    }
  }
  // Warm-up: every task measured once, in order.
  for (std::size_t i : open)
    if (m_history[i].empty()) return i;
  if (m_rng.chance(m_settings.epsilon)) return open[m_rng.below(open.size())];
  // A task still without a working configuration has the steepest slope (-infinity): the
  // network cannot run without it. Ties go to the first task, so a seed replays the same choices.
  std::size_t chosen = open.front();
  double steepest = gradient(chosen);
  for (std::size_t i : open) {
    const double d = gradient(i);
    if (d < steepest) chosen = i, steepest = d;
  }
  return chosen;
}

}  // namespace opevo::net
