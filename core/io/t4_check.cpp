#include "io/t4_check.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "common/error.h"
#include "common/median.h"
#include "io/measurement_bounds.h"
#include "io/replay_raw.h"

namespace opevo::t4 {
namespace {

// The T4 versions whose fields this reader knows.
constexpr const char* kSchemaVersions[] = {"1.0.0"};
const std::string kInvalidityNames[] = {"correct", "compile",     "runtime",
                                        "timeout", "correctness", "constraints"};
constexpr const char* kInvalidities =
    "correct, compile, runtime, timeout, correctness, constraints";

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

template <class Json>
const Json* find(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// "an object", "an array", "a number": nlohmann's type names with their article.
std::string article(const char* typeName) {
  return std::string("aeiou").find(typeName[0]) != std::string::npos ? "an " : "a ";
}

template <class Json>
[[noreturn]] void wrongType(const std::string& path, const std::string& field, const Json& got,
                            const std::string& expected) {
  throw InputError(path + ": " + field + " is " +
                   (got.is_string() ? "'" + got.template get<std::string>() + "'"
                                    : article(got.type_name()) + std::string(got.type_name())) +
                   ", expected " + expected);
}

template <class Json>
double timeScale(const Json& meta, const std::string& path) {
  const Json* unit = find(meta, "timeunit");
  if (!unit) return 1;  // the format's default, and what the datasets' README states
  if (!unit->is_string()) wrongType(path, "metadata.timeunit", *unit, "a text");
  std::string u = unit->template get<std::string>();
  std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return std::tolower(c); });
  // "miliseconds" (sic) is what Kernel Tuner's T4 writer emits.
  if (u == "ms" || u == "milliseconds" || u == "miliseconds" || u == "millisecond") return 1;
  if (u == "s" || u == "seconds" || u == "second") return 1e3;
  if (u == "us" || u == "microseconds" || u == "microsecond") return 1e-3;
  if (u == "ns" || u == "nanoseconds" || u == "nanosecond") return 1e-6;
  throw InputError(path + ": metadata.timeunit '" + u +
                   "' is not a known time unit (expected seconds, milliseconds, microseconds or "
                   "nanoseconds)");
}

template <class Json>
void checkMetadata(const Json& root, const std::string& path) {
  if (const Json* v = find(root, "schema_version")) {
    bool known = false;
    for (const char* version : kSchemaVersions) known = known || (v->is_string() && *v == version);
    if (!known) wrongType(path, "schema_version", *v, "a T4 version this reader knows (1.0.0)");
  }
  const Json* meta = find(root, "metadata");
  if (!meta) return;
  if (!meta->is_object()) wrongType(path, "metadata", *meta, "an object");
  // What the readers take as text: a number there is a writer's mistake, not a name.
  for (const char* name :
       {"device_name", "device", "kernel_name", "algorithm", "backend", "speed_unit", "label",
        "exported_by", "reference_library", "status", "end_reason", "started", "ended"})
    if (const Json* v = find(*meta, name); v && !v->is_null() && !v->is_string())
      wrongType(path, std::string("metadata.") + name, *v, "a text");
}

// A time the file gives (in its timeunit, `scale` ms each) that cannot have been measured
// (measurement_bounds.h): refused with the result and field that hold it.
void checkTime(double value, double scale, const std::string& path, const std::string& at) {
  const std::optional<std::string> problem = implausibleTimeMs(value * scale);
  if (!problem) return;
  const char* unit = scale == 1e3 ? "s" : scale == 1e-3 ? "us" : scale == 1e-6 ? "ns" : "ms";
  throw InputError(path + ": " + at + " " + *problem +
                   (scale == 1 ? "" : " (" + number(value) + " " + unit + " as written)") +
                   "; a correct result needs a positive time it can have been measured in");
}

struct Throughput {
  std::size_t result;
  double value;
  double workMs;        // value x the time measurement
  double workMedianMs;  // value x the median runtime, where there are runtimes
};

template <class Json>
void checkResult(const Json& r, std::size_t i, const Json* first, const std::string& path,
                 double scale, std::map<std::string, std::vector<Throughput>>& throughputs,
                 std::vector<std::size_t>& correct) {
  const std::string where = resultName(i);
  if (!r.is_object()) wrongType(path, where, r, "an object");
  for (const char* required : {"configuration", "times", "invalidity", "correctness"})
    if (!find(r, required))
      throw InputError(path + ": " + where + " lacks the required field '" + required + "'");
  const Json& config = *find(r, "configuration");
  // An empty object is the right type with nothing in it ("is a object, expected an object").
  if (config.is_object() && config.empty())
    throw InputError(path + ": " + where +
                     ".configuration is empty, expected the values of the "
                     "configuration's parameters");
  if (!config.is_object())
    wrongType(path, where + ".configuration", config, "an object of parameter values");
  // The parameters are results[0]'s: one more or one less is another kernel's result.
  const Json& reference = first ? *find(*first, "configuration") : config;
  for (const auto& [name, value] : config.items())
    if (!reference.contains(name))
      throw InputError(path + ": " + where + ".configuration has the parameter '" + name +
                       "', which results[0]'s does not");
  for (const auto& [name, value] : reference.items())
    if (!config.contains(name))
      throw InputError(path + ": " + where + ".configuration lacks the parameter '" + name +
                       "', which results[0]'s has");

  const Json& invalidity = *find(r, "invalidity");
  if (!invalidity.is_string()) wrongType(path, where + ".invalidity", invalidity, "a text");
  const std::string why = invalidity.template get<std::string>();
  if (std::find(std::begin(kInvalidityNames), std::end(kInvalidityNames), why) ==
      std::end(kInvalidityNames))
    wrongType(path, where + ".invalidity", invalidity, std::string("one of ") + kInvalidities);
  const Json& correctness = *find(r, "correctness");
  if (!correctness.is_number()) wrongType(path, where + ".correctness", correctness, "0 or 1");

  const Json& times = *find(r, "times");
  if (!times.is_object()) wrongType(path, where + ".times", times, "an object");
  for (const auto& [name, value] : times.items()) {
    if (name == "runtimes") {
      if (!value.is_array()) wrongType(path, where + ".times.runtimes", value, "a list of numbers");
      for (const Json& x : value)
        if (!x.is_number())
          wrongType(path, where + ".times.runtimes", x, "a list of numbers (a time each)");
    } else if (!value.is_number() && !value.is_null()) {
      wrongType(path, where + ".times." + name, value, "a number");
    }
  }

  const bool ok = why == "correct" && correctness.template get<double>() != 0;
  std::optional<double> timeMs;
  std::map<std::string, double> metrics;
  if (const Json* ms = find(r, "measurements")) {
    if (!ms->is_array()) wrongType(path, where + ".measurements", *ms, "a list");
    for (std::size_t k = 0; k < ms->size(); ++k) {
      const Json& m = (*ms)[k];
      const std::string at = where + ".measurements[" + std::to_string(k) + "]";
      if (!m.is_object()) wrongType(path, at, m, "an object (name, value, unit)");
      const Json* name = find(m, "name");
      if (!name || !name->is_string())
        throw InputError(path + ": " + at + " has no name (a text such as \"time\")");
      const Json* unitField = find(m, "unit");
      const std::string unit =
          unitField && unitField->is_string() ? unitField->template get<std::string>() : "";
      const Json* value = find(m, "value");
      if (!ok || !value) continue;  // a failure's value is its reason, a text
      const std::string label = name->template get<std::string>();
      if (label == "time") {
        if (!value->is_number())
          wrongType(path, at + " (time)", *value, "a number, since the result is correct");
        checkTime(value->template get<double>(), scale, path, at + " (time)");
        timeMs = value->template get<double>() * scale;
      } else if (value->is_number() &&
                 (replay::isThroughputName(label) || replay::isThroughputName(unit))) {
        const std::string metric = unit.empty() ? label : unit;
        if (const auto problem = implausibleThroughput(value->template get<double>(), metric))
          throw InputError(path + ": " + at + " (" + label + ") " + *problem);
        metrics[metric] = value->template get<double>();
      }
    }
  }
  if (!ok) return;
  correct.push_back(i);
  std::vector<double> runtimes;
  if (const Json* rt = find(times, "runtimes"))
    for (const Json& x : *rt) {
      checkTime(x.template get<double>(), scale, path,
                where + ".times.runtimes[" + std::to_string(runtimes.size()) + "]");
      runtimes.push_back(x.template get<double>() * scale);
    }
  for (const auto& [name, value] : metrics)
    throughputs[name].push_back(
        {i, value, timeMs ? value * *timeMs : 0, runtimes.empty() ? 0 : value * median(runtimes)});
}

// Throughput x time is the kernel's work, one figure for every configuration of a fixed problem;
// the time measurement is a mean of the runs while the throughput may come from their median, so
// either may match, within a margin that a noisy run does not reach but a wrong figure does.
void checkThroughputs(const std::map<std::string, std::vector<Throughput>>& throughputs,
                      const std::vector<std::size_t>& correct, const std::string& path) {
  for (const auto& [name, list] : throughputs) {
    if (list.size() != correct.size()) {
      std::size_t lacking = correct.front();
      for (std::size_t k = 0; k < correct.size(); ++k)
        if (k >= list.size() || list[k].result != correct[k]) {
          lacking = correct[k];
          break;
        }
      throw InputError(path + ": " + resultName(lacking) + " is correct but has no " + name +
                       " measurement, which " + std::to_string(list.size()) +
                       " other correct results have: its speed would be in another unit than "
                       "theirs");
    }
    std::vector<double> work, workMedian;
    for (const Throughput& t : list) {
      if (t.workMs > 0) work.push_back(t.workMs);
      if (t.workMedianMs > 0) workMedian.push_back(t.workMedianMs);
    }
    if (work.size() < 3) continue;  // too few to tell which one is off
    const double typical = median(work);
    // The typical work by the median runtimes too: where the throughput came from the median,
    // noisy means (cold runs: a few slow ones) put the work by the means of most results far
    // from the median's, and an archive opevo had just written was refused as wrong.
    const double typicalMedian = workMedian.size() >= 3 ? median(workMedian) : typical;
    constexpr double kMargin = 1.5;
    auto near = [&](double w, double of) { return w > of / kMargin && w < of * kMargin; };
    for (const Throughput& t : list) {
      if (t.workMs <= 0 || near(t.workMs, typical) || near(t.workMedianMs, typical) ||
          near(t.workMedianMs, typicalMedian))
        continue;
      throw InputError(path + ": " + resultName(t.result) + "'s " + name + " (" + number(t.value) +
                       ") does not match its time (" + number(t.workMs / t.value) + " ms): " +
                       name + " x time is " + number(t.workMs) + " there and " + number(typical) +
                       " for the file's correct results (their median), so one of its two "
                       "figures is wrong");
    }
  }
}

}  // namespace

std::string resultName(std::size_t index) {
  return "results[" + std::to_string(index) + "]";
}

template <class Json>
double checkDocument(const Json& root, const std::string& path) {
  checkMetadata(root, path);
  const Json* meta = find(root, "metadata");
  const double scale = meta ? timeScale(*meta, path) : 1;
  const Json* results = find(root, "results");
  if (!results || !results->is_array()) throw InputError(path + ": T4 file without a results list");
  std::map<std::string, std::vector<Throughput>> throughputs;
  std::vector<std::size_t> correct;
  for (std::size_t i = 0; i < results->size(); ++i)
    checkResult((*results)[i], i, i == 0 ? nullptr : &(*results)[0], path, scale, throughputs,
                correct);
  checkThroughputs(throughputs, correct, path);
  return scale;
}

template double checkDocument(const nlohmann::json&, const std::string&);
template double checkDocument(const nlohmann::ordered_json&, const std::string&);

}  // namespace opevo::t4
