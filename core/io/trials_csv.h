#pragma once

#include <string>
#include <vector>

#include "engine/device_time.h"
#include "engine/trial_record.h"

namespace opevo {

// trials.csv, the one format in which trials leave the program: `opevo compare --out` (streamed,
// engine/trials_csv_writer.h), `opevo export` and the window's "Save trials as CSV" all write it,
// through trialsCsvRow, so each has the same columns in the same order (docs/engine.md lists
// them). One row per trial; `order` is the order in which the engine measured it across the
// race, so interleaving can be read off it; `repeat` is 1-based, as the window and compare's
// progress lines number repeats (a record's repeat is 0-based). After the message come
// `device_seconds`, the trial's run's device time once it is counted (engine/device_time.h: for a
// replay what the file says its trials cost, else compile + measure), so time to solution can be
// read off a file as trials can, and `agent`, the cluster agent that measured it (empty: this
// machine), so that an odd timing can be traced to its node.
std::string trialsCsvHeader();
// The trial's row. It is counted into its run's device time on `device` first: rows must come in
// each run's order of measurement (runs may interleave), one clock for the whole file.
std::string trialsCsvRow(const TrialRecord& trial, DeviceClock& device);
// The header and a row per trial, each run's trials in their order of measurement.
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
