#include "io/run_import.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/error.h"
#include "engine/run_status.h"
#include "io/gzip_file.h"
#include "io/json_text.h"
#include "io/replay_dataset.h"
#include "io/t4_check.h"

namespace opevo {

bool isImportedRun(const RunRecord& run) {
  return run.backend == kImportedBackend;
}

bool measuredElsewhere(const RunRecord& run) {
  return run.backend == "replay" || isImportedRun(run);
}

BudgetClock budgetClockOf(const RunRecord& run) {
  try {
    if (const Budget stored = Budget::fromJson(run.budgetJson); stored.seconds && stored.clock)
      return *stored.clock;
  } catch (const InputError&) {
    // A damaged budget: the resume reads it again and says what is wrong with it.
  }
  return budgetClock(measuredElsewhere(run));
}

Budget onItsClock(Budget budget, const RunRecord& run) {
  budget.clock = budgetClock(measuredElsewhere(run));
  return budget;
}

std::string runStatusText(const RunRecord& run) {
  return runStatusText(run.status, run.endReason, budgetClockOf(run));
}

std::string runStatusText(const RunRecord& run, long long trials) {
  return runStatusText(run.status, run.endReason, budgetClockOf(run), trials);
}

namespace {

using Json = nlohmann::json;

// What a T4 result says besides its measurement, which the replay reader leaves aside: when it
// was measured and what else it cost; our exports add the trial's start, the run's tuning time
// at it and the whole measurement's time (metadata.trials).
struct ResultExtras {
  std::string timestamp;
  std::string started;
  double frameworkMs = 0;
  double verifyMs = 0;
  double tunerMs = 0;
  double seconds = 0;
  std::optional<double> measureMs;
};

struct FileExtras {
  std::vector<ResultExtras> results;  // one per entry or result, in the file's order
  std::optional<std::uint64_t> seed;  // metadata.seed (our T4 exports)
};

double number(const Json& object, const char* key, double scale = 1) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() * scale : 0.0;
}

std::string text(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Read apart from the measurements (the file is already checked): an import is rare, and the
// replay, which reads every dataset, need not carry what only an import keeps.
FileExtras readT4Extras(const std::string& path) {
  const Json root = parseJsonFile(readMaybeGzipped(path), path).value;
  const double scale = t4::checkDocument(root, path);
  FileExtras extras;
  const Json empty = Json::object();
  const auto meta = root.find("metadata");
  const Json& metadata = meta != root.end() && meta->is_object() ? *meta : empty;
  if (const auto seed = metadata.find("seed"); seed != metadata.end() && seed->is_number_unsigned())
    extras.seed = seed->get<std::uint64_t>();
  const Json& results = root.at("results");
  const auto trials = metadata.find("trials");
  const bool perTrial =
      trials != metadata.end() && trials->is_array() && trials->size() == results.size();
  for (std::size_t r = 0; r < results.size(); ++r) {
    const Json& result = results[r];
    ResultExtras e;
    e.timestamp = utcTimestamp(text(result, "timestamp"));
    if (const auto times = result.find("times"); times != result.end() && times->is_object()) {
      e.frameworkMs = number(*times, "framework", scale);
      e.verifyMs = number(*times, "validation", scale);
      e.tunerMs = number(*times, "search_algorithm", scale);
    }
    if (perTrial && (*trials)[r].is_object()) {
      const Json& trial = (*trials)[r];
      e.started = utcTimestamp(text(trial, "started"));
      e.seconds = number(trial, "seconds");
      if (const auto m = trial.find("measure_ms"); m != trial.end() && m->is_number())
        e.measureMs = m->get<double>();
    }
    extras.results.push_back(std::move(e));
  }
  return extras;
}

// What a Kernel Tuner cache says of each entry besides what the replay charges for it (its
// compile, benchmark and verification times travel in its Measurement): when it was measured, and
// the search strategy's time (strategy_time, as T4's search_algorithm). The replay reader keeps
// them per entry (ReplayDataset::fileEntries), so the cache is not parsed a second time.
FileExtras kernelTunerExtras(const ReplayDataset& ds) {
  FileExtras extras;
  extras.results.reserve(ds.fileEntries.size());
  for (const ReplayDataset::FileEntry& entry : ds.fileEntries) {
    ResultExtras e;
    e.timestamp = utcTimestamp(entry.timestamp);
    e.tunerMs = entry.strategyMs;
    extras.results.push_back(std::move(e));
  }
  return extras;
}

// The store's measurement time of a trial from T4's framework time, which is what is left of it
// after the timed runs and the verification (io/t4_export.cpp writes it so): 0 stays 0.
double measureMsOf(const ResultExtras& e, const std::vector<double>& timesMs) {
  if (e.measureMs) return *e.measureMs;
  if (e.frameworkMs <= 0) return 0;
  double runs = 0;
  for (double ms : timesMs) runs += ms;
  return e.frameworkMs + runs + e.verifyMs;
}

}  // namespace

std::string utcTimestamp(const std::string& text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, used = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%*1[T ]%2d:%2d:%2d%n", &year, &month, &day, &hour,
                  &minute, &second, &used) != 6)
    return text;
  std::size_t at = static_cast<std::size_t>(used);
  std::string fraction;
  if (at < text.size() && text[at] == '.') {
    const std::size_t end = text.find_first_not_of("0123456789", at + 1);
    fraction = text.substr(at, (end == std::string::npos ? text.size() : end) - at);
    at += fraction.size();
    if (fraction.size() == 1) fraction.clear();  // a lone '.'
  }
  long offset = 0;  // seconds east of UTC; none written: UTC, as T4 and Kernel Tuner mean it
  const std::string zone = text.substr(at);
  if (!zone.empty() && zone != "Z") {
    int hours = 0, minutes = 0;
    char sign = 0;
    if (std::sscanf(zone.c_str(), "%c%2d:%2d", &sign, &hours, &minutes) != 3 ||
        (sign != '+' && sign != '-') || zone.size() != 6)
      return text;
    offset = (sign == '-' ? -1 : 1) * (hours * 3600L + minutes * 60L);
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const std::time_t utc = timegm(&tm) - offset;
  std::tm out{};
  gmtime_r(&utc, &out);
  char buffer[40];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &out);
  // Milliseconds, as the store writes its own times (Store::nowUtc) and the window parses them.
  fraction = (fraction.empty() ? std::string(".") : fraction) + "000";
  return std::string(buffer) + fraction.substr(0, 4) + "Z";
}

ImportFile readImportFile(const std::string& path) {
  const ReplayDataset ds = loadReplayDataset(path);
  // The file read: a shipped file's own path when `path` named one.
  const std::string source = std::filesystem::absolute(ds.path).lexically_normal().string();
  const bool t4 = ds.format == DatasetFormat::T4;
  const FileExtras extras = t4 ? readT4Extras(ds.path) : kernelTunerExtras(ds);
  // Each configuration's extras, from its last entry as its measurement is (a repeat in the file
  // keeps its last).
  std::vector<const ResultExtras*> extrasOf(ds.fileOrder.size(), nullptr);
  for (std::size_t r = 0; r < extras.results.size() && r < ds.fileEntries.size(); ++r)
    extrasOf[ds.fileEntries[r].point] = &extras.results[r];

  nlohmann::json space = nlohmann::json::object();
  for (std::size_t i = 0; i < ds.space.dims(); ++i)
    space[ds.space.param(i).name()] = ds.space.param(i).spec();
  const std::vector<Config>& points = ds.fileOrder;

  RunRecord run;
  run.operatorName = ds.operatorName();
  // The shape of an operator file's "space" (name -> spec), so the parameters can be shown and
  // every trial's configuration text parsed back.
  run.operatorJson =
      nlohmann::json{{"name", run.operatorName}, {"kind", "imported"}, {"space", space}}.dump();
  run.algorithm = "import";
  // A run exported by us keeps the name of the tuner that measured it, for History's list.
  if (!ds.algorithm.empty()) run.label = run.operatorName + ", tuned by " + ds.algorithm;
  nlohmann::json settings = {
      {"source", source}, {"format", datasetFormatName(ds.format)}, {"notes", ds.notes}};
  if (!ds.algorithm.empty()) settings["tuned_by"] = ds.algorithm;
  // The seed of the run that measured the file when it names one (our exports); null: unknown,
  // which the seed column, a number, cannot say (knownSeed).
  settings["seed"] = extras.seed ? Json(*extras.seed) : Json();
  run.seed = extras.seed.value_or(0);
  run.settingsJson = settings.dump();
  run.backend = kImportedBackend;
  run.device = ds.deviceName;
  run.budgetJson = nlohmann::json{{"trials", points.size()}}.dump();
  run.status = RunStatus::Finished;
  run.endReason = EndReason::Trials;
  run.speedUnit = ds.speedUnit;
  run.referenceLibrary = ds.referenceLibrary;
  run.referenceSpeed = ds.referenceSpeed;

  std::vector<TrialRow> trials;
  trials.reserve(points.size());
  for (const Config& c : points) {
    const Measurement& m = ds.table.at(c);
    TrialRow t;
    t.seq = static_cast<int>(trials.size()) + 1;
    t.config = ds.space.format(c);
    t.status = m.status;
    t.order = t.seq;
    t.message = m.message;
    t.timesMs = m.timesMs;
    t.medianMs = m.medianMs;
    t.speed = m.speed;
    t.compileMs = m.compileMs;
    if (!t4) {
      // What the replay charges for it (io/replay_dataset.h): its verification_time, and its
      // benchmark_time with it as the measurement's time. Its framework_time, Kernel Tuner's own
      // Python between measurements, has no column.
      t.verifyMs = m.verifyMs;
      t.measureMs = m.measureMs;
    }
    if (const ResultExtras* e = extrasOf[trials.size()]) {
      t.finished = e->timestamp;
      t.started = e->started;
      t.tunerMs = e->tunerMs;
      t.seconds = e->seconds;
      if (t4) {
        t.verifyMs = e->verifyMs;
        t.measureMs = measureMsOf(*e, t.timesMs);
      }
    }
    trials.push_back(std::move(t));
  }
  // The run's times are the file's: from its first measurement to its last (the import's own
  // time only for a file that has none).
  for (const TrialRow& t : trials)
    for (const std::string& when : {t.started, t.finished}) {
      if (when.empty()) continue;
      if (run.started.empty() || when < run.started) run.started = when;
      if (run.ended.empty() || when > run.ended) run.ended = when;
    }
  if (run.started.empty()) run.started = run.ended = Store::nowUtc();
  ImportFile file;
  if (ds.kernelName.empty())
    file.info.notes.push_back(
        "the file names no kernel: the run's operator is named after the "
        "file, '" +
        run.operatorName + "'");
  file.info.trials = trials.size();
  file.info.format = datasetFormatName(ds.format);
  file.info.device = ds.deviceName;
  file.info.speedUnit = ds.speedUnit;
  file.info.notes.insert(file.info.notes.end(), ds.notes.begin(), ds.notes.end());
  file.run = std::move(run);
  file.trials = std::move(trials);
  return file;
}

std::string speedText(const ImportedRun& run) {
  if (run.speedUnit != "1/ms") return "speed in " + run.speedUnit;
  return "speed in 1/ms, as 1/time: the file holds times but no throughput such as GFLOP/s";
}

ImportedRun storeImport(Store& store, const ImportFile& file) {
  ImportedRun imported = file.info;
  imported.runId = store.createRunWithTrials(file.run, file.trials);
  return imported;
}

ImportedRun importRun(Store& store, const std::string& path) {
  return storeImport(store, readImportFile(path));
}

std::optional<std::uint64_t> knownSeed(const RunRecord& run) {
  if (run.algorithm != "import") return run.seed;
  const auto settings = nlohmann::json::parse(run.settingsJson, nullptr, false);
  if (settings.is_object() && settings.contains("seed") && settings["seed"].is_number_unsigned())
    return settings["seed"].get<std::uint64_t>();
  return std::nullopt;
}

std::string measuredBy(const RunRecord& run) {
  if (run.algorithm != "import") return run.algorithm;
  const auto settings = nlohmann::json::parse(run.settingsJson, nullptr, false);
  if (settings.is_object() && settings.contains("tuned_by") && settings["tuned_by"].is_string())
    return settings["tuned_by"].get<std::string>() + " (imported)";
  return run.algorithm;
}

}  // namespace opevo
