// Deleting stored runs: what may go, and everything that goes with a run.

#include "store/run_deletion.h"

#include <map>
#include <memory>
#include <set>

#include "common/error.h"
#include "space/text.h"
#include "store/live_status.h"
#include "store/run_lock.h"
#include "store/sqlite_handle.h"
#include "store/store.h"

namespace opevo {

int RunDeletionCheck::trials() const {
  int n = 0;
  for (const RunAndTrials& r : runs) n += r.trials;
  return n;
}

std::string describeRun(const RunAndTrials& r) {
  return "run " + std::to_string(r.run.id) + " (" + r.run.operatorName + ", " + r.run.algorithm +
         ", " + counted(r.trials, "trial", "trials") + ")";
}

std::string describeNetwork(const NetworkAndTrials& n) {
  return "network run " + std::to_string(n.network.id) + " (" + n.network.name + ", " +
         counted(static_cast<int>(n.network.taskRuns.size()), "task", "tasks") + ", " +
         counted(n.trials, "trial", "trials") + ")";
}

std::string refusalText(const std::vector<std::string>& refusals) {
  std::string text;
  for (const std::string& r : refusals) text += (text.empty() ? "" : "; ") + r;
  return text + "; nothing was deleted";
}

namespace {

std::string beingTuned(const std::string& what) {
  return what +
         " is being tuned now (by this program or another): stop it, or let it end, before "
         "deleting it";
}

std::string beingTuned(std::int64_t runId) {
  return beingTuned("run " + std::to_string(runId));
}

std::string networkRunName(std::int64_t id) {
  return "network run " + std::to_string(id);
}

int trialsOf(sqlite3* db, std::int64_t runId) {
  Statement count(db, "SELECT count(*) FROM trials WHERE run_id = ?");
  count.bind(1, runId).step();
  return static_cast<int>(count.integer(0));
}

// Deletes the run and its trials, and keeps its id and description (deleted_runs).
void deleteRunRows(sqlite3* db, const std::int64_t runId, const std::string& description) {
  Statement trials(db, "DELETE FROM trials WHERE run_id = ?");
  trials.bind(1, runId).run();
  // Foreign keys are on: a table added later that keys on runs and is not emptied here fails
  // this statement, and the transaction with it, rather than leaving rows of a deleted run.
  Statement run(db, "DELETE FROM runs WHERE id = ?");
  run.bind(1, runId).run();
  Statement kept(db,
                 "INSERT OR REPLACE INTO deleted_runs (id, deleted, description) VALUES (?, ?, ?)");
  kept.bind(1, runId).bind(2, Store::nowUtc()).bind(3, description).run();
}

}  // namespace

RunDeletionCheck Store::checkRunDeletion(const std::vector<std::int64_t>& ids) const {
  RunDeletionCheck check;
  std::map<std::int64_t, const NetworkRecord*> networkOf;  // task run -> its network run
  const std::vector<NetworkRecord> all = networks();
  for (const NetworkRecord& n : all)
    for (std::int64_t run : n.taskRuns) networkOf[run] = &n;
  const LiveStatus live(*this);
  std::set<std::int64_t> seen;
  for (const std::int64_t id : ids) {
    if (!seen.insert(id).second) continue;  // named twice: deleted once
    const std::optional<RunRecord> run = this->run(id);
    if (!run) {
      check.refusals.push_back(missingRunText(id));
      continue;
    }
    if (const auto n = networkOf.find(id); n != networkOf.end())
      check.refusals.push_back("run " + std::to_string(id) + " is a task of network run " +
                               std::to_string(n->second->id) + " (" + n->second->name +
                               "): that run's plan, units and resume need it, so it goes only "
                               "with its network run (opevo net delete " +
                               std::to_string(n->second->id) + ", or Delete on the Networks page)");
    else if (live.of(*run) == RunStatus::Running)
      check.refusals.push_back(beingTuned(id));
    check.runs.push_back({*run, trialsOf(m_db, id)});
  }
  return check;
}

std::vector<RunAndTrials> Store::deleteRuns(const std::vector<std::int64_t>& ids) {
  RunDeletionCheck check;
  // Released after the transaction ends (declared before it): a resume waiting on a run finds it
  // gone, never half deleted.
  std::vector<std::unique_ptr<RunLock>> held;
  inTransaction([&] {
    check = checkRunDeletion(ids);
    if (!check.refusals.empty()) throw InputError(refusalText(check.refusals));
    for (const RunAndTrials& r : check.runs) {
      try {
        held.push_back(std::make_unique<RunLock>(m_path, LockedKind::Run, r.run.id));
      } catch (const InputError&) {
        // Taken by a resume since the check.
        throw InputError(refusalText({beingTuned(r.run.id)}));
      }
    }
    for (const RunAndTrials& r : check.runs) deleteRunRows(m_db, r.run.id, describeRun(r));
    // A race left with no runs keeps its row (its start time): SQLite would give the newest
    // race's id again once its row is gone, and race ids are shown (`opevo runs --json`).
  });
  return check.runs;
}

NetworkDeletionCheck Store::checkNetworkDeletion(const std::vector<std::int64_t>& ids) const {
  NetworkDeletionCheck check;
  const LiveStatus live(*this);
  std::set<std::int64_t> seen;
  for (const std::int64_t id : ids) {
    if (!seen.insert(id).second) continue;
    std::optional<NetworkRecord> network = this->network(id);
    if (!network) {
      check.refusals.push_back(missingNetworkText(id));
      continue;
    }
    if (live.of(*network) == RunStatus::Running)
      check.refusals.push_back(beingTuned(networkRunName(id)));
    NetworkAndTrials n{std::move(*network), 0};
    for (const std::int64_t run : n.network.taskRuns) n.trials += trialsOf(m_db, run);
    check.networks.push_back(std::move(n));
  }
  return check;
}

std::vector<NetworkAndTrials> Store::deleteNetworks(const std::vector<std::int64_t>& ids) {
  NetworkDeletionCheck check;
  std::vector<std::unique_ptr<RunLock>> held;  // as deleteRuns: released after the transaction
  inTransaction([&] {
    check = checkNetworkDeletion(ids);
    if (!check.refusals.empty()) throw InputError(refusalText(check.refusals));
    for (const NetworkAndTrials& n : check.networks) {
      try {
        held.push_back(std::make_unique<RunLock>(m_path, LockedKind::Network, n.network.id));
      } catch (const InputError&) {
        throw InputError(refusalText({beingTuned(networkRunName(n.network.id))}));
      }
    }
    for (const NetworkAndTrials& n : check.networks) {
      const std::string id = std::to_string(n.network.id);
      for (const char* table : {"network_units", "network_tasks"}) {
        Statement rows(m_db,
                       ("DELETE FROM " + std::string(table) + " WHERE network_id = ?").c_str());
        rows.bind(1, n.network.id).run();
      }
      for (const std::int64_t run : n.network.taskRuns) {
        const std::optional<RunRecord> r = this->run(run);
        if (!r) continue;
        deleteRunRows(m_db, run,
                      describeRun({*r, trialsOf(m_db, run)}) + ", a task of " +
                          networkRunName(n.network.id) + " (" + n.network.name + ")");
      }
      Statement network(m_db, "DELETE FROM networks WHERE id = ?");
      network.bind(1, n.network.id).run();
      Statement kept(m_db,
                     "INSERT OR REPLACE INTO deleted_networks (id, deleted, description) VALUES "
                     "(?, ?, ?)");
      kept.bind(1, n.network.id).bind(2, nowUtc()).bind(3, describeNetwork(n)).run();
    }
  });
  return check.networks;
}

std::string Store::missingNetworkText(std::int64_t networkId) const {
  Statement gone(m_db, "SELECT description, deleted FROM deleted_networks WHERE id = ?");
  if (gone.bind(1, networkId).step())
    return gone.text(0) + " was deleted from " + m_path + " on " + gone.text(1);
  return "no network run " + std::to_string(networkId) + " in " + m_path +
         " (opevo net runs lists them)";
}

std::string Store::missingRunText(std::int64_t runId) const {
  Statement gone(m_db, "SELECT description, deleted FROM deleted_runs WHERE id = ?");
  if (gone.bind(1, runId).step())
    return gone.text(0) + " was deleted from " + m_path + " on " + gone.text(1);
  return "no run " + std::to_string(runId) + " in " + m_path;
}

}  // namespace opevo
