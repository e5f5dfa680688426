#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

namespace opevo {

// For files exported before the export wrote the run's seed and operator into metadata
// (the leases of 2026-11-26 and 27 wrote such files): where the file names them, the file wins.
struct RestoreOptions {
  // The operator as a run of `backend` stores it (its operatorJson), e.g. a preset given its
  // backend's space; asked for only when the file does not hold one.
  std::function<std::string(const std::string& backend)> operatorFor;
  // The seed; InputError when the file names another.
  std::optional<std::uint64_t> seed;
  // The name of the operator operatorFor gives (--op's); InputError when the file holds its
  // operator and names another, so an option is never silently ignored.
  std::string operatorName;
};

// A run and its trials as a T4 document describes them, ready to store (no ids yet).
struct RunWithTrials {
  RunRecord run;
  std::vector<TrialRow> trials;
};

// What restoreRun reads from its file, read from a T4 document parsed already: the same checks,
// for a run that came inside another file (a network archive's task runs, io/network_archive.h).
// `where` begins every error ("FILE", "FILE: task 3's run"). A document without results is a run
// without trials (a network's task the scheduler had not reached yet): allowed here, refused by
// restoreRun. Stores nothing.
RunWithTrials runFromT4(const nlohmann::ordered_json& document, const std::string& where,
                        const RestoreOptions& options = {});

struct RestoredRun {
  std::int64_t runId = 0;
  std::size_t trials = 0;
  RunRecord run;  // as stored
};

// Stores a T4 file that this program exported (`opevo export-t4`) as the run it was exported from:
// its operator, tuner, settings, seed, backend, device, budget, status and reference, and each
// trial's configuration (in its operator's space, as the run stored it), status, times, speed,
// message and timestamps. Where importRun stores a measured file as a replay of measurements,
// this puts a tuning run back, so that what reads runs (History, `opevo runs`, the GPU campaign's
// plan, a resume of an interrupted run) sees it as it was; a campaign whose database was lost
// goes on from its committed T4 files. Files written before metadata carried everything read back
// with what they have: launch errors as runtime faults (T4 has one name for both), no trial
// starts, and tuning times of 0.
// Throws InputError, storing nothing, for a file our export did not write, one whose
// configurations do not fit its operator's space, a run without results, or a missing seed or
// operator.
RestoredRun restoreRun(Store& store, const std::string& path, const RestoreOptions& options = {});

// restoreRun in two steps, so that a command reads and checks the file before it opens (and
// perhaps creates) a database: the file read with every check above, and storing what it holds.
RunWithTrials readRestoreFile(const std::string& path, const RestoreOptions& options = {});
// Refuses (InputError, storing nothing) a run the store holds already, one restored before from
// the same file or its run's database: two copies of one history resume apart and are counted
// twice. Its operator, algorithm, seed, backend, device, settings and start tell it (ids differ
// between databases). With allowCopy it is stored again as another run. howToCopy ends the
// refusal ("--copy stores it again").
RestoredRun storeRestoredRun(Store& store, RunWithTrials run, bool allowCopy = false,
                             const std::string& howToCopy = {});

}  // namespace opevo
