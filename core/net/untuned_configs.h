#pragma once

#include <vector>

#include "layout/tuning_mode.h"
#include "net/task_templates.h"
#include "net/tasks.h"
#include "space/search_space.h"

namespace opevo::net {

// Every task's untuned configuration (its template's start blocking: untunedConfig) in `mode`
// and `templates` (taskDefinition): the program `opevo net run` builds untuned, and what tests
// and benchmarks chain when no tuning is wanted.
std::vector<Config> untunedConfigs(const TaskGraph& graph, layout::TuningMode mode,
                                   TaskTemplates templates = {});

}  // namespace opevo::net
