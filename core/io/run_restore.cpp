#include "io/run_restore.h"

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/median.h"
#include "engine/measurement.h"
#include "engine/run_status.h"
#include "engine/speed_unit.h"
#include "io/gzip_file.h"
#include "io/json_column.h"
#include "io/json_text.h"
#include "io/t4_check.h"
#include "ops/operator_json.h"
#include "store/run_operator.h"
#include "tuners/registry.h"

namespace opevo {
namespace {

// ordered_json: a configuration's parameters stay in the file's order.
using OJson = nlohmann::ordered_json;

const OJson* field(const OJson& j, const char* name) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(name);
  return it == j.end() ? nullptr : &*it;
}

std::string optionalText(const OJson& j, const char* name) {
  const OJson* f = field(j, name);
  return f && f->is_string() ? f->get<std::string>() : std::string();
}

std::string requiredText(const OJson& meta, const char* name, const std::string& path) {
  std::string value = optionalText(meta, name);
  if (value.empty()) throw InputError(path + ": metadata." + name + " is missing or not a text");
  return value;
}

// A JSON column as it was stored: an object or array as JSON text, a text as itself.
std::string columnOr(const OJson* j, const std::string& absent) {
  return !j || j->is_null() ? absent : columnText(*j);
}

TrialStatus fromInvalidity(const std::string& invalidity, const std::string& where) {
  if (invalidity == "correct") return TrialStatus::Ok;
  if (invalidity == "constraints") return TrialStatus::Rejected;
  if (invalidity == "compile") return TrialStatus::CompileError;
  if (invalidity == "runtime") return TrialStatus::RuntimeFault;
  if (invalidity == "timeout") return TrialStatus::Timeout;
  if (invalidity == "correctness") return TrialStatus::WrongResult;
  throw InputError(where + ".invalidity is '" + invalidity + "'");  // t4::checkDocument's already
}

// "name=value; ..." from a T4 configuration: texts as they are, numbers and booleans as JSON
// writes them, which is how the export turned the stored text into values.
std::string configText(const OJson& configuration, const std::string& where) {
  if (!configuration.is_object() || configuration.empty())
    throw InputError(where + ": configuration is missing or empty");
  std::string text;
  for (const auto& [name, value] : configuration.items()) {
    if (!text.empty()) text += "; ";
    text += name + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return text;
}

TrialRow restoreTrial(const OJson& r, const OJson* extra, const std::string& speedUnit,
                      double scale, const SearchSpace* space, const std::string& where) {
  if (!r.is_object()) throw InputError(where + ": not an object");
  TrialRow t;
  const std::string text = configText(r.value("configuration", OJson()), where);
  if (space) {
    try {
      t.config = space->format(space->parse(text));
    } catch (const InputError& e) {
      throw InputError(where + ": its configuration does not fit the run's operator (" +
                       std::string(e.what()) + ")");
    }
  } else {
    t.config = text;  // a replay's run: its space is its dataset's
  }
  const OJson* invalidity = field(r, "invalidity");
  if (!invalidity || !invalidity->is_string())
    throw InputError(where + ": invalidity is missing or not a text");
  t.status = fromInvalidity(invalidity->get<std::string>(), where);
  if (extra) {
    TrialStatus exact;
    if (parseStatus(optionalText(*extra, "status"), exact)) t.status = exact;
    t.started = optionalText(*extra, "started");
    t.agent = optionalText(*extra, "agent");  // the cluster agent that measured it, if one did
    if (const OJson* s = field(*extra, "seconds"); s && s->is_number())
      t.seconds = s->get<double>();
    if (const OJson* m = field(*extra, "measure_ms"); m && m->is_number())
      t.measureMs = m->get<double>();
  }
  const OJson* times = field(r, "times");
  if (const OJson* runtimes = times ? field(*times, "runtimes") : nullptr) {
    if (!runtimes->is_array()) throw InputError(where + ": times.runtimes is not a list");
    for (const OJson& x : *runtimes) {
      if (!x.is_number()) throw InputError(where + ": times.runtimes holds a non-number");
      t.timesMs.push_back(x.get<double>() * scale);
    }
  }
  if (const OJson* c = times ? field(*times, "compilation") : nullptr; c && c->is_number())
    t.compileMs = c->get<double>() * scale;
  if (const OJson* v = times ? field(*times, "validation") : nullptr; v && v->is_number())
    t.verifyMs = v->get<double>() * scale;
  if (const OJson* a = times ? field(*times, "search_algorithm") : nullptr; a && a->is_number())
    t.tunerMs = a->get<double>() * scale;
  t.medianMs = median(t.timesMs);
  const OJson* measurements = field(r, "measurements");
  if (measurements && measurements->is_array()) {
    for (const OJson& m : *measurements) {
      const std::string name = optionalText(m, "name");
      const OJson* value = field(m, "value");
      if (!value) continue;
      if (t.status != TrialStatus::Ok) {
        if (name == "time" && value->is_string()) t.message = value->get<std::string>();
      } else if (name == speedUnit && value->is_number()) {
        t.speed = value->get<double>();
      } else if (name == "time" && value->is_number() && speedUnit == "1/ms" &&
                 value->get<double>() > 0) {
        t.speed = 1.0 / (value->get<double>() * scale);  // the export wrote 1/speed as the time
      }
    }
  }
  // The exact message where the file has it: a success's too, and a failure's empty one (which
  // T4's measurements name by the status).
  if (const OJson* m = extra ? field(*extra, "message") : nullptr; m && m->is_string())
    t.message = m->get<std::string>();
  if (t.status == TrialStatus::Ok && t.speed <= 0)
    throw InputError(where + ": a correct result without its speed (" + speedUnit + ")");
  t.finished = optionalText(r, "timestamp");
  return t;
}

// A CPU run exported before CPU kernels were timed in GFLOP/s says TFLOPS: it is stored as the
// runs measured since, as the store's own migration to schema 6 moves its older CPU runs.
void toCpuSpeedUnit(RunRecord& run, std::vector<TrialRow>& trials) {
  const double scale = flopsPerSecondIn(run.speedUnit) / flopsPerSecondIn(deviceSpeedUnit("cpu"));
  for (TrialRow& t : trials) t.speed *= scale;
  if (run.referenceSpeed) *run.referenceSpeed *= scale;
  nlohmann::json budget = nlohmann::json::parse(run.budgetJson, nullptr, false);
  if (budget.is_object() && budget.contains("target") && budget["target"].is_number()) {
    budget["target"] = budget["target"].get<double>() * scale;
    run.budgetJson = budget.dump();
  }
  run.speedUnit = deviceSpeedUnit("cpu");
}

}  // namespace

RunWithTrials runFromT4(const OJson& root, const std::string& path, const RestoreOptions& options) {
  const OJson* metaField = field(root, "metadata");
  const OJson* results = field(root, "results");
  if (!metaField || !results || !results->is_array())
    throw InputError(path + ": not a T4 results file (metadata and results)");
  const OJson& meta = *metaField;
  if (optionalText(meta, "exported_by").rfind("OpEvo Studio", 0) != 0)
    throw InputError(path +
                     ": not a run exported by OpEvo Studio (metadata.exported_by), so there is no "
                     "tuning run to restore; store it as measurements with `opevo import FILE`");

  const double scale = t4::checkDocument(root, path);

  RunRecord run;
  run.operatorName = requiredText(meta, "kernel_name", path);
  run.algorithm = requiredText(meta, "algorithm", path);
  // A run goes on (resume, the campaign) with its algorithm's tuner: one this program lacks
  // would be a run that nothing can continue.
  if (!tunerRegistry().find(run.algorithm)) {
    std::string known;
    for (const TunerInfo& t : tunerRegistry().all()) known += (known.empty() ? "" : ", ") + t.name;
    throw InputError(path + ": metadata.algorithm '" + run.algorithm +
                     "' is not an algorithm of this program (" + known + ")");
  }
  run.backend = requiredText(meta, "backend", path);
  run.speedUnit = requiredText(meta, "speed_unit", path);
  run.device = optionalText(meta, "device_name");
  run.label = optionalText(meta, "label");

  const OJson* seed = field(meta, "seed");
  if (seed && !seed->is_null() && !seed->is_number_unsigned())
    throw InputError(path + ": metadata.seed is " +
                     (seed->is_string() ? "'" + seed->get<std::string>() + "'"
                                        : "a " + std::string(seed->type_name())) +
                     ", expected a whole number of 0 or more (the run's seed)");
  if (seed && seed->is_number_unsigned()) {
    run.seed = seed->get<std::uint64_t>();
    if (options.seed && *options.seed != run.seed)
      throw InputError(path + ": the file's run has seed " + std::to_string(run.seed) + ", not " +
                       std::to_string(*options.seed));
  } else if (options.seed) {
    run.seed = *options.seed;
  } else {
    throw InputError(path +
                     ": the file does not name its run's seed (exported before the seed "
                     "was written); give it (--seed N)");
  }

  const OJson* op = field(meta, "operator");
  const bool holdsOperator = op && op->is_object();
  // --op names the operator the person believes the run tuned; another is not this file's run.
  if (!options.operatorName.empty() && options.operatorName != run.operatorName)
    throw InputError(path + ": the file's run tuned " + run.operatorName +
                     " (metadata.kernel_name), not " + options.operatorName +
                     (holdsOperator ? " (the file holds its operator: --op is not needed)" : ""));
  if (holdsOperator) {
    run.operatorJson = op->dump();
  } else if (options.operatorFor) {
    run.operatorJson = options.operatorFor(run.backend);
  } else {
    throw InputError(path +
                     ": the file does not hold its run's operator (exported before the "
                     "operator was written); give it (--op PRESET or FILE)");
  }
  const nlohmann::json opJson = runOperator(run.operatorJson);
  // A run that `opevo import` stored (a measured file) has no operator to tune again.
  if (opJson.value("kind", std::string()) == "imported")
    throw InputError(path +
                     ": this run was imported from a measured file, not tuned here: its "
                     "measurements store with `opevo import FILE` (without --restore)");
  std::optional<SearchSpace> space;
  if (!opJson.contains("replay")) space = operatorDefinitionFromJson(opJson, path).space;

  run.settingsJson = columnOr(field(meta, "settings"), "{}");
  run.budgetJson =
      columnOr(field(meta, "budget"), nlohmann::json{{"trials", results->size()}}.dump());
  run.status = runStatusNames().parse(optionalText(meta, "status")).value_or(RunStatus::Finished);
  // (None's name is empty: an absent field must not read as it)
  run.endReason = run.status == RunStatus::Finished ? EndReason::Trials : EndReason::None;
  if (field(meta, "end_reason"))
    run.endReason =
        endReasonNames().parse(optionalText(meta, "end_reason")).value_or(run.endReason);
  run.referenceLibrary = optionalText(meta, "reference_library");
  if (const OJson* s = field(meta, "reference_speed"); s && s->is_number())
    run.referenceSpeed = s->get<double>();
  run.sideBySideJson = columnOr(field(meta, "side_by_side"), "");

  const OJson* extras = field(meta, "trials");
  if (extras && (!extras->is_array() || extras->size() != results->size()))
    throw InputError(path + ": metadata.trials does not have one entry per result");
  std::vector<TrialRow> trials;
  trials.reserve(results->size());
  for (std::size_t i = 0; i < results->size(); ++i) {
    TrialRow t = restoreTrial((*results)[i], extras ? &(*extras)[i] : nullptr, run.speedUnit, scale,
                              space ? &*space : nullptr, path + ": " + t4::resultName(i));
    t.seq = static_cast<int>(i) + 1;
    t.order = t.seq;
    trials.push_back(std::move(t));
  }
  if (run.backend == "cpu" && run.speedUnit != deviceSpeedUnit("cpu") &&
      flopsPerSecondIn(run.speedUnit) > 0)
    toCpuSpeedUnit(run, trials);
  // Older files: the run's times are its first and last trials'. (Every file without them has
  // trials: only a network archive holds runs without any, and it came after.)
  run.started = optionalText(meta, "started");
  if (run.started.empty() && !trials.empty())
    run.started =
        !trials.front().started.empty() ? trials.front().started : trials.front().finished;
  run.ended = optionalText(meta, "ended");
  if (run.ended.empty() && run.status != RunStatus::Running && !trials.empty())
    run.ended = trials.back().finished;
  return {std::move(run), std::move(trials)};
}

RunWithTrials readRestoreFile(const std::string& path, const RestoreOptions& options) {
  const std::string text = readMaybeGzipped(path);
  const OJson root = OJson::parse(text, nullptr, false);
  if (root.is_discarded()) {
    parseJsonFile(text, path);  // throws what is wrong: an empty file, or the line and column
    throw InputError(path + ": not JSON");
  }
  RunWithTrials r = runFromT4(root, path, options);
  // exportRunT4 writes no file of a run without trials.
  if (r.trials.empty()) throw InputError(path + ": the run has no results");
  return r;
}

RestoredRun restoreRun(Store& store, const std::string& path, const RestoreOptions& options) {
  return storeRestoredRun(store, readRestoreFile(path, options));
}

RestoredRun storeRestoredRun(Store& store, RunWithTrials r, bool allowCopy,
                             const std::string& howToCopy) {
  const RunRecord& run = r.run;
  for (const RunRecord& s : allowCopy ? std::vector<RunRecord>{} : store.runs()) {
    if (s.started != run.started || s.operatorName != run.operatorName ||
        s.algorithm != run.algorithm || s.seed != run.seed || s.backend != run.backend ||
        s.device != run.device || s.settingsJson != run.settingsJson)
      continue;
    throw InputError("run " + std::to_string(s.id) + " of " + store.path() +
                     " is this file's run already (" + run.operatorName + ", " + run.algorithm +
                     ", seed " + std::to_string(run.seed) + ", started " + run.started +
                     "): nothing stored" + (howToCopy.empty() ? "" : " (" + howToCopy + ")"));
  }
  RestoredRun restored;
  restored.runId = store.createRunWithTrials(r.run, r.trials);
  restored.trials = r.trials.size();
  restored.run = std::move(r.run);
  restored.run.id = restored.runId;
  return restored;
}

}  // namespace opevo
