#pragma once

#include <sqlite3.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/records.h"
#include "store/run_deletion.h"

namespace opevo {

// The SQLite database of runs and trials. WAL mode, and every trial is committed as it arrives,
// so a kill -9 loses at most the trials still being measured. Opening checks the file first,
// read-only: a corrupt file, another application's database, or one from a newer schema is
// refused with a clear message and left byte-for-byte untouched.
class Store {
 public:
  static constexpr int kSchemaVersion = 12;

  enum class Opening {
    // A first start, a new run: the file and its folder are made. A file or folder this process
    // cannot write is refused at once, by name: what opens it this way stores runs.
    CreateWhenMissing,
    // What reads or acts on runs already shown (opevo runs, show, export, export-t4, the net
    // and kas readers; in the window, History's list and charts and the export dialogs): a file
    // moved or deleted meanwhile
    // is said to be gone, not made again empty at the old path (with its folder). A file that it
    // or its folder makes read-only (a colleague's copy, a read-only share) is opened read-only,
    // making nothing beside it: everything reads, and a write fails naming the file as
    // read-only. An older schema is then upgraded in memory, the file left as it is.
    ExistingOnly,
  };
  // Opens and migrates to kSchemaVersion.
  explicit Store(const std::string& path, Opening opening = Opening::CreateWhenMissing);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // $OPEVO_DB when set, else $XDG_DATA_HOME/opevo-studio/opevo.db, else
  // ~/.local/share/opevo-studio/opevo.db.
  static std::string defaultPath();
  // How the window's pages that list stored work open `path`: ExistingOnly where the file is
  // there (a colleague's file or a read-only share is read read-only), CreateWhenMissing where
  // it is not yet (a first start makes it; a path that cannot be made is said).
  static Opening openingToList(const std::string& path);

  const std::string& path() const { return m_path; }
  // Opened read-only (Opening::ExistingOnly on a file this process cannot write).
  bool readOnly() const { return m_readOnly; }

  // A race groups the runs that one engine interleaved; its runs name it in RunRecord::raceId.
  // Its schedule and seed (EngineOptions) are kept, so a resumed race goes on under them.
  std::int64_t createRace(Schedule schedule, std::uint64_t scheduleSeed);
  std::int64_t createRun(const RunRecord& run);
  // Marks the run ended (with the time) for a status other than Running, or running again, and
  // keeps `failure` (RunRecord::failure; a run going on again has none).
  void setRunStatus(std::int64_t runId, RunStatus status, EndReason reason = EndReason::None,
                    const std::string& failure = {});
  void setRunReference(std::int64_t runId, const std::string& library, double speed);
  // RunRecord::sideBySideJson.
  void setRunSideBySide(std::int64_t runId, const std::string& json);
  // A run given a new budget (Budget::toJson) before it goes on: `tune --resume N --trials M`.
  void setRunBudget(std::int64_t runId, const std::string& budgetJson);
  // Commits at once.
  void appendTrial(const TrialRow& trial);
  // Creates the run and all its trials (their runId is set here) in one transaction: either all
  // of it is stored or, when anything fails, none of it, so an import never leaves half a run.
  std::int64_t createRunWithTrials(const RunRecord& run, const std::vector<TrialRow>& trials);

  // Caps the file at its current size plus this many pages (PRAGMA max_page_count, for this
  // connection): a store kept within a quota, and the way tests fill a "disk" for real.
  void limitPages(std::int64_t extraPages);

  std::vector<RunRecord> runs() const;
  std::optional<RunRecord> run(std::int64_t runId) const;
  std::vector<TrialRow> trials(std::int64_t runId) const;
  std::vector<RunRecord> raceRuns(std::int64_t raceId) const;
  // Every run's trial count and best speed (of its working trials), by run id, in one query: what
  // a listing of all runs shows beside them. A run without trials is absent.
  std::map<std::int64_t, RunTally> runTallies() const;
  // The highest trial order stored for the run's race (for a run of its own, the run): a resumed
  // run's trials continue from it.
  long long lastOrder(const RunRecord& run) const;

  // Deleting runs (run_deletion.cpp). A run may go when the store holds it, no process is tuning
  // it (it would go on storing trials of a run that is gone; store/run_lock.h), and it is no task
  // of a network run (the network's plan, units and resume need every task run).
  RunDeletionCheck checkRunDeletion(const std::vector<std::int64_t>& ids) const;
  // Deletes the runs and their trials in one transaction, and keeps each one's id and description
  // (deleted_runs): every run or, when any may not go (InputError with checkRunDeletion's
  // refusals), none. Each run is held (RunLock) while it goes, and a resume takes that lock before
  // it reads its run: a resume started meanwhile is refused, or finds the run gone. A race left
  // without runs keeps its row, so its id is never given again. Returns what was deleted.
  std::vector<RunAndTrials> deleteRuns(const std::vector<std::int64_t>& ids);
  // "no run 7 in PATH", or for a deleted run "run 3 (MM1, opevo, 300 trials) was deleted from
  // PATH on 2026-11-29T11:45:08Z": what to say when a run asked for is not there.
  std::string missingRunText(std::int64_t runId) const;

  // Runs f inside one transaction: everything it stores is committed together, or (when it
  // throws) nothing is. Called inside another, f's part is a savepoint of the outer one: undone
  // when f throws, and committed only with the outer transaction.
  void inTransaction(const std::function<void()>& f);

  // Networks (network_store.cpp).
  // Stores the record as given (a new run has no end or result yet; a restored one has its own),
  // and its start, or now when it has none. Not its task runs: setNetworkTaskRun.
  std::int64_t createNetwork(const NetworkRecord& network);
  void setNetworkTaskRun(std::int64_t networkId, int task, std::int64_t runId);
  // Commits at once, after the unit's trials.
  void appendNetworkUnit(std::int64_t networkId, const NetworkUnitRow& unit);
  void setNetworkStatus(std::int64_t networkId, RunStatus status, const std::string& resultJson);
  std::optional<NetworkRecord> network(std::int64_t networkId) const;
  std::vector<NetworkRecord> networks() const;
  std::vector<NetworkUnitRow> networkUnits(std::int64_t networkId) const;
  // Deleting network runs (run_deletion.cpp), as deleteRuns: a network run goes with its units,
  // its task runs and their trials, all or none, when no process tunes it (its lock is held while
  // it goes, and a resume takes that lock before reading it). Each network's id and description is
  // kept (deleted_networks), and each task run's (deleted_runs).
  NetworkDeletionCheck checkNetworkDeletion(const std::vector<std::int64_t>& ids) const;
  std::vector<NetworkAndTrials> deleteNetworks(const std::vector<std::int64_t>& ids);
  // "no network run 7 in PATH (opevo net runs lists them)", or when it was deleted, what it was
  // and when it went.
  std::string missingNetworkText(std::int64_t networkId) const;

  // Canvas's kernel searches (kas_store.cpp).
  std::int64_t createKasSearch(const KasSearchRecord& search);
  void setKasSearchStatus(std::int64_t searchId, RunStatus status);
  void setKasSearchBaseline(std::int64_t searchId, const std::string& baselineJson);
  // Inserts the candidate, or replaces the row of the same (search, seq): a candidate is written
  // again as it moves on from sampled to tuned to trained. Commits at once.
  void putKasCandidate(const KasCandidateRow& candidate);
  std::optional<KasSearchRecord> kasSearch(std::int64_t searchId) const;
  std::vector<KasSearchRecord> kasSearches() const;
  std::vector<KasCandidateRow> kasCandidates(std::int64_t searchId) const;

  static std::string nowUtc();

 private:
  void migrate();
  // After opening read-only: writes refused, and an older schema upgraded in a copy in memory.
  void openedReadOnly();

  std::string m_path;
  sqlite3* m_db = nullptr;
  bool m_readOnly = false;
};

}  // namespace opevo
