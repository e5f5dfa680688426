#include "engine/side_by_side_json.h"

namespace opevo {

nlohmann::json sideBySideJson(const SideBySide& side, const std::string& config, int roundsAsked) {
  return {{"library", side.library},
          {"rounds", side.rounds},
          {"candidates", side.candidates},
          {"chosen_rank", side.chosen + 1},
          {"config", config},
          {"candidate_speeds", side.speeds},
          {"best_speed", side.bestSpeed},
          {"reference_speed", side.referenceSpeed},
          {"ratio", side.bestSpeed / side.referenceSpeed},
          {"rounds_asked", roundsAsked},
          {"rounds_run", side.roundsRun},
          {"stopped", side.stopped}};
}

}  // namespace opevo
