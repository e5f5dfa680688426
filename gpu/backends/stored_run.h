#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend_factory.h"
#include "engine/budget.h"
#include "engine/engine.h"
#include "store/records.h"

namespace opevo {

class RunLock;
class Store;

// A stored run made ready to go on: its measurement rebuilt from the record, its plan (the stored
// algorithm, settings, seed and budget), and the trials already measured. The CLI's `tune
// --resume` and the window's History page both resume through this, so they continue a run the
// same way.
struct ResumedRun {
  RunRecord run;
  MeasurementSetup setup;
  RunPlan plan;
  std::vector<TrialRow> rows;                            // the stored trials
  std::vector<std::pair<Config, Measurement>> restored;  // the same, for the tuner
  double secondsBefore = 0;  // tuning time already spent (0 for runs stored before schema v2)
  long long nextOrder = 1;   // the order its next trial takes in its race
  int paceMs = 0;            // a replay's pace, as its race had it (replayPaceOf)
  // The run held for this process while this lives: another process resuming it is refused.
  std::shared_ptr<RunLock> lock;
};

// A replay's pace (each trial takes this long, so a race can be watched) is part of how the replay
// measures: a run's time budget buys trials at that pace, and a resume at another pace makes a run
// incomparable with its siblings (2279 trials in 5 s against their 240). So it is stored in the
// run's operator JSON beside the dataset ({"replay": path, "pace_ms": 20}); 0 and absent: none.
std::string withReplayPace(const std::string& operatorJson, int paceMs);
int replayPaceOf(const std::string& operatorJson);

// How a stored run goes on: alone (tune --resume, History's Resume), or as one of its network's
// tasks (the network session, which resumes them all).
enum class ResumeAs { Run, NetworkTask };

// Throws InputError for a run that is not in the store, or that another process is tuning
// (RunLock). Alone, also for a run that has already finished (unless given a new budget), and for
// a network's task: its
// trials are the network scheduler's to give, and one resumed alone to its own budget left the
// network run unable to replay its schedule (net tune --resume failed on it for good). As a
// network's task, a finished run goes on (its space ran out, or its network is not finished),
// and it is not marked running: the network marks its tasks once every one is read back.
//
// Who gives a run its new budget, which says how a budget it has spent is refused: in the
// command's words ("--trials is its new total") or in the window's (its dialog asks for a total).
enum class BudgetAskedBy { CommandLine, Window };

// A new budget (alone only) replaces the stored one, for an interrupted run or a finished one
// that is to go on: it is the run's total, so it must leave trials or time to spend (InputError,
// worded for `askedBy`, when the run has already spent it, or already reached its target speed).
// It is stored only once every check has passed, with the run held.
ResumedRun resumeStoredRun(Store& store, std::int64_t runId, const BackendOptions& options = {},
                           ResumeAs as = ResumeAs::Run,
                           const std::optional<Budget>& newBudget = std::nullopt,
                           BudgetAskedBy askedBy = BudgetAskedBy::CommandLine);

// Why these runs cannot go on together as one race (not raced together: another race, operator,
// backend or device), or an empty string when they can.
std::string whyNotOneRace(const std::vector<RunRecord>& runs);

// Several runs of one race resumed together, as resumeStoredRun resumes one: unfinished ones
// (History's whole race after a kill), or finished ones given a new budget (History's More
// trials…), the same total for each and checked against each run's own trials. Every run is held
// and checked before any is changed, and all are changed in one transaction: all go on or none.
// Only the first run of each space (operator JSON) has a measurer: one, but for a race across
// spaces; the others share its space, and an engine made on the first's setup measures them all.
// Throws InputError as resumeStoredRun, and for runs that are not of one race (whyNotOneRace).
std::vector<ResumedRun> resumeStoredRace(Store& store, const std::vector<std::int64_t>& runIds,
                                         const BackendOptions& options = {},
                                         const std::optional<Budget>& newBudget = std::nullopt,
                                         BudgetAskedBy askedBy = BudgetAskedBy::CommandLine);

// Adds the resumed run to an engine made on r.setup (with EngineOptions::firstOrder =
// r.nextOrder): its plan, its stored trials and tuning time, and its store id.
int addResumedRun(Engine& engine, const ResumedRun& r);

}  // namespace opevo
