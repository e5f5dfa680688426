#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "net/network_tuning.h"

namespace opevo::net {

// A network run's plan as the store keeps it (NetworkRecord::planJson): the algorithm, seed,
// budget, unit, scheduler, mode, template, weights' timing and the scheduler's similarity rule.
nlohmann::json planToJson(const NetworkTuningPlan& plan);

// The plan back from its stored text. A field that runs stored before it lacked reads as what
// those runs did: loop mode, the direct template, weights warm, Ansor's whole-kind similarity
// (similarSize 0) and no depthwise pin, so that a resume replays their units under the rule that
// chose them and tunes each task over the space it was tuned over. Throws
// InputError, prefixed with `where`, for text that is not such a plan.
NetworkTuningPlan planFromJson(const std::string& text, const std::string& where);
// The templates of a stored plan alone (planFromJson reads them so), for listings that must not
// fail on a plan's other fields.
TaskTemplates planTemplates(const nlohmann::json& plan);

}  // namespace opevo::net
