#pragma once

#include <string>
#include <vector>

#include "engine/trial_record.h"

namespace opevo {

// trials.csv, the one format in which trials leave the program: `opevo compare --out`, `opevo
// export` and the window's "Save trials as CSV" all write it. One row per trial; `order` is the
// order in which the engine measured it across the race, so interleaving can be read off it.
std::string trialsCsvHeader();
std::string trialsCsvRow(const TrialRecord& trial);

// Writes the whole file. Throws InputError naming the path when it cannot be written.
void writeTrialsCsv(const std::string& path, const std::vector<TrialRecord>& trials);

// A field as CSV text: quoted when it holds a comma, a quote or a line break.
std::string csvField(const std::string& text);

}  // namespace opevo
