#include "net/stored_network_run.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/utf8_text.h"
#include "net/layout_constraints.h"
#include "net/network_json.h"
#include "net/network_plan.h"
#include "net/tasks.h"
#include "store/live_status.h"
#include "store/store.h"

namespace opevo::net {
namespace {

std::optional<double> numberAt(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string textAt(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The strings of an array (others skipped); empty when there is none.
std::vector<std::string> textsAt(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  if (const auto it = j.find(key); it != j.end() && it->is_array())
    for (const nlohmann::json& s : *it)
      if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

// A stored layout_constraint's link: none in runs stored before depthwise links (residuals
// alone were pinned then).
LinkKind linkAt(const nlohmann::json& c, const std::string& where) {
  const std::string token = textAt(c, "link");
  if (token.empty()) return LinkKind::Residual;
  for (LinkKind kind : {LinkKind::Residual, LinkKind::DepthwiseInput, LinkKind::Input})
    if (token == linkKindName(kind)) return kind;
  throw InputError(where + " links by '" + token +
                   "', which this version does not know (residual, depthwise-input, input)");
}

// A stored layout_constraint's outcome: its token, or where a run stored before the token was
// kept, its "applied".
ConstraintOutcome outcomeAt(const nlohmann::json& c) {
  for (ConstraintOutcome o : {ConstraintOutcome::Applied, ConstraintOutcome::NoValidConfiguration})
    if (textAt(c, "outcome") == constraintOutcomeName(o)) return o;
  return c.value("applied", false) ? ConstraintOutcome::Applied
                                   : ConstraintOutcome::NoValidConfiguration;
}

// Whether task `task`'s depthwise-input constraint is the producer's: the task it is tied to
// (`by`) reads its output as its depthwise input.
bool byReads(const TaskGraph& graph, std::size_t task, const std::string& by) {
  for (const DepthwiseLink& l : depthwiseLinks(graph))
    if (l.writer == task && graph.tasks[l.reader].name == by) return true;
  return false;
}

// What the run's end stored (NetworkSession::resultJson).
void readConclusion(const nlohmann::json& j, const TaskGraph& graph, const std::string& where,
                    StoredNetworkRun& run) {
  run.concluded = true;
  run.sumOfTasksMs = numberAt(j, "sum_of_tasks_ms");
  run.sumOfReferencesMs = numberAt(j, "sum_of_references_ms");
  run.libraryNetworkMs = numberAt(j, "library_network_ms");
  const nlohmann::json tasks = j.value("tasks", nlohmann::json::array());
  for (std::size_t i = 0; i < run.tasks.size() && i < tasks.size(); ++i) {
    StoredNetworkTask& t = run.tasks[i];
    t.bestMs = numberAt(tasks[i], "best_ms");
    t.config = textAt(tasks[i], "config");
    t.referenceMs = numberAt(tasks[i], "reference_ms");
    t.referenceLibrary = textAt(tasks[i], "reference_library");
    t.referenceError = textAt(tasks[i], "reference_error");
    if (const auto c = tasks[i].find("layout_constraint"); c != tasks[i].end() && c->is_object()) {
      StoredNetworkTask::LayoutConstraint lc;
      lc.outcome = outcomeAt(*c);
      lc.by = textAt(*c, "by");
      lc.tensor = textAt(*c, "tensor");
      lc.outputLayout = textAt(*c, "output_layout");
      lc.link = linkAt(*c, where + "'s task " + t.name);
      lc.byReadsIt = lc.link == LinkKind::DepthwiseInput && byReads(graph, i, lc.by);
      t.layoutConstraint = std::move(lc);
    }
  }
  const nlohmann::json curve = j.value("curve", nlohmann::json::array());
  for (std::size_t u = 0; u < run.units.size() && u < curve.size(); ++u) {
    run.units[u].estimateMs = numberAt(curve[u], "estimate_ms");
    if (const auto from = curve[u].find("closing_from"); from != curve[u].end() && from->is_array())
      for (const nlohmann::json& name : *from)
        if (name.is_string()) run.units[u].closingFrom.push_back(name.get<std::string>());
  }
  run.endToEnd = endToEndFromResult(j);
  run.comparison = comparisonFromResult(j, where);
  run.endToEndError = textAt(j, "end_to_end_error");
  if (!run.endToEnd)
    run.endToEndMissing = textAt(j.value("reference", nlohmann::json::object()), "missing");
}

// An unfinished run: each unit takes its task's next stored trials, in the order they were
// measured, and the estimate after it is the sum of weight x each task's best so far, as the
// scheduler's objective is. Trials no unit covers (a unit cut short by a kill, or the unit in
// hand of a run being tuned, whose row comes at its end) are one more unit of their task, as a
// resume counts them (NetworkTuning::restore).
void replayUnits(const Store& store, StoredNetworkRun& run) {
  std::vector<std::vector<TrialRow>> trials;
  for (std::int64_t id : run.record.taskRuns) trials.push_back(store.trials(id));
  std::vector<std::size_t> next(run.tasks.size(), 0);
  std::vector<double> bestSpeed(run.tasks.size(), 0);
  // The task's next `count` trials; then the estimate over every task, once each has a best.
  auto advance = [&](std::size_t task, int count) -> std::optional<double> {
    StoredNetworkTask& t = run.tasks[task];
    const std::vector<TrialRow>& rows = trials[task];
    for (int k = 0; k < count && next[task] < rows.size(); ++k, ++next[task]) {
      const TrialRow& row = rows[next[task]];
      if (row.status != TrialStatus::Ok || !(row.speed > bestSpeed[task])) continue;
      bestSpeed[task] = row.speed;
      t.bestMs = row.medianMs;
      t.config = row.config;
    }
    double sum = 0;
    for (const StoredNetworkTask& each : run.tasks) {
      if (!each.bestMs) return std::nullopt;
      sum += static_cast<double>(each.weight) * *each.bestMs;
    }
    return sum;
  };
  for (StoredNetworkUnit& u : run.units)
    if (static_cast<std::size_t>(u.task) < run.tasks.size())
      u.estimateMs = advance(static_cast<std::size_t>(u.task), u.unitTrials);
  for (std::size_t task = 0; task < run.tasks.size(); ++task) {
    const int left = static_cast<int>(trials[task].size() - next[task]);
    if (left <= 0) continue;
    run.trials += left;
    run.tasks[task].trials += left;
    run.units.push_back({static_cast<int>(task), left, run.trials, advance(task, left), {}});
  }
}

// Why a stored result does not read, the parser's words escaped: they quote the bytes it read,
// which JSON output could not hold as they are.
std::string resultErrorText(const std::string& where, const char* why) {
  return where + "'s stored result does not read (" + escapeInvalidUtf8(why) +
         "): its tasks are shown from their stored trials";
}

}  // namespace

std::optional<StoredEndToEnd> endToEndFromResult(const nlohmann::json& j) {
  const std::optional<double> ms = numberAt(j, "end_to_end_ms");
  if (!ms) return std::nullopt;
  const nlohmann::json reference = j.value("reference", nlohmann::json::object());
  StoredEndToEnd e;
  e.ms = *ms;
  e.runs = static_cast<int>(j.value("times_ms", nlohmann::json::array()).size());
  e.conversionsMs = numberAt(j, "conversions_ms").value_or(0);
  e.fixedMs = numberAt(j, "fixed_kernels_ms").value_or(0);
  for (const nlohmann::json& s : j.value("steps", nlohmann::json::array())) {
    const double stepMs = numberAt(s, "ms").value_or(0);
    e.steps.emplace_back(textAt(s, "name"), stepMs);
    if (textAt(s, "kind") == "task") e.tasksMs += stepMs;
  }
  e.verified = j.value("verified", false);
  e.device = textAt(j, "device");
  e.compileSeconds = numberAt(j, "compile_seconds").value_or(0);
  e.referenceName = textAt(reference, "name");
  if (const std::string form = textAt(reference, "form"); !form.empty()) {
    if (const std::optional<TorchForm> known = torchFormNamed(form))
      e.referenceForm = *known;
    else
      e.unknownReferenceForm = form;
  }
  e.referenceMs = numberAt(reference, "ms");
  e.error = numberAt(reference, "max_relative_error").value_or(-1);
  e.referenceThreads = static_cast<int>(numberAt(reference, "threads").value_or(0));
  e.referenceProcesses =
      static_cast<int>(reference.value("process_medians_ms", nlohmann::json::array()).size());
  e.referenceMissing = textAt(reference, "missing");
  return e;
}

const StoredEndToEnd* NetworkComparison::keptOtherRun() const {
  if (!kept) return nullptr;
  switch (kept->choice) {
    case NetworkChoice::Tuned:
      return nullptr;
    case NetworkChoice::Mixed:
      return mixed ? &*mixed : nullptr;
    case NetworkChoice::Untuned:
      return untuned ? &*untuned : nullptr;
  }
  return nullptr;
}

NetworkComparison comparisonFromResult(const nlohmann::json& j, const std::string& where) {
  NetworkComparison c;
  if (const auto u = j.find("untuned"); u != j.end() && u->is_object())
    c.untuned = endToEndFromResult(*u);
  c.untunedIsTuned = j.value("untuned_is_tuned", false);
  c.untunedError = textAt(j, "untuned_error");
  if (const auto by = j.find("untuned_run_by"); by != j.end() && by->is_number_integer())
    c.untunedRunBy = by->get<std::int64_t>();
  if (const auto m = j.find("mixed"); m != j.end() && m->is_object())
    c.mixed = endToEndFromResult(*m);
  c.mixedUntunedTasks = textsAt(j, "mixed_untuned_tasks");
  c.mixedError = textAt(j, "mixed_error");
  c.kept = keptNetworkFromResult(j, where);
  return c;
}

std::string layoutConstraintText(const StoredNetworkTask& task) {
  if (!task.layoutConstraint) return "";
  const StoredNetworkTask::LayoutConstraint& c = *task.layoutConstraint;
  // A depthwise link ties the channel blocks alone: "output layout" would say the rows and
  // columns too, and "residual" a tensor that is none. An input link ties the reader's input
  // layout to its producer's output layout.
  std::string how;
  switch (c.link) {
    case LinkKind::Residual:
      how = "'s, which it meets in the residual " + c.tensor;
      break;
    case LinkKind::DepthwiseInput:
      how = c.byReadsIt ? "'s, which reads its output " + c.tensor + " as its depthwise input"
                        : "'s, whose output " + c.tensor + " it reads as its depthwise input";
      break;
    case LinkKind::Input:
      how = "'s output layout, whose output " + c.tensor + " it reads as it is";
      break;
  }
  return task.name + ": " + std::string(linkPinsText(c.link)) + " " +
         (c.outcome == ConstraintOutcome::Applied
              ? "pinned to "
              : "left free (no valid configuration) instead of pinned to ") +
         c.by + how + " (" + c.outputLayout + ")";
}

StoredNetworkRun readStoredNetworkRun(const Store& store, std::int64_t id) {
  StoredNetworkRun run;
  const std::string where = "network run " + std::to_string(id);
  std::optional<NetworkRecord> record = store.network(id);
  if (!record) throw InputError(store.missingNetworkText(id));
  run.record = std::move(*record);
  run.status = LiveStatus(store).of(run.record);
  run.plan = planFromJson(run.record.planJson, where + "'s plan: ");
  const Network network = networkFromText(run.record.networkJson, run.record.source,
                                          paramsFromJson(run.record.paramsJson, where + "'s "));
  const TaskGraph graph = extractTasks(network);
  if (run.record.taskRuns.size() != graph.tasks.size())
    throw InputError(where + " stores " + std::to_string(run.record.taskRuns.size()) +
                     " task runs for " + std::to_string(graph.tasks.size()) + " tasks");
  for (const Task& task : graph.tasks) {
    StoredNetworkTask t;
    t.name = task.name;
    t.weight = task.weightCount();
    run.tasks.push_back(std::move(t));
  }
  for (const NetworkUnitRow& row : store.networkUnits(id)) {
    if (row.task < 0 || row.task >= static_cast<int>(run.tasks.size())) continue;
    run.trials += row.trials;
    run.tasks[static_cast<std::size_t>(row.task)].trials += row.trials;
    run.units.push_back({row.task, row.trials, run.trials, {}, {}});
  }
  if (!run.record.resultJson.empty()) {
    // Read into a copy: a result that fails part way leaves the run as its trials have it.
    StoredNetworkRun concluded = run;
    try {
      const nlohmann::json result = nlohmann::json::parse(run.record.resultJson);
      if (!result.is_object()) throw InputError("not a JSON object");
      readConclusion(result, graph, where, concluded);
      run = std::move(concluded);
    } catch (const nlohmann::json::exception& e) {
      run.resultError = resultErrorText(where, e.what());
    } catch (const InputError& e) {
      run.resultError = resultErrorText(where, e.what());
    }
  }
  if (!run.concluded) replayUnits(store, run);
  // Said of the closing round the run had: a concluded run had one where a unit came from twins
  // (one stored before the round existed has none). A stopped run's resume decides whether it
  // has one; until then it is said of the round a new run would have.
  NetworkTuningPlan asRun = run.plan;
  if (run.concluded)
    asRun.closingRound =
        std::any_of(run.units.begin(), run.units.end(),
                    [](const StoredNetworkUnit& u) { return !u.closingFrom.empty(); });
  // A finished run whose result does not read has ended all the same.
  run.planNote = storedPlanNote(graph, asRun, run.concluded || run.status == RunStatus::Finished);
  return run;
}

}  // namespace opevo::net
