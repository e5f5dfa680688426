#include "io/replay_dataset.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "common/error.h"
#include "common/median.h"
#include "engine/device_time.h"
#include "io/gzip_file.h"
#include "io/json_text.h"
#include "io/measurement_bounds.h"
#include "io/replay_completeness.h"
#include "io/replay_raw.h"
#include "io/shipped_path.h"
#include "space/choice_param.h"
#include "space/discrete_param.h"
#include "space/text.h"

namespace opevo {
namespace {

using Json = nlohmann::json;
using replay::RawDataset;
using replay::RawEntry;

// The text a non-numeric value is known by. When a parameter mixes strings with other values
// (Kernel Tuner allows [None, "a"] or ["1", 1]) strings keep their quotes, so "1" and 1 stay
// two choices. ChoiceParam refuses an empty choice, so an empty string gets a visible stand-in.
std::string choiceText(const Json& v, bool quoteStrings) {
  if (!v.is_string() || quoteStrings) return v.dump();
  std::string s = v.get<std::string>();
  return s.empty() ? "\"\"" : s;
}

// Maps a parameter's JSON values to vertices of the parameter built from them.
struct ParamBuilder {
  bool numeric = true;
  bool quoteStrings = false;
  bool tuples = false;  // every value a tuple of integers (ReplayDataset::tupleValued)
  std::shared_ptr<const DiscreteParam> discrete;
  std::unordered_map<std::string, std::int64_t> choiceIndex;

  ParamBuilder(const std::string& name, const std::vector<const Json*>& declared,
               const std::vector<RawEntry>& entries, std::size_t column, SearchSpace& space) {
    // A parameter is numeric only if every value is a JSON number: a string such as "4" stays a
    // choice, because the kernel receives it as text and its order means nothing.
    auto visit = [&](auto&& f) {
      for (const Json* v : declared) f(*v);
      for (const RawEntry& e : entries) f(*e.values[column]);
    };
    visit([&](const Json& v) { numeric = numeric && v.is_number(); });
    if (numeric) {
      std::vector<double> values;
      visit([&](const Json& v) { values.push_back(v.get<double>()); });
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      discrete = std::make_shared<DiscreteParam>(name, std::move(values));
      space.add(discrete);
      return;
    }
    visit([&](const Json& v) { quoteStrings = quoteStrings || !v.is_string(); });
    std::size_t arity = 0;
    tuples = !quoteStrings;
    visit([&](const Json& v) {
      std::vector<std::int64_t> parts;
      if (!tuples || !parseIntegers(v.get<std::string>(), parts) || parts.size() < 2 ||
          (arity && parts.size() != arity))
        tuples = false;
      else
        arity = parts.size();
    });
    // Sorted, not in the order first met: the same values in another file's order (a T4 copy of
    // a cache) must make the same parameter, or the same seed walks another way. Tuples sort as
    // their integers ("2,8" before "16,1"), anything else as text.
    std::set<std::string> seen;
    visit([&](const Json& v) { seen.insert(choiceText(v, quoteStrings)); });
    std::vector<std::string> choices(seen.begin(), seen.end());
    if (tuples) {
      auto integers = [](const std::string& text) {
        std::vector<std::int64_t> parts;
        parseIntegers(text, parts);
        return parts;
      };
      std::stable_sort(choices.begin(), choices.end(),
                       [&](const auto& a, const auto& b) { return integers(a) < integers(b); });
    }
    for (std::size_t i = 0; i < choices.size(); ++i)
      choiceIndex.emplace(choices[i], static_cast<std::int64_t>(i));
    space.add(std::make_shared<ChoiceParam>(name, std::move(choices)));
  }

  // The value as Kernel Tuner writes it into a cache key: a whole number without a fraction, a
  // text without quotes.
  static std::string keyText(const Json& v) {
    if (v.is_number() && v.get<double>() == std::floor(v.get<double>()) &&
        std::abs(v.get<double>()) < 1e15)
      return std::to_string(static_cast<long long>(v.get<double>()));
    return v.is_string() ? v.get<std::string>() : v.dump();
  }

  Vertex vertexOf(const Json& v) const {
    if (numeric) return {discrete->indexOf(v.get<double>())};
    return {choiceIndex.at(choiceText(v, quoteStrings))};
  }
};

// The throughput reported by every successful entry, so one unit covers the whole file; "" when
// there is none and speed must be 1/time. With several, the alphabetically first is taken. When no
// entry succeeded, no value says it, but the file may still name its metric (declared): a run whose
// every kernel failed is then not labelled 1/ms, a unit it never meant.
std::string chooseMetric(const std::vector<RawEntry>& entries,
                         const std::set<std::string>& declared) {
  std::size_t ok = 0;
  std::map<std::string, std::size_t> counts;
  for (const RawEntry& e : entries) {
    if (e.measurement.status != TrialStatus::Ok) continue;
    ++ok;
    for (const auto& [name, value] : e.metrics) ++counts[name];
  }
  if (ok == 0) return declared.empty() ? std::string() : *declared.begin();
  for (const auto& [name, count] : counts)
    if (count == ok) return name;
  return {};
}

// Whether an entry's objective time lies outside the runs it lists (beyond a rounding): then it
// is not their mean, as docs and readers would assume (pnpoly's best: time 8.02 ms, runs 0.0156).
bool timeOutsideTimes(double time, const std::vector<double>& times) {
  if (times.empty()) return false;
  const auto [lo, hi] = std::minmax_element(times.begin(), times.end());
  const double slack = 1e-9 * std::max(std::abs(*lo), std::abs(*hi));
  return time < *lo - slack || time > *hi + slack;
}

// "compile_time + benchmark_time + verification_time of its entry ...; 12 of 4362 entries have no
// compile_time (charged 0)". The fields a file lacks are said, not silently charged as 0.
std::string deviceTimeNote(const RawDataset& raw) {
  const replay::CostParts& c = raw.cost;
  const bool kt = raw.format == DatasetFormat::KernelTunerCache;
  std::string note =
      kt ? "each trial is charged its entry's compile_time + benchmark_time + verification_time, "
           "as Kernel Tuner's simulation mode charges them (not its framework_time or "
           "strategy_time)"
         : "each trial is charged its result's times.compilation + the sum of times.runtimes + "
           "times.validation (T4 holds no benchmark total: warm-up runs and the benchmark's own "
           "overhead are left out; times.framework and search_algorithm are not charged)";
  const std::string of = " of " + std::to_string(c.entries) + (kt ? " entries" : " results");
  const auto lacking = [&](std::size_t have, const char* field, const char* instead) {
    if (have < c.entries)
      note +=
          "; " + std::to_string(c.entries - have) + of + " have no " + field + " (" + instead + ")";
  };
  lacking(c.compile, kt ? "compile_time" : "times.compilation", "charged 0");
  if (kt)
    lacking(c.benchmark, "benchmark_time",
            "charged the sum of their times, their time where they list none, 0 where they "
            "failed");
  lacking(c.verification, kt ? "verification_time" : "times.validation", "charged 0");
  return note;
}

ReplayDataset build(RawDataset raw, const std::string& path) {
  ReplayDataset ds;
  ds.path = path;
  ds.format = raw.format;
  ds.deviceName = raw.deviceName;
  ds.kernelName = raw.kernelName;
  ds.algorithm = raw.algorithm;
  ds.referenceLibrary = raw.referenceLibrary;
  ds.referenceSpeed = raw.referenceSpeed;
  ds.notes = std::move(raw.notes);
  if (raw.entries.empty()) throw InputError(path + ": the file holds no configurations");
  // A file that names the tuner behind it (our T4 exports) records what one run chose to measure:
  // its values are the ones it met, its best is the run's. Racing on it stays within its points.
  // An import is judged as its source is, once the file is read (judgeCompleteness).
  if (!raw.algorithm.empty() && raw.algorithm != "import") {
    ds.completeness = Completeness::RunRecord;
    ds.complete = false;
    ds.completenessNote = "the record of a tuning run (" + raw.algorithm + ", " +
                          std::to_string(raw.entries.size()) +
                          " trials), not a brute-forced space: its parameters hold only the "
                          "values that run measured, and its best is the run's, not the optimum";
    ds.notes.push_back(ds.completenessNote);
  }

  std::vector<ParamBuilder> params;
  params.reserve(raw.paramNames.size());
  for (std::size_t i = 0; i < raw.paramNames.size(); ++i)
    params.emplace_back(raw.paramNames[i],
                        i < raw.declared.size() ? raw.declared[i] : std::vector<const Json*>{},
                        raw.entries, i, ds.space);
  for (const ParamBuilder& p : params) ds.tupleValued.push_back(p.tuples);

  const std::string metric = chooseMetric(raw.entries, raw.declaredMetrics);
  ds.speedUnit = metric.empty() ? "1/ms" : metric;
  std::vector<Config> points;
  points.reserve(raw.entries.size());
  // Each configuration's cache key ("16,1,2,..."): see the sort below.
  std::unordered_map<Config, std::string, ConfigHash> keys;
  std::unordered_map<Config, std::size_t, ConfigHash> pointOf;  // its index in fileOrder
  ds.table.reserve(raw.entries.size());
  std::size_t duplicates = 0;
  for (RawEntry& e : raw.entries) {
    Config c;
    c.reserve(params.size());
    for (std::size_t i = 0; i < params.size(); ++i) c.push_back(params[i].vertexOf(*e.values[i]));
    Measurement& m = e.measurement;
    if (m.status == TrialStatus::Ok) {
      m.medianMs = median(m.timesMs);
      if (timeOutsideTimes(e.timeMs, m.timesMs)) ++ds.timeNotMeanOfTimes;
      if (!metric.empty()) {
        for (const auto& [name, value] : e.metrics)
          if (name == metric) m.speed = value;
      } else if (e.timeMs > 0) {
        m.speed = 1.0 / e.timeMs;
      }
      // A time of 0, or one so small (1e-320 ms) that its speed overflows to infinity, is no
      // measurement: refused by name rather than winning every race. Nor is a negative throughput
      // (a race showed "ok -5 GFLOP/s").
      if (metric.empty() ? !(m.speed > 0 && std::isfinite(m.speed))
                         : !(m.speed >= 0 && std::isfinite(m.speed))) {
        char time[32];
        std::snprintf(time, sizeof time, "%g", e.timeMs);
        throw InputError(path + ": " + e.where + " succeeded with a time of " + time + " ms" +
                         (metric.empty() ? "" : " and " + metric + " " + std::to_string(m.speed)) +
                         " (expected a positive time and a finite speed of 0 or more)");
      }
      // Finite yet no measurement (io/measurement_bounds.h): 1e-300 ms, 1e308 GFLOP/s. A T4
      // file's results were checked so as they were read (t4::checkDocument).
      const auto refuse = [&](const std::string& field, const std::string& problem) {
        throw InputError(path + ": " + e.where + " field '" + field + "' " + problem);
      };
      if (const auto problem = implausibleTimeMs(e.timeMs)) refuse("time", *problem);
      for (std::size_t k = 0; k < m.timesMs.size(); ++k)
        if (const auto problem = implausibleTimeMs(m.timesMs[k]))
          refuse("times[" + std::to_string(k) + "]", *problem);
      for (const auto& [name, value] : e.metrics)
        if (const auto problem = implausibleThroughput(value, name)) refuse(name, *problem);
    }
    // A configuration measured twice (a resumed run) keeps its last measurement, as Kernel
    // Tuner's own cache does; it stays one point of the space.
    const auto [it, inserted] = ds.table.insert_or_assign(c, std::move(m));
    if (inserted) pointOf.emplace(c, points.size());
    ds.fileEntries.push_back({pointOf.at(c), std::move(e.timestamp), e.strategyMs});
    if (inserted) {
      std::string key;
      for (std::size_t i = 0; i < params.size(); ++i)
        key += (i ? "," : "") + ParamBuilder::keyText(*e.values[i]);
      keys.emplace(c, std::move(key));
      points.push_back(std::move(c));
    } else {
      ++duplicates;
    }
  }
  ds.fileOrder = points;
  // The space's points in one order whatever the file's, so that the same measurements race the
  // same in either format (a tuner drawing "the k-th point" draws the same one). The order is the
  // cache keys' as text, the one a Kernel Tuner cache already came in (its keys are read sorted),
  // so the replays recorded on caches (docs/results/replay.md) stay as they were.
  std::sort(points.begin(), points.end(),
            [&](const Config& a, const Config& b) { return keys.at(a) < keys.at(b); });
  for (const Config& c : points) {
    const Measurement& m = ds.table.at(c);
    if (m.status == TrialStatus::Ok && (ds.bestConfig.empty() || m.speed > ds.bestSpeed)) {
      ds.bestSpeed = m.speed;
      ds.bestConfig = c;
    }
  }
  for (const auto& [config, m] : ds.table) ds.deviceSeconds += deviceMs(m) / 1e3;
  ds.deviceTimeNote = deviceTimeNote(raw);
  const std::string file = std::filesystem::path(path).filename().string();
  ds.space.setExplicitPoints(std::move(points), "one of the " + std::to_string(ds.table.size()) +
                                                    " configurations measured in " + file);
  if (duplicates)
    ds.notes.push_back(
        std::to_string(duplicates) +
        " configurations appear more than once; the last measurement of each is used");
  if (ds.deviceName.empty()) ds.notes.push_back("the file does not name the device");
  if (ds.timeNotMeanOfTimes) {
    const std::size_t ok = ds.table.size() - ds.failedCount();
    ds.notes.push_back(
        "in " + std::to_string(ds.timeNotMeanOfTimes) + " of the " + std::to_string(ok) +
        " successful entries the file's \"time\" lies outside the entry's own \"times\", so it "
        "is not their mean: configurations are ranked by \"time\" (the file's objective" +
        (metric.empty() ? ", speed = 1/time" : "") +
        "), while median_ms is the median of \"times\"; the two can be far apart");
  }
  ds.label = "replay of real measurements on " +
             (ds.deviceName.empty() ? std::string("an unnamed device") : ds.deviceName) + " (" +
             file + ")";
  return ds;
}

// What io/network_archive.h writes: its "format" names it.
bool isNetworkArchive(const Json& root) {
  const auto format = root.find("format");
  return format != root.end() && format->is_string() && *format == "opevo-network-run";
}

std::string topLevelKeys(const Json& root) {
  std::string keys;
  std::size_t n = 0;
  for (const auto& [key, value] : root.items()) {
    if (n++ == 8) return keys + ", ...";
    keys += (keys.empty() ? "" : ", ") + key;
  }
  return keys.empty() ? "none" : keys;
}

}  // namespace

std::string datasetFormatName(DatasetFormat format) {
  switch (format) {
    case DatasetFormat::KernelTunerCache:
      return "kernel_tuner_cache";
    case DatasetFormat::T4:
      return "t4";
  }
  return "?";
}

std::size_t ReplayDataset::failedCount() const {
  return static_cast<std::size_t>(std::count_if(table.begin(), table.end(), [](const auto& kv) {
    return kv.second.status != TrialStatus::Ok;
  }));
}

ReplayDataset loadReplayDataset(const std::string& given) {
  // A name that is not here may be a shipped file: "gemm/RTX_2080_Ti.json.gz" or the README's
  // "resources/datasets/..." from an installed copy or another folder.
  if (const std::string missing = missingDataFileText(given); !missing.empty())
    throw InputError(missing);
  const std::string path = resolveDataFile(given);
  std::string text = readMaybeGzipped(path);
  // Depth 2: the top-level object and "cache" may be left open by a run still being written.
  const ParsedJson parsed = parseJsonFile(text, path, 2);
  const Json& root = parsed.value;
  const std::string expected =
      "expected a Kernel Tuner cache (keys tune_params_keys, tune_params, cache) or T4 results "
      "(keys schema_version, results)";
  if (!root.is_object())
    throw InputError(path + ": JSON of an unknown schema: the top level is " +
                     std::string(root.type_name()) + "; " + expected);
  const bool isCache = root.contains("cache") && root.contains("tune_params_keys");
  const bool isT4 = !isCache && root.contains("results");
  if (parsed.closedUnterminated && !isCache)
    throw InputError(path + ": not valid JSON: " + parsed.originalError);
  if (!isCache && !isT4 && root.contains("ConfigurationSpace"))
    throw InputError(path + ": this is a T1 search-space file, which holds no measurements; " +
                     expected);
  if (!isCache && !isT4 && isNetworkArchive(root))
    throw InputError(path +
                     ": this is a network run archive (opevo net archive), which holds a network's "
                     "tuning run rather than one kernel's measurements: store it with `opevo net "
                     "restore " +
                     path + "`");
  if (!isCache && !isT4)
    throw InputError(path + ": JSON of an unknown schema (top-level keys: " + topLevelKeys(root) +
                     "); " + expected);
  // T4 names parameters only as the keys of each configuration: take their order from the file.
  const std::vector<std::string> order =
      isT4 ? keysInFileOrder(text, "configuration", 3) : std::vector<std::string>{};
  text = std::string();  // the text is no longer needed: give back its memory before building
  RawDataset raw =
      isCache ? replay::readKernelTunerCache(root, path) : replay::readT4(root, order, path);
  const std::size_t entries = raw.entries.size();
  ReplayDataset ds = build(std::move(raw), path);
  if (parsed.closedUnterminated) {
    // A run still being written has measured only part of its space, whatever it holds so far.
    ds.completeness = Completeness::Truncated;
    ds.complete = false;
    ds.completenessNote =
        "not complete: the file ends without its closing braces (a run still "
        "being written?); its " +
        std::to_string(entries) +
        " complete entries were read, and their best is not the optimum (no "
        "fraction of optimum is given)";
    ds.notes.push_back(ds.completenessNote);
  } else if (ds.completeness != Completeness::RunRecord) {
    judgeCompleteness(ds);
  }
  return ds;
}

std::string ReplayDataset::operatorName() const {
  if (!kernelName.empty()) return kernelName;
  std::string name = std::filesystem::path(path).filename().string();
  for (const std::string suffix : {".gz", ".json"})
    if (name.size() > suffix.size() && name.ends_with(suffix))
      name.resize(name.size() - suffix.size());
  return name;
}

}  // namespace opevo
