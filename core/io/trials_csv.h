#pragma once

#include <string>
#include <vector>

#include "engine/trial_record.h"

namespace opevo {

// trials.csv, the one format in which trials leave the program: `opevo compare --out`, `opevo
// export` and the window's "Save trials as CSV" all write it. One row per trial; `order` is the
// order in which the engine measured it across the race, so interleaving can be read off it;
// `repeat` is 1-based, as the window and compare's progress lines number repeats (a record's
// repeat is 0-based).
std::string trialsCsvHeader();
std::string trialsCsvRow(const TrialRecord& trial);
// The header and a row per trial.
std::string trialsCsv(const std::vector<TrialRecord>& trials);

// Writes the whole file, all or nothing (io/export_file.h). Throws ExportWriteError naming the
// path and the reason when it cannot be written.
void writeTrialsCsv(const std::string& path, const std::vector<TrialRecord>& trials);

// A field as CSV text: quoted when it holds a comma, a quote or a line break.
std::string csvField(const std::string& text);
// A number as CSV text: the shortest that reads back as the same double, so that a figure
// recomputed from the file (a fraction speed / optimum) is exact.
std::string csvNumber(double value);

}  // namespace opevo
