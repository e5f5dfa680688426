#include "net/untuned_configs.h"

#include "net/network_tuning.h"
#include "ops/presets.h"

namespace opevo::net {

std::vector<Config> untunedConfigs(const TaskGraph& graph, layout::TuningMode mode,
                                   TaskTemplates templates) {
  std::vector<Config> configs;
  for (const Task& t : graph.tasks)
    configs.push_back(untunedConfig(taskDefinition(t, mode, templates).space));
  return configs;
}

}  // namespace opevo::net
