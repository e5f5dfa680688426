#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "store/records.h"
#include "store/store.h"

namespace opevo {

// A stored run as a T4 results document (schema_version "1.0.0", the autotuning community's
// exchange format), one result per trial in measurement order:
//   timestamp      the trial's finish time (else its start, else the run's start)
//   configuration  parameter -> value, in the run's parameter order, parsed from the trial's
//                  "name=value; ..." text: a value that reads as a JSON number, string, boolean
//                  or null is written as that, anything else (a factorization "8,2,4") as a string
//   times          compilation and runtimes (ms) as measured; validation the verification's
//                  time (verifyMs); framework the measurement's time less its runtimes and its
//                  verification (0 for a trial stored before schema 5, without measureMs);
//                  search_algorithm 0, since the store does not keep the tuner's time
//   invalidity     correct, compile (compile_error), runtime (runtime_fault and launch_error),
//                  timeout, correctness (wrong_result) or constraints (rejected)
//   correctness    1 for a successful trial, else 0
//   measurements   "time" (ms: the mean of the runtimes, or 1/speed when speed is 1/ms) and the
//                  speed under its unit (GFLOP/s, TFLOPS) when that is a throughput; for a failed
//                  trial, "time" holds the failure's message
//   objectives     ["time"], as Kernel Tuner writes
// plus metadata (timeunit "milliseconds", device_name, kernel_name, algorithm, backend, run_id,
// speed_unit) that the import reads back where it can, and what restoreRun (io/run_restore.h)
// needs to store the run again as it was: seed, operator, settings, budget (as JSON), status,
// end_reason, started, ended, label, and per result (metadata.trials) its exact status, start,
// the run's tuning time at it, its whole measurement time (measure_ms), its message (a
// success's too, which T4 has no place for) and, for a trial a cluster agent measured, the agent.
// A run without trials gives an empty results list (a network archive's task run that the
// scheduler had not reached yet; a T4 file of its own needs a result, so exportRunT4 refuses it).
// Text that is not UTF-8 (a damaged database: JSON cannot hold such bytes, and writing it threw
// "invalid UTF-8 byte at index 203") is written with each invalid byte as \xNN, and a line naming
// the run, the trial and the column is added to `notes` when given.
nlohmann::ordered_json runToT4(const RunRecord& run, const std::vector<TrialRow>& trials,
                               std::vector<std::string>* notes = nullptr);

// Writes run runId of store to path as T4 JSON, gzip-compressed when path ends in ".gz", through
// a temporary file renamed into place, so a failed export leaves no partial file. Returns the
// number of results. Throws InputError for an unknown run, a run without trials, or a path that
// cannot be written.
// `notes` as runToT4's.
std::size_t exportRunT4(const Store& store, std::int64_t runId, const std::string& path,
                        std::vector<std::string>* notes = nullptr);

}  // namespace opevo
