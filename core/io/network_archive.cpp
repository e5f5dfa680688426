#include "io/network_archive.h"

#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "common/error.h"
#include "io/export_file.h"
#include "io/gzip_file.h"
#include "io/json_column.h"
#include "io/json_text.h"
#include "io/run_restore.h"
#include "io/t4_export.h"
#include "net/network_json.h"
#include "net/network_plan.h"
#include "net/tasks.h"
#include "store/live_status.h"

namespace opevo {
namespace {

// ordered_json: a column written as JSON keeps its stored key order, so it reads back as the
// same text.
using OJson = nlohmann::ordered_json;

constexpr const char* kFormat = "opevo-network-run";
constexpr int kVersion = 1;

const OJson& member(const OJson& j, const char* name, const std::string& where) {
  if (!j.is_object() || !j.contains(name)) throw InputError(where + name + " is missing");
  return j.at(name);
}

std::string text(const OJson& j, const char* name, const std::string& where) {
  const OJson& v = member(j, name, where);
  if (!v.is_string()) throw InputError(where + name + " is not a text");
  return v.get<std::string>();
}

long long integer(const OJson& j, const char* name, const std::string& where) {
  const OJson& v = member(j, name, where);
  if (!v.is_number_integer()) throw InputError(where + name + " is not a whole number");
  return v.get<long long>();
}

const OJson& array(const OJson& j, const char* name, const std::string& where) {
  const OJson& v = member(j, name, where);
  if (!v.is_array()) throw InputError(where + name + " is not a list");
  return v;
}

// How many tasks the archived network has, as `net tune --resume` will extract them.
std::size_t taskCount(const NetworkRecord& n, const std::string& path) {
  const net::ParamOverrides params = net::paramsFromJson(n.paramsJson, path + ": network.");
  try {
    return net::extractTasks(net::networkFromText(n.networkJson, n.source, params)).tasks.size();
  } catch (const InputError& e) {
    throw InputError(path + ": its network does not read (" + e.what() + ")");
  }
}

}  // namespace

std::size_t exportNetworkArchive(const Store& store, std::int64_t networkId,
                                 const std::string& path) {
  const std::optional<NetworkRecord> n = store.network(networkId);
  if (!n) throw InputError(store.missingNetworkText(networkId));
  OJson network = {{"id", n->id},
                   {"name", n->name},
                   {"source", n->source},
                   {"backend", n->backend},
                   {"status", std::string(runStatusName(n->status))},
                   {"started", n->started},
                   {"ended", n->ended},
                   {"params", columnJson(n->paramsJson)},
                   {"plan", columnJson(n->planJson)},
                   {"result", columnJson(n->resultJson)},
                   {"network_json", n->networkJson}};
  OJson units = OJson::array();
  for (const NetworkUnitRow& u : store.networkUnits(networkId))
    units.push_back({{"seq", u.seq}, {"task", u.task}, {"trials", u.trials}});
  // Every task has its run from the network's start (one transaction creates them all), in task
  // order; a task the scheduler had not reached has one without trials.
  OJson tasks = OJson::array();
  std::size_t trials = 0;
  for (std::size_t i = 0; i < n->taskRuns.size(); ++i) {
    const std::optional<RunRecord> run = store.run(n->taskRuns[i]);
    if (!run)
      throw InputError("network run " + std::to_string(networkId) + ": the run of its task " +
                       std::to_string(i) + " is missing from database '" + store.path() + "'");
    const std::vector<TrialRow> rows = store.trials(run->id);
    trials += rows.size();
    tasks.push_back({{"task", i}, {"run", runToT4(*run, rows)}});
  }
  const OJson archive = {{"format", kFormat},
                         {"version", kVersion},
                         {"exported_by", std::string("OpEvo Studio ") + OPEVO_VERSION},
                         {"network", std::move(network)},
                         {"units", std::move(units)},
                         {"tasks", std::move(tasks)}};
  writeExportFile(path, archive.dump(2));
  return trials;
}

NetworkArchive readNetworkArchive(const std::string& path) {
  const std::string content = readMaybeGzipped(path);
  const OJson root = OJson::parse(content, nullptr, false);
  if (root.is_discarded()) {
    parseJsonFile(content, path);  // throws what is wrong: an empty file, or the line and column
    throw InputError(path + ": not JSON");
  }
  const auto format = root.is_object() ? root.find("format") : root.end();
  if (format == root.end() || *format != kFormat) {
    // A run's own file is the likeliest mistake.
    const bool t4 = root.is_object() && root.contains("results");
    throw InputError(path + ": not a network run archive (its \"format\" is not \"" + kFormat +
                     "\"; `opevo net archive` writes them)" +
                     (t4 ? "; a T4 file of one run restores with `opevo import --restore`" : ""));
  }
  const long long version = integer(root, "version", path + ": ");
  if (version > kVersion)
    throw InputError(path + ": an archive of version " + std::to_string(version) +
                     ", written by a newer program; this one reads version " +
                     std::to_string(kVersion) + " and older");
  if (version < 1) throw InputError(path + ": version " + std::to_string(version) + " is not one");

  const std::string at = path + ": network.";
  const OJson& n = member(root, "network", path + ": ");
  NetworkRecord rec;
  rec.name = text(n, "name", at);
  rec.source = text(n, "source", at);
  rec.backend = text(n, "backend", at);
  const std::string status = text(n, "status", at);
  const std::optional<RunStatus> parsed = runStatusNames().parse(status);
  if (!parsed)
    throw InputError(at + "status '" + status + "' is not one of " + runStatusNames().list());
  rec.status = *parsed;
  rec.started = text(n, "started", at);
  rec.ended = text(n, "ended", at);
  rec.networkJson = text(n, "network_json", at);
  rec.paramsJson = columnText(member(n, "params", at));
  rec.planJson = columnText(member(n, "plan", at));
  rec.resultJson = columnText(member(n, "result", at));
  // What `net runs` and a resume read from these columns must read: checked here, not there.
  const net::NetworkTuningPlan plan = net::planFromJson(rec.planJson, at + "plan: ");
  // The backends a network run is tuned on (net tune's --backend): a resume measures there.
  if (rec.backend != "cpu" && rec.backend != "cuda" && rec.backend != "hip")
    throw InputError(at + "backend '" + rec.backend + "' is not one of cpu, cuda, hip");
  if (!rec.resultJson.empty()) {
    const OJson result = OJson::parse(rec.resultJson, nullptr, false);
    if (result.is_discarded() || !result.is_object())
      throw InputError(at + "result is neither empty (not concluded) nor a JSON object");
  }
  const std::size_t tasks = taskCount(rec, path);
  const auto outside = [&](const std::string& where, long long task) {
    // A network of no tasks has no range to give ("0 to 18446744073709551615" it said).
    return where + "task " + std::to_string(task) + " is outside the network, " +
           (tasks == 0 ? std::string("which has no tasks")
                       : "whose " + std::to_string(tasks) + " tasks are 0 to " +
                             std::to_string(tasks - 1));
  };

  std::vector<NetworkUnitRow> units;
  for (const OJson& u : array(root, "units", path + ": ")) {
    const std::string where = path + ": unit " + std::to_string(units.size() + 1) + ": ";
    const long long seq = integer(u, "seq", where), task = integer(u, "task", where),
                    trials = integer(u, "trials", where);
    if (seq != static_cast<long long>(units.size()) + 1)
      throw InputError(where + "seq is " + std::to_string(seq) + ": units are numbered 1, 2, ...");
    if (task < 0 || task >= static_cast<long long>(tasks)) throw InputError(outside(where, task));
    if (trials < 0 || trials > std::numeric_limits<int>::max())
      throw InputError(where + "trials is " + std::to_string(trials) + ", not a count of trials");
    units.push_back({static_cast<int>(seq), static_cast<int>(task), static_cast<int>(trials)});
  }

  // Every task run read and checked before anything is stored.
  std::vector<std::optional<RunWithTrials>> runs(tasks);
  for (const OJson& t : array(root, "tasks", path + ": ")) {
    const long long task = integer(t, "task", path + ": tasks: ");
    if (task < 0 || task >= static_cast<long long>(tasks))
      throw InputError(outside(path + ": tasks: ", task));
    std::optional<RunWithTrials>& run = runs[static_cast<std::size_t>(task)];
    if (run) throw InputError(path + ": task " + std::to_string(task) + " has two runs");
    const std::string where = path + ": task " + std::to_string(task) + "'s run";
    run = runFromT4(member(t, "run", where + ": "), where);
    // Archived while its program was killed or cut off: nothing runs it here.
    if (run->run.status == RunStatus::Running) run->run.status = RunStatus::Interrupted;
  }
  for (std::size_t i = 0; i < tasks; ++i)
    if (!runs[i])
      throw InputError(path + ": task " + std::to_string(i) +
                       " has no run (a network run has one for each of its tasks)");
  // The units count trials their task's run holds: a resume replays each unit from them.
  std::vector<long long> counted(tasks, 0);
  for (const NetworkUnitRow& u : units) counted[static_cast<std::size_t>(u.task)] += u.trials;
  // Trials beyond the units are the unit a kill cut short: at most one unit's, of one task, and
  // none once the run finished. More would not replay (the scheduler picks from the units).
  int cut = 0;
  for (std::size_t i = 0; i < tasks; ++i) {
    const long long held = static_cast<long long>(runs[i]->trials.size());
    if (counted[i] > held)
      throw InputError(path + ": the units give task " + std::to_string(i) + " " +
                       std::to_string(counted[i]) + " trials, and its run holds " +
                       std::to_string(held));
    if (counted[i] == held) continue;
    const bool finished = rec.status == RunStatus::Finished;
    if (finished || ++cut > 1 || held - counted[i] > static_cast<long long>(plan.unit))
      throw InputError(path + ": task " + std::to_string(i) + "'s run holds " +
                       std::to_string(held) + " trials and the units give it " +
                       std::to_string(counted[i]) + ": units are missing (" +
                       (finished ? std::string("a finished run has a unit for every trial")
                                 : "only the one unit a kill cut short, at most " +
                                       std::to_string(plan.unit) + " trials of one task, may be") +
                       ")");
  }
  if (rec.status == RunStatus::Running) rec.status = RunStatus::Interrupted;
  NetworkArchive archive{std::move(rec), std::move(units), {}};
  for (auto& run : runs) archive.runs.push_back(std::move(*run));
  return archive;
}

RestoredNetwork storeNetworkArchive(Store& store, NetworkArchive archive,
                                    const std::string& dbOption) {
  NetworkRecord& rec = archive.network;
  // The same run twice would be two runs of one history: resumed apart, they diverge, and every
  // listing counts it twice. Its start, network and plan tell it (ids differ between databases).
  for (const NetworkRecord& n : store.networks()) {
    if (n.started != rec.started || n.name != rec.name || n.planJson != rec.planJson ||
        n.networkJson != rec.networkJson)
      continue;
    // Only a command that works: a finished run resumes to "nothing to resume", and one that
    // another process tunes refuses a second tuner.
    const std::string id = std::to_string(n.id);
    const RunStatus status = LiveStatus(store).of(n);
    const std::string next = status == RunStatus::Finished
                                 ? "finished: opevo net runs " + id + dbOption + " shows it"
                             : status == RunStatus::Running
                                 ? "another process is tuning it: opevo net runs " + id + dbOption +
                                       " shows how far it got"
                                 : "opevo net tune --resume " + id + dbOption + " goes on with it";
    throw InputError("network run " + id + " of " + store.path() +
                     " is this archive's run already (" + n.name + ", started " + n.started +
                     "): nothing stored (" + next + ")");
  }
  RestoredNetwork restored;
  store.inTransaction([&] {
    rec.id = store.createNetwork(rec);
    rec.taskRuns.clear();
    restored.trials = 0;
    for (std::size_t i = 0; i < archive.runs.size(); ++i) {
      const RunWithTrials& run = archive.runs[i];
      const std::int64_t runId = store.createRunWithTrials(run.run, run.trials);
      store.setNetworkTaskRun(rec.id, static_cast<int>(i), runId);
      rec.taskRuns.push_back(runId);
      restored.trials += run.trials.size();
    }
    for (const NetworkUnitRow& u : archive.units) store.appendNetworkUnit(rec.id, u);
  });
  restored.network = std::move(rec);
  return restored;
}

RestoredNetwork restoreNetworkArchive(Store& store, const std::string& path,
                                      const std::string& dbOption) {
  return storeNetworkArchive(store, readNetworkArchive(path), dbOption);
}

}  // namespace opevo
