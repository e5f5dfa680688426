#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/budget.h"
#include "store/store.h"

namespace opevo {

struct ImportedRun {
  std::int64_t runId = 0;
  std::size_t trials = 0;
  std::string format;              // datasetFormatName of the file's format, for output
  std::string device;              // as the file names it; empty when it names none
  std::string speedUnit;           // the file's throughput metric, else "1/ms"
  std::vector<std::string> notes;  // the reader's remarks (repaired ending, duplicates, ...)
};

// The backend of a run `opevo import` stored: a measured file, with no tuner to go on and no
// operator of ours behind its configurations.
inline constexpr const char* kImportedBackend = "replay-import";
bool isImportedRun(const RunRecord& run);
// Runs with no operator of ours to generate a kernel for: a replay of a dataset and an imported
// file.
bool measuredElsewhere(const RunRecord& run);
// What a stored run's time budget counts: the clock its budget says (Budget::clock; one stored
// before budgets said it counted tuning time), or for a run with no time budget the clock a new
// one would count (engine/budget.h budgetClock): device time by the file for a run measured
// elsewhere, else its tuning time.
BudgetClock budgetClockOf(const RunRecord& run);
// `budget` as a new total for a stored run, on the clock the engine counts a new budget on for it
// (budgetClock): what a resume stores and checks.
Budget onItsClock(Budget budget, const RunRecord& run);
// A stored run's status in words, its "time" end in its clock's ("finished (device time)" for a
// replay): how the window, `opevo runs` and `opevo tune` say it.
std::string runStatusText(const RunRecord& run);
// With its trials: "finished, no trial" for a finished run that has none.
std::string runStatusText(const RunRecord& run, long long trials);

// Stores a measured file (T4 results or a Kernel Tuner cache, gzip or plain, read by
// loadReplayDataset) as a finished run: backend kImportedBackend, algorithm "import", the device
// the file names, and one trial per configuration in the reader's order (a configuration listed
// twice keeps its last measurement, as the replay reader does). That order is the file's for T4;
// for a Kernel Tuner cache it is the cache keys sorted as text, which the JSON library imposes,
// not the order of measurement: an imported run's seq is not a tuning trajectory. The file is read
// and checked in full before anything is written, and the run is written in one transaction: a bad
// file (a T4 result lacking a required field, malformed JSON) throws InputError naming the file and
// the field, and the store is left as it was.
//
// What a T4 file says of each result is kept where the store has a column for it: timestamp
// (the trial's finished, in the store's ISO 8601 UTC to the millisecond), times.validation,
// times.search_algorithm (tuner_ms) and times.framework (as the measurement's time, which export-t4
// turns back into it); our exports' per-trial start, tuning seconds and measurement time too. Of a
// Kernel Tuner cache entry: timestamp, compile_time, verification_time (verify_ms),
// strategy_time (tuner_ms), and benchmark_time + verification_time as the measurement's time
// (measure_ms), what a replay of the file charges for it (io/replay_dataset.h); its
// framework_time (Kernel Tuner's own Python) has no column, and tuning seconds stay 0 (the seq
// is not the order of measurement). The run's started and ended are its first and last timestamps,
// the import's time only for a file with none, and its seed the file's metadata.seed, unknown where
// the file names none (knownSeed).
ImportedRun importRun(Store& store, const std::string& path);

// importRun in two steps, so that a command reads and checks the file before it opens (and
// perhaps creates) a database: what it stores, and storing it.
struct ImportFile {
  RunRecord run;
  std::vector<TrialRow> trials;
  ImportedRun info;  // all but runId
};
ImportFile readImportFile(const std::string& path);

// "speed in GFLOP/s", or for a file without a throughput "speed in 1/ms (1/time: ...)": the same
// kernels read from a file that has one are in its unit, which a summary must not leave unsaid.
std::string speedText(const ImportedRun& run);
ImportedRun storeImport(Store& store, const ImportFile& file);

// The name a run's curve goes by: its algorithm, or for an imported file that says which tuner
// measured it (our T4 exports), that tuner, marked imported ("opevo-m (imported)"), so runs of
// different tuners are not drawn as repeats of one "import".
std::string measuredBy(const RunRecord& run);

// The seed a run's trials were proposed with, when known: an imported file's only when the file
// names it (our exports' metadata.seed); the runs column holds 0 for the others, which is no
// seed, so a list shows "-" for none.
std::optional<std::uint64_t> knownSeed(const RunRecord& run);

// A T4 or Kernel Tuner timestamp ("2023-12-22 09:54:05.502007+00:00") in the store's form
// ("2023-12-22T09:54:05.502Z": UTC, to the millisecond as Store::nowUtc writes); a text that is
// not such a time is returned as it is.
std::string utcTimestamp(const std::string& text);

}  // namespace opevo
