#pragma once

// What the twin-task tests share (twin_tasks_test.cpp, twin_closing_round_test.cpp): a network's
// tasks measured by a stand-in that answers at once from the configuration alone (so a
// configuration is as fast on both twins, as the same loop nest is), and a network stopped and
// restored from what its tasks measured, as a store resumes it.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "net/network_json.h"
#include "net/network_tuning.h"
#include "net/twin_tasks.h"

namespace opevo::net::twintest {

inline const std::string kTwins = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_twins.json";

class HashMeasurer final : public Measurer {
 public:
  std::string label() const override { return "hash"; }
  bool isReplay() const override { return false; }
  std::string speedUnit() const override { return "TFLOPS"; }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override {
    std::vector<Measurement> out;
    for (const Config& c : configs) {
      measured.push_back(c);
      Measurement m;
      m.speed = 1e-3 * static_cast<double>(1 + ConfigHash{}(c) % 997);
      m.medianMs = 1;
      out.push_back(m);
    }
    return out;
  }
  std::vector<Config> measured;
};

struct Tasks {
  Network net;
  TaskGraph graph;
  std::vector<OperatorDefinition> defs;
  std::vector<std::unique_ptr<HashMeasurer>> measurers;

  explicit Tasks(const std::string& network, layout::TuningMode mode = layout::TuningMode::Loop)
      : net(loadNetwork(network)), graph(extractTasks(net)) {
    for (const Task& t : graph.tasks) {
      defs.push_back(taskDefinition(t, mode));
      measurers.push_back(std::make_unique<HashMeasurer>());
    }
  }
  std::vector<TaskMeasurement> measurements() {
    std::vector<TaskMeasurement> m;
    for (std::size_t i = 0; i < defs.size(); ++i) m.push_back({&defs[i].space, measurers[i].get()});
    return m;
  }
  std::size_t index(const std::string& name) const {
    for (std::size_t i = 0; i < graph.tasks.size(); ++i)
      if (graph.tasks[i].name == name) return i;
    ADD_FAILURE() << "no task " << name;
    return 0;
  }
  std::vector<std::string> twinNames(const std::string& name) const {
    std::vector<std::string> out;
    const std::vector<std::vector<std::size_t>> twins = twinTasks(graph);
    for (std::size_t k : twins[index(name)]) out.push_back(graph.tasks[k].name);
    return out;
  }
};

inline NetworkTuningPlan plan(SchedulerKind scheduler, int trials) {
  NetworkTuningPlan p;
  p.algorithm = "opevo-m";
  p.seed = 3;
  p.trials = trials;
  p.unit = 4;
  p.scheduler = scheduler;
  return p;
}

// The measured configurations of a task, fastest first (ties: measured first), as HashMeasurer
// timed them.
inline std::vector<Config> fastestOf(const std::vector<Config>& measured) {
  std::vector<Config> order = measured;
  std::stable_sort(order.begin(), order.end(), [](const Config& a, const Config& b) {
    return ConfigHash{}(a) % 997 > ConfigHash{}(b) % 997;
  });
  return order;
}

inline bool allDistinct(const std::vector<Config>& configs) {
  return std::unordered_set<Config, ConfigHash>(configs.begin(), configs.end()).size() ==
         configs.size();
}

// The network stopped after `units` units and restored from what its tasks measured, as a store
// resumes it: `part` holds what was measured before the stop, `later` what after. With
// `cutLast`, a kill in the last of those units: its row was never stored and only its first
// `cutLast` trials were, which the restore makes one more unit (`added`).
struct Resumed {
  Tasks part;
  Tasks later;
  std::unique_ptr<NetworkTuning> tuning;
  std::vector<UnitRecord> added;

  Resumed(const NetworkTuningPlan& p, std::size_t units, int cutLast = -1,
          const NetworkTuningPlan* resumedAs = nullptr, const std::string& network = kTwins,
          layout::TuningMode mode = layout::TuningMode::Loop)
      : part(network, mode), later(network, mode) {
    NetworkTuning stopped(part.graph, part.measurements(), p);
    while (stopped.units().size() < units) EXPECT_TRUE(stopped.step());
    std::vector<std::vector<Config>> kept(part.graph.tasks.size());
    for (std::size_t i = 0; i < kept.size(); ++i) kept[i] = part.measurers[i]->measured;
    std::vector<UnitRecord> records;
    int before = 0;
    for (const NetworkUnit& u : stopped.units()) {
      records.push_back({u.task, u.trials - before});
      before = u.trials;
    }
    if (cutLast >= 0 && !records.empty()) {
      const UnitRecord last = records.back();
      records.pop_back();
      std::vector<Config>& mine = kept[last.task];
      mine.resize(mine.size() - static_cast<std::size_t>(last.trials - cutLast));
      part.measurers[last.task]->measured = mine;
    }
    std::vector<TaskRestore> restores(part.graph.tasks.size());
    for (std::size_t i = 0; i < restores.size(); ++i) {
      const std::vector<Measurement> again = HashMeasurer().measure(kept[i]);
      for (std::size_t k = 0; k < kept[i].size(); ++k)
        restores[i].trials.emplace_back(kept[i][k], again[k]);
    }
    tuning = std::make_unique<NetworkTuning>(later.graph, later.measurements(),
                                             resumedAs ? *resumedAs : p);
    added = tuning->restore(restores, records);
  }
  // Each task's measured configurations, before the stop and after, in order.
  std::vector<Config> measured(std::size_t task) const {
    std::vector<Config> all = part.measurers[task]->measured;
    const std::vector<Config>& after = later.measurers[task]->measured;
    all.insert(all.end(), after.begin(), after.end());
    return all;
  }
};

}  // namespace opevo::net::twintest
