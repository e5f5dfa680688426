#include "net/twin_tasks.h"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "common/error.h"

namespace opevo::net {

std::string twinKey(const OperatorSpec& op) {
  OperatorSpec bare = op;
  bare.epilogue.clear();
  return bare.describe();  // describes every dimension, as extractTasks' task key does
}

std::vector<std::vector<std::size_t>> twinTasks(const TaskGraph& graph) {
  std::map<std::string, std::vector<std::size_t>> byKey;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i)
    byKey[twinKey(graph.tasks[i].op)].push_back(i);
  std::vector<std::vector<std::size_t>> twins(graph.tasks.size());
  for (const auto& [key, tasks] : byKey)
    for (std::size_t i : tasks)
      for (std::size_t k : tasks)
        if (k != i) twins[i].push_back(k);
  return twins;
}

namespace {

// The task's trials' indices with a working configuration, fastest first (ties: measured first),
// at most `count`.
std::vector<std::size_t> fastest(const std::vector<Observation>& trials, std::size_t count) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < trials.size(); ++i)
    if (trials[i].fitness > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return trials[a].fitness > trials[b].fitness;
  });
  if (order.size() > count) order.resize(count);
  return order;
}

}  // namespace

std::vector<TwinProposal> twinProposals(std::size_t task, const std::vector<std::size_t>& twins,
                                        const std::vector<const SearchSpace*>& spaces,
                                        const MeasuredTrials& measured, std::size_t limit) {
  limit = std::min(limit, kTwinConfigsPerUnit);
  std::vector<TwinProposal> out;
  if (twins.empty() || limit == 0) return out;
  const SearchSpace& own = *spaces.at(task);
  std::unordered_set<Config, ConfigHash> taken;
  for (const Observation& o : measured(task)) taken.insert(o.config);

  std::vector<std::vector<std::size_t>> ranked;
  for (std::size_t twin : twins) ranked.push_back(fastest(measured(twin), kTwinConfigsPerUnit));
  for (std::size_t rank = 0; rank < kTwinConfigsPerUnit; ++rank) {
    for (std::size_t t = 0; t < twins.size(); ++t) {
      if (out.size() == limit) return out;
      if (rank >= ranked[t].size()) continue;
      const Config& theirs = measured(twins[t])[ranked[t][rank]].config;
      const std::string text = spaces.at(twins[t])->format(theirs);
      Config mine;
      try {
        mine = own.parse(text);
      } catch (const InputError&) {
        continue;  // a parameter this task's space does not have
      }
      // The same values, every one given (parse fills a parameter it lacks with a default).
      if (!own.contains(mine) || own.format(mine) != text || !own.satisfies(mine)) continue;
      if (!taken.insert(mine).second) continue;
      out.push_back({std::move(mine), twins[t]});
    }
  }
  return out;
}

}  // namespace opevo::net
