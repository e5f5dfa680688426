// The network tables of the store (schema 3): a network run, its task runs and its units.

#include "common/error.h"
#include "store/sqlite_handle.h"
#include "store/store.h"

namespace opevo {
namespace {

constexpr const char* kNetworkColumns =
    "SELECT id, name, source, network_json, params_json, backend, plan_json, status, started, "
    "ended, result_json FROM networks";

NetworkRecord readNetwork(const Statement& s) {
  NetworkRecord n;
  n.id = s.integer(0);
  n.name = s.text(1);
  n.source = s.text(2);
  n.networkJson = s.text(3);
  n.paramsJson = s.text(4);
  n.backend = s.text(5);
  n.planJson = s.text(6);
  n.status = runStatusNames().parse(s.text(7)).value_or(RunStatus::Failed);
  n.started = s.text(8);
  n.ended = s.text(9);
  n.resultJson = s.text(10);
  return n;
}

}  // namespace

std::int64_t Store::createNetwork(const NetworkRecord& n) {
  Statement s(m_db,
              "INSERT INTO networks (id, name, source, network_json, params_json, backend, "
              "plan_json, status, started, ended, result_json) VALUES ("
              // Never a deleted network run's id (SQLite gives the newest row's again).
              "max(coalesce((SELECT max(id) FROM networks), 0), "
              "coalesce((SELECT max(id) FROM deleted_networks), 0)) + 1, "
              "?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, n.name).bind(2, n.source).bind(3, n.networkJson).bind(4, n.paramsJson);
  s.bind(5, n.backend).bind(6, n.planJson).bind(7, std::string(runStatusName(n.status)));
  s.bind(8, n.started.empty() ? nowUtc() : n.started).bind(9, n.ended).bind(10, n.resultJson);
  s.run();
  return sqlite3_last_insert_rowid(m_db);
}

void Store::setNetworkTaskRun(std::int64_t networkId, int task, std::int64_t runId) {
  Statement s(m_db, "INSERT INTO network_tasks (network_id, task, run_id) VALUES (?,?,?)");
  s.bind(1, networkId).bind(2, static_cast<std::int64_t>(task)).bind(3, runId).run();
}

void Store::appendNetworkUnit(std::int64_t networkId, const NetworkUnitRow& u) {
  Statement s(m_db, "INSERT INTO network_units (network_id, seq, task, trials) VALUES (?,?,?,?)");
  s.bind(1, networkId).bind(2, static_cast<std::int64_t>(u.seq));
  s.bind(3, static_cast<std::int64_t>(u.task)).bind(4, static_cast<std::int64_t>(u.trials)).run();
}

void Store::setNetworkStatus(std::int64_t networkId, RunStatus status,
                             const std::string& resultJson) {
  Statement s(m_db, "UPDATE networks SET status = ?, ended = ?, result_json = ? WHERE id = ?");
  s.bind(1, std::string(runStatusName(status)));
  s.bind(2, status == RunStatus::Running ? std::string() : nowUtc());
  s.bind(3, resultJson).bind(4, networkId).run();
}

std::optional<NetworkRecord> Store::network(std::int64_t networkId) const {
  std::optional<NetworkRecord> n;
  {
    Statement s(m_db, (std::string(kNetworkColumns) + " WHERE id = ?").c_str());
    s.bind(1, networkId);
    if (!s.step()) return std::nullopt;
    n = readNetwork(s);
  }
  Statement t(m_db, "SELECT run_id FROM network_tasks WHERE network_id = ? ORDER BY task");
  t.bind(1, networkId);
  while (t.step()) n->taskRuns.push_back(t.integer(0));
  return n;
}

std::vector<NetworkRecord> Store::networks() const {
  std::vector<std::int64_t> ids;
  {
    Statement s(m_db, "SELECT id FROM networks ORDER BY id");
    while (s.step()) ids.push_back(s.integer(0));
  }
  std::vector<NetworkRecord> out;
  for (std::int64_t id : ids) out.push_back(*network(id));
  return out;
}

std::vector<NetworkUnitRow> Store::networkUnits(std::int64_t networkId) const {
  Statement s(m_db,
              "SELECT seq, task, trials FROM network_units WHERE network_id = ? ORDER BY seq");
  s.bind(1, networkId);
  std::vector<NetworkUnitRow> out;
  while (s.step())
    out.push_back({static_cast<int>(s.integer(0)), static_cast<int>(s.integer(1)),
                   static_cast<int>(s.integer(2))});
  return out;
}

}  // namespace opevo
