// The two file formats of the measured datasets, read into the format-neutral RawDataset.
#include <algorithm>
#include <cctype>
#include <set>

#include "common/error.h"
#include "io/replay_raw.h"
#include "io/t4_check.h"

namespace opevo::replay {
namespace {

using Json = nlohmann::json;

// Reports the field with its expected type; a wrong type is a user's file problem, not a crash.
[[noreturn]] void badField(const std::string& path, const std::string& where,
                           const std::string& field, const std::string& expected, const Json* got) {
  throw InputError(path + ": " + where + (field.empty() ? "" : " field '" + field + "'") +
                   (got ? " is " + std::string(got->type_name()) + ", expected " + expected
                        : " is missing (expected " + expected + ")"));
}

const Json* find(const Json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// A string field, or "" when absent; anything else is written out as JSON (kernel_name may be a
// list in some Kernel Tuner versions).
std::string text(const Json& object, const char* key) {
  const Json* j = find(object, key);
  if (!j || j->is_null()) return {};
  return j->is_string() ? j->get<std::string>() : j->dump();
}

std::vector<double> numbers(const Json& array, double scale, const std::string& path,
                            const std::string& where, const std::string& field) {
  if (!array.is_array()) badField(path, where, field, "an array of numbers", &array);
  std::vector<double> out;
  out.reserve(array.size());
  for (const Json& x : array) {
    if (!x.is_number()) badField(path, where, field, "an array of numbers", &array);
    out.push_back(x.get<double>() * scale);
  }
  return out;
}

// Kernel Tuner records a failed configuration as one of these strings in place of the time.
// InvalidConfig is its answer to a launch that asks for more than the device has ("too many
// resources requested for launch"), a limit met only after compiling: what Rejected means here.
// An unknown name is still a failure, kept with its name as the message.
Measurement kernelTunerFailure(const std::string& reason) {
  Measurement m;
  m.message = reason;
  if (reason == "CompilationFailedConfig") {
    m.status = TrialStatus::CompileError;
  } else if (reason == "InvalidConfig") {
    m.status = TrialStatus::Rejected;
  } else {
    m.status = TrialStatus::RuntimeFault;
  }
  return m;
}

// Fields Kernel Tuner writes into every cache entry besides the parameters and metrics.
const std::set<std::string>& kernelTunerFields() {
  static const std::set<std::string> fields = {
      "time",           "times",         "compile_time",   "verification_time",
      "benchmark_time", "strategy_time", "framework_time", "timestamp"};
  return fields;
}

// T4's invalidity values other than "correct".
bool t4FailureStatus(const std::string& invalidity, TrialStatus& out) {
  static const std::pair<const char*, TrialStatus> kStatuses[] = {
      {"compile", TrialStatus::CompileError},
      {"runtime", TrialStatus::RuntimeFault},
      {"timeout", TrialStatus::Timeout},
      {"correctness", TrialStatus::WrongResult},
      {"constraints", TrialStatus::Rejected}};
  for (const auto& [name, status] : kStatuses)
    if (invalidity == name) {
      out = status;
      return true;
    }
  return false;
}

// A number field, counted in `have` when the entry holds it; 0 when it does not.
double cost(const Json& object, const char* key, std::size_t& have, double scale = 1) {
  const Json* j = find(object, key);
  if (!j || !j->is_number()) return 0;
  ++have;
  return j->get<double>() * scale;
}

double sum(const std::vector<double>& values) {
  double total = 0;
  for (double v : values) total += v;
  return total;
}

// What measuring a cache entry cost, as Kernel Tuner's simulation mode charges it: compile_time,
// benchmark_time and verification_time (its framework_time is Kernel Tuner's own Python between
// measurements, strategy_time the search strategy's). A failed entry keeps what it spent before
// failing. An entry without benchmark_time (older caches) is charged its timed runs (its time once
// where it lists none; nothing where it failed, whose runs are not kept).
void chargeKernelTunerCosts(const Json& entry, Measurement& m, CostParts& parts) {
  ++parts.entries;
  m.compileMs = cost(entry, "compile_time", parts.compile);
  m.verifyMs = cost(entry, "verification_time", parts.verification);
  const std::size_t before = parts.benchmark;
  double benchmark = cost(entry, "benchmark_time", parts.benchmark);
  if (parts.benchmark == before) benchmark = sum(m.timesMs);
  m.measureMs = benchmark + m.verifyMs;
}

// A T4 result's: times.compilation, its timed runs (T4 holds no benchmark total) and
// times.validation; times.framework and search_algorithm are the tool's own, not charged. A
// failed result's runs count too when it lists them; a correct one without runtimes is charged
// its time measurement once.
void chargeT4Costs(const Json& times, Measurement& m, double scale, CostParts& parts) {
  ++parts.entries;
  m.compileMs = cost(times, "compilation", parts.compile, scale);
  m.verifyMs = cost(times, "validation", parts.verification, scale);
  double runs = sum(m.timesMs);
  if (const Json* r = find(times, "runtimes"); m.timesMs.empty() && r && r->is_array())
    for (const Json& x : *r)
      if (x.is_number()) runs += x.get<double>() * scale;
  m.measureMs = runs + m.verifyMs;
}

}  // namespace

bool isThroughputName(const std::string& name) {
  auto endsWith = [&](std::string_view suffix, bool anyCase) {
    if (name.size() <= suffix.size()) return false;
    const std::string_view tail = std::string_view(name).substr(name.size() - suffix.size());
    for (std::size_t i = 0; i < suffix.size(); ++i)
      if (anyCase ? std::toupper(static_cast<unsigned char>(tail[i])) != suffix[i]
                  : tail[i] != suffix[i])
        return false;
    return true;
  };
  return endsWith("/s", false) || endsWith("FLOPS", true);
}

RawDataset readKernelTunerCache(const Json& root, const std::string& path) {
  RawDataset raw;
  raw.format = DatasetFormat::KernelTunerCache;
  raw.deviceName = text(root, "device_name");
  raw.kernelName = text(root, "kernel_name");
  const Json* keys = find(root, "tune_params_keys");
  if (!keys || !keys->is_array() || keys->empty())
    badField(path, "Kernel Tuner cache", "tune_params_keys", "a non-empty array of names", keys);
  for (const Json& k : *keys) {
    if (!k.is_string())
      badField(path, "Kernel Tuner cache", "tune_params_keys", "an array of names", keys);
    raw.paramNames.push_back(k.get<std::string>());
  }
  raw.declared.resize(raw.paramNames.size());
  if (const Json* params = find(root, "tune_params")) {
    if (!params->is_object())
      badField(path, "Kernel Tuner cache", "tune_params", "an object of value lists", params);
    for (std::size_t i = 0; i < raw.paramNames.size(); ++i) {
      const Json* values = find(*params, raw.paramNames[i].c_str());
      if (!values) continue;
      if (!values->is_array())
        badField(path, "Kernel Tuner cache", "tune_params." + raw.paramNames[i], "a list", values);
      for (const Json& v : *values) raw.declared[i].push_back(&v);
    }
  }
  const Json* cache = find(root, "cache");
  if (!cache || !cache->is_object())
    badField(path, "Kernel Tuner cache", "cache", "an object of entries", cache);
  if (const std::string objective = text(root, "objective"); isThroughputName(objective))
    raw.declaredMetrics.insert(objective);

  const std::set<std::string> params(raw.paramNames.begin(), raw.paramNames.end());
  raw.entries.reserve(cache->size());
  for (const auto& [key, entry] : cache->items()) {
    RawEntry e;
    e.where = "cache entry '" + key + "'";
    if (!entry.is_object()) badField(path, e.where, "", "an object", &entry);
    for (const std::string& name : raw.paramNames) {
      const Json* v = find(entry, name.c_str());
      if (!v) badField(path, e.where, name, "the parameter's value", nullptr);
      e.values.push_back(v);
    }
    const Json* time = find(entry, "time");
    if (time && time->is_string()) {
      // Some failed entries still carry "times" from runs before the failure; they do not
      // describe a working kernel, so only the status and the reason are kept, and the names of
      // the metrics it would have had (their values are the failure's name).
      e.measurement = kernelTunerFailure(time->get<std::string>());
      for (const auto& [name, value] : entry.items())
        if (isThroughputName(name) && !params.count(name) && !kernelTunerFields().count(name))
          raw.declaredMetrics.insert(name);
    } else if (time && time->is_number()) {
      e.timeMs = time->get<double>();
      const Json* times = find(entry, "times");
      e.measurement.timesMs =
          times ? numbers(*times, 1, path, e.where, "times") : std::vector<double>{e.timeMs};
      for (const auto& [name, value] : entry.items())
        if (value.is_number() && isThroughputName(name) && !params.count(name) &&
            !kernelTunerFields().count(name))
          e.metrics.emplace_back(name, value.get<double>());
    } else {
      badField(path, e.where, "time", "a number or a failure name such as RuntimeFailedConfig",
               time);
    }
    chargeKernelTunerCosts(entry, e.measurement, raw.cost);
    if (const Json* when = find(entry, "timestamp"); when && when->is_string())
      e.timestamp = when->get<std::string>();
    if (const Json* strategy = find(entry, "strategy_time"); strategy && strategy->is_number())
      e.strategyMs = strategy->get<double>();
    raw.entries.push_back(std::move(e));
  }
  return raw;
}

RawDataset readT4(const Json& root, const std::vector<std::string>& paramOrder,
                  const std::string& path) {
  RawDataset raw;
  raw.format = DatasetFormat::T4;
  // What the restore reads alike is checked in one place, with one message for either reader.
  const double scale = t4::checkDocument(root, path);
  // T4 has no device or kernel field; a writer that adds them to metadata (ours does) is honoured.
  if (const Json* meta = find(root, "metadata"); meta && meta->is_object()) {
    raw.deviceName = text(*meta, "device_name");
    if (raw.deviceName.empty()) raw.deviceName = text(*meta, "device");
    raw.kernelName = text(*meta, "kernel_name");
    raw.algorithm = text(*meta, "algorithm");
    if (const std::string unit = text(*meta, "speed_unit"); isThroughputName(unit))
      raw.declaredMetrics.insert(unit);
    raw.referenceLibrary = text(*meta, "reference_library");
    if (const Json* speed = find(*meta, "reference_speed"); speed && speed->is_number())
      raw.referenceSpeed = speed->get<double>();
  }
  const Json* found = find(root, "results");
  if (!found || !found->is_array()) badField(path, "T4 file", "results", "an array", found);
  const Json& results = *found;
  if (results.empty()) throw InputError(path + ": T4 file has no results");
  raw.paramNames = paramOrder;
  raw.entries.reserve(results.size());
  for (std::size_t r = 0; r < results.size(); ++r) {
    const Json& result = results[r];
    RawEntry e;
    e.where = t4::resultName(r);
    const Json& config = *find(result, "configuration");
    if (raw.paramNames.empty())
      for (const auto& [name, value] : config.items()) raw.paramNames.push_back(name);
    for (const std::string& name : raw.paramNames) {
      const Json* v = find(config, name.c_str());
      if (!v) badField(path, e.where, "configuration." + name, "the parameter's value", nullptr);
      e.values.push_back(v);
    }
    const Json& times = *find(result, "times");
    const Json& invalidity = *find(result, "invalidity");
    const Json& correctness = *find(result, "correctness");

    // The "time" measurement is the objective (mean of the runs); a failed one holds the reason.
    std::string reason;
    bool haveTime = false;
    if (const Json* ms = find(result, "measurements"); ms && ms->is_array()) {
      for (const Json& m : *ms) {
        if (!m.is_object()) continue;
        const std::string name = text(m, "name");
        const std::string unit = text(m, "unit");
        const Json* value = find(m, "value");
        if (!value) continue;
        if (name == "time" && value->is_number()) {
          e.timeMs = value->get<double>() * scale;
          haveTime = true;
        } else if (name == "time" && value->is_string()) {
          reason = value->get<std::string>();
        } else if (value->is_number() && (isThroughputName(name) || isThroughputName(unit))) {
          e.metrics.emplace_back(unit.empty() ? name : unit, value->get<double>());
        } else if (isThroughputName(name) || isThroughputName(unit)) {
          raw.declaredMetrics.insert(unit.empty() ? name : unit);  // a failure's, without a value
        }
      }
    }
    const std::string why = invalidity.get<std::string>();
    Measurement& m = e.measurement;
    if (why == "correct" && correctness.get<double>() != 0) {
      const Json* runtimes = find(times, "runtimes");
      if (runtimes) m.timesMs = numbers(*runtimes, scale, path, e.where, "times.runtimes");
      if (!haveTime && m.timesMs.empty())
        throw InputError(path + ": " + e.where +
                         " is correct but has neither a time measurement nor times.runtimes");
      if (!haveTime) {
        for (double t : m.timesMs) e.timeMs += t / static_cast<double>(m.timesMs.size());
      }
      if (m.timesMs.empty()) m.timesMs = {e.timeMs};
    } else {
      m.message = reason.empty() ? why : reason;
      if (why == "correct") {
        m.status = TrialStatus::WrongResult;
        m.message = "correctness 0";
      } else {
        t4FailureStatus(why, m.status);  // checkDocument refused any other
      }
    }
    chargeT4Costs(times, m, scale, raw.cost);
    raw.entries.push_back(std::move(e));
  }
  return raw;
}

}  // namespace opevo::replay
