#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine/measurement.h"

namespace opevo {

// A side-by-side timing (timeSideBySide) as a run keeps it (RunRecord::sideBySideJson, which
// `opevo show` prints and History draws) and `opevo tune --json` writes it: the library, the
// rounds asked and run, each candidate's median, the chosen one's configuration (`config`, as
// the space writes it), its speed and the library's, and their ratio. One shape for the command
// line's runs and the window's, so that History reads either.
nlohmann::json sideBySideJson(const SideBySide& side, const std::string& config, int roundsAsked);

}  // namespace opevo
