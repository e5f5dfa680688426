#include "io/t4_export.h"

#include <algorithm>

#include "common/error.h"
#include "common/utf8_text.h"
#include "engine/measurement.h"
#include "engine/run_status.h"
#include "io/export_file.h"
#include "io/json_column.h"
#include "io/replay_raw.h"
#include "space/text.h"

namespace opevo {
namespace {

using OJson = nlohmann::ordered_json;

// T4's invalidity for each status. Launch errors have no name of their own in T4: a kernel that
// compiled but would not run is a runtime failure there.
const char* invalidity(TrialStatus status) {
  switch (status) {
    case TrialStatus::Ok:
      return "correct";
    case TrialStatus::Rejected:
      return "constraints";
    case TrialStatus::CompileError:
      return "compile";
    case TrialStatus::LaunchError:
    case TrialStatus::RuntimeFault:
      return "runtime";
    case TrialStatus::Timeout:
      return "timeout";
    case TrialStatus::WrongResult:
      return "correctness";
  }
  return "runtime";
}

// "16" -> 16, "true" -> true, "\"a\"" -> "a"; anything that is not one JSON scalar ("8,2,4",
// "row") stays the text it is, so every value reads back as the same text.
OJson valueOf(const std::string& text) {
  OJson j = OJson::parse(text, nullptr, false);
  if (j.is_discarded() || j.is_object() || j.is_array()) return text;
  return j;
}

OJson configuration(const std::string& text, const std::string& where) {
  OJson config = OJson::object();
  for (const std::string& item : splitList(text, ';')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw InputError(where + ": configuration item '" + item + "' has no '='");
    const std::string name(trim(std::string_view(item).substr(0, eq)));
    config[name] = valueOf(std::string(trim(std::string_view(item).substr(eq + 1))));
  }
  return config;
}

OJson result(const RunRecord& run, const TrialRow& t) {
  const std::string where = "run " + std::to_string(run.id) + " trial " + std::to_string(t.seq);
  const TrialStatus status = t.status;
  const bool ok = status == TrialStatus::Ok;
  OJson r;
  r["timestamp"] = !t.finished.empty() ? t.finished : !t.started.empty() ? t.started : run.started;
  r["configuration"] = configuration(t.config, where);
  // Framework: what measuring the trial cost beyond its timed runs and its verification (a fresh
  // worker's start, transfers, the checked and warm-up runs). 0 where the store has no
  // measurement time (trials stored before schema 5, replays). search_algorithm is the tuner's
  // share of proposing the trial's batch (0 before schema 6).
  double runs = 0;
  for (double ms : t.timesMs) runs += ms;
  const double framework = t.measureMs > 0 ? std::max(0.0, t.measureMs - runs - t.verifyMs) : 0;
  r["times"] = {{"compilation", t.compileMs},
                {"framework", framework},
                {"search_algorithm", t.tunerMs},
                {"validation", t.verifyMs},
                {"runtimes", t.timesMs}};
  r["invalidity"] = invalidity(status);
  r["correctness"] = ok ? 1 : 0;
  OJson measurements = OJson::array();
  if (ok) {
    // Read back, speed is the throughput measurement when there is one and 1/time otherwise;
    // writing time as 1/speed for a 1/ms run keeps the speed a round trip apart.
    double time = t.medianMs;
    if (run.speedUnit == "1/ms" && t.speed > 0) {
      time = 1.0 / t.speed;
    } else if (!t.timesMs.empty()) {
      time = 0;
      for (double x : t.timesMs) time += x / static_cast<double>(t.timesMs.size());
    }
    measurements.push_back({{"name", "time"}, {"value", time}, {"unit", "ms"}});
    if (replay::isThroughputName(run.speedUnit))
      measurements.push_back(
          {{"name", run.speedUnit}, {"value", t.speed}, {"unit", run.speedUnit}});
  } else {
    const std::string why = t.message.empty() ? std::string(statusName(t.status)) : t.message;
    measurements.push_back({{"name", "time"}, {"value", why}, {"unit", ""}});
  }
  r["measurements"] = std::move(measurements);
  r["objectives"] = {"time"};
  return r;
}

// Every text field of the run and its trials made fit for JSON (escapeInvalidUtf8), each one
// changed said in `notes`.
void makeUtf8(RunRecord& run, std::vector<TrialRow>& trials, std::vector<std::string>* notes) {
  const std::string runName = "run " + std::to_string(run.id);
  const auto fix = [&](std::string& text, const std::string& where, const char* column) {
    if (isUtf8(text)) return;
    text = escapeInvalidUtf8(text);
    if (notes)
      notes->push_back(where + ": its " + column +
                       " is not valid UTF-8 (a damaged database?); written with each invalid byte "
                       "as \\xNN: " +
                       text);
  };
  for (auto [field, column] : {std::pair{&run.operatorName, "operator_name"},
                               {&run.operatorJson, "operator"},
                               {&run.algorithm, "algorithm"},
                               {&run.settingsJson, "settings"},
                               {&run.backend, "backend"},
                               {&run.device, "device"},
                               {&run.budgetJson, "budget"},
                               {&run.started, "started"},
                               {&run.ended, "ended"},
                               {&run.speedUnit, "speed_unit"},
                               {&run.label, "label"},
                               {&run.referenceLibrary, "reference_library"},
                               {&run.sideBySideJson, "side_by_side"}})
    fix(*field, runName, column);
  for (TrialRow& t : trials) {
    const std::string where = runName + " trial " + std::to_string(t.seq);
    fix(t.config, where, "config");
    fix(t.message, where, "message");
    fix(t.started, where, "started");
    fix(t.finished, where, "finished");
    fix(t.agent, where, "agent");
  }
}

}  // namespace

OJson runToT4(const RunRecord& storedRun, const std::vector<TrialRow>& storedTrials,
              std::vector<std::string>* notes) {
  RunRecord run = storedRun;
  std::vector<TrialRow> trials = storedTrials;
  makeUtf8(run, trials, notes);
  OJson metadata = {{"timeunit", "milliseconds"}};
  if (!run.device.empty()) metadata["device_name"] = run.device;
  metadata["kernel_name"] = run.operatorName;
  metadata["algorithm"] = run.algorithm;
  metadata["backend"] = run.backend;
  metadata["run_id"] = run.id;
  metadata["speed_unit"] = run.speedUnit;
  // The vendor library timed in the same run (cuBLAS, cuDNN, oneDNN...), so an import draws it.
  if (run.referenceSpeed) {
    metadata["reference_library"] = run.referenceLibrary;
    metadata["reference_speed"] = *run.referenceSpeed;
  }
  // Its best configurations and the library timed in turns (opevo tune's last step).
  if (!run.sideBySideJson.empty()) metadata["side_by_side"] = columnJson(run.sideBySideJson);
  // What the T4 fields leave out of the run, so that restoreRun can store it again as the run it
  // was (a campaign goes on from committed files): its seed, operator, settings, budget, status
  // and times. JSON columns go in as JSON, where they parse.
  metadata["seed"] = run.seed;
  metadata["operator"] = columnJson(run.operatorJson);
  metadata["settings"] = columnJson(run.settingsJson);
  metadata["budget"] = columnJson(run.budgetJson);
  metadata["status"] = runStatusName(run.status);
  metadata["end_reason"] = endReasonName(run.endReason);
  metadata["started"] = run.started;
  metadata["ended"] = run.ended;
  metadata["label"] = run.label;
  // Per result, what T4 cannot say: the exact status (T4's "runtime" is both a launch error and a
  // fault), the start, the run's tuning time at the trial, the whole measurement's time (T4's
  // framework time is what is left of it; a restore needs the whole) and the message (T4 has a
  // place for a failure's only; a success has one too when it was timed in an unusual way).
  // And, for a trial a cluster agent measured, that agent (a field readers that do not know it
  // pass over).
  OJson extra = OJson::array();
  for (const TrialRow& t : trials) {
    extra.push_back({{"status", statusName(t.status)},
                     {"started", t.started},
                     {"seconds", t.seconds},
                     {"measure_ms", t.measureMs},
                     {"message", t.message}});
    if (!t.agent.empty()) extra.back()["agent"] = t.agent;
  }
  metadata["trials"] = std::move(extra);
  metadata["exported_by"] = std::string("OpEvo Studio ") + OPEVO_VERSION;
  OJson results = OJson::array();
  for (const TrialRow& t : trials) results.push_back(result(run, t));
  return {{"schema_version", "1.0.0"}, {"metadata", metadata}, {"results", std::move(results)}};
}

std::size_t exportRunT4(const Store& store, std::int64_t runId, const std::string& path,
                        std::vector<std::string>* notes) {
  const std::optional<RunRecord> run = store.run(runId);
  if (!run) throw InputError(store.missingRunText(runId));
  const std::vector<TrialRow> trials = store.trials(runId);
  if (trials.empty())
    throw InputError("run " + std::to_string(runId) +
                     " has no trials yet: a T4 file needs at least one result");
  writeExportFile(path, runToT4(*run, trials, notes).dump(2));
  return trials.size();
}

}  // namespace opevo
