#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "engine/device_time.h"
#include "io/replay_dataset.h"
#include "space/discrete_param.h"
#include "space/text.h"

namespace opevo::cli {
namespace {

struct DatasetOptions {
  std::string file;
  bool json = false;
};

// Failures grouped by status and the file's reason, most frequent first within a status.
std::map<std::pair<std::string, std::string>, std::size_t> failureGroups(const ReplayDataset& ds) {
  std::map<std::pair<std::string, std::string>, std::size_t> groups;
  for (const auto& [config, m] : ds.table)
    if (m.status != TrialStatus::Ok) ++groups[{std::string(statusName(m.status)), m.message}];
  return groups;
}

bool isTuple(const ReplayDataset& ds, std::size_t i) {
  return i < ds.tupleValued.size() && ds.tupleValued[i];
}

std::string kindOf(const ReplayDataset& ds, std::size_t i) {
  return isTuple(ds, i) ? "tuple" : std::string(kindName(ds.space.param(i).kind()));
}

// A tuple-valued choice lists its tuples, "(1,16,16,2) (16,4,2,4)": its spec escapes their
// commas ("choice:(1\\,16\\,16\\,2),(16\\,4\\,2\\,4)"), which is for reading back, not for people.
std::string specOf(const ReplayDataset& ds, std::size_t i) {
  const Parameter& p = ds.space.param(i);
  if (!isTuple(ds, i)) return p.spec();
  std::string text;
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(p.size().as64()); ++k)
    text += (k ? " (" : "(") + p.format({k}) + ")";
  return text;
}

// "8,1,8,8" -> [8, 1, 8, 8]
nlohmann::json tupleJson(const std::string& text) {
  std::vector<std::int64_t> values;
  parseIntegers(text, values);
  return values;
}

void printJson(const ReplayDataset& ds) {
  const SearchSpace& space = ds.space;
  nlohmann::json params = nlohmann::json::array();
  for (std::size_t i = 0; i < space.dims(); ++i) {
    const Parameter& p = space.param(i);
    nlohmann::json param = {{"name", p.name()},
                            {"kind", kindOf(ds, i)},
                            {"values", p.size().as64()},
                            {"spec", specOf(ds, i)}};
    if (isTuple(ds, i)) {
      param["tuples"] = nlohmann::json::array();
      for (std::int64_t k = 0; k < static_cast<std::int64_t>(p.size().as64()); ++k)
        param["tuples"].push_back(tupleJson(p.format({k})));
    }
    params.push_back(std::move(param));
  }
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& [key, count] : failureGroups(ds))
    failures.push_back({{"status", key.first}, {"message", key.second}, {"count", count}});
  nlohmann::json best = nullptr;
  if (!ds.bestConfig.empty()) {
    const Measurement& m = ds.table.at(ds.bestConfig);
    nlohmann::json values = nlohmann::json::object();
    for (std::size_t i = 0; i < space.dims(); ++i) {
      const Parameter& p = space.param(i);
      if (isTuple(ds, i)) {
        values[p.name()] = tupleJson(p.format(ds.bestConfig[i]));
        continue;
      }
      if (p.kind() != ParamKind::Discrete) {
        values[p.name()] = p.format(ds.bestConfig[i]);
        continue;
      }
      // Integers print as 32, not 32.0, as they appear in the dataset.
      const double x = static_cast<const DiscreteParam&>(p).value(ds.bestConfig[i]);
      if (x == std::trunc(x) && std::abs(x) < 9e15)
        values[p.name()] = static_cast<std::int64_t>(x);
      else
        values[p.name()] = x;
    }
    best = {{"configuration", space.format(ds.bestConfig)},
            {"values", values},
            {"speed", ds.bestSpeed},
            {"median_ms", m.medianMs}};
  }
  const std::size_t failed = ds.failedCount();
  std::cout << nlohmann::json{{"file", ds.path},
                              {"format", datasetFormatName(ds.format)},
                              {"device", ds.deviceName},
                              {"kernel", ds.kernelName},
                              {"label", ds.label},
                              {"parameters", params},
                              {"configurations", ds.table.size()},
                              {"ok", ds.table.size() - failed},
                              {"failed", failed},
                              {"failures", failures},
                              {"speed_unit", ds.speedUnit},
                              {"best", best},
                              {"cartesian_size", space.size().toString()},
                              // Unknown for a file that may not hold every valid one.
                              {"valid",
                               ds.complete ? nlohmann::json(ds.table.size()) : nlohmann::json()},
                              {"complete", ds.complete},
                              {"completeness", completenessName(ds.completeness)},
                              {"completeness_note", ds.completenessNote},
                              {"description", ds.descriptionPath.empty()
                                                  ? nlohmann::json()
                                                  : nlohmann::json(ds.descriptionPath)},
                              {"time_not_mean_of_times", ds.timeNotMeanOfTimes},
                              // What measuring every configuration once cost the device, as a
                              // replay charges its trials (engine/device_time.h).
                              {"device_seconds", ds.deviceSeconds},
                              {"device_time", ds.deviceTimeNote},
                              {"notes", ds.notes}}
                   .dump(2)
            << "\n";
}

void printText(const ReplayDataset& ds, const std::string& given) {
  const SearchSpace& space = ds.space;
  std::printf("%s\n", ds.label.c_str());
  // A name found among the shipped files says which file it was.
  if (ds.path != given) std::printf("file:    %s (shipped)\n", ds.path.c_str());
  std::printf("format:  %s\n", datasetFormatName(ds.format).c_str());
  std::printf("device:  %s\n",
              ds.deviceName.empty() ? "(not named in the file)" : ds.deviceName.c_str());
  std::printf("kernel:  %s\n\n",
              ds.kernelName.empty() ? "(not named in the file)" : ds.kernelName.c_str());
  std::printf("%-28s %-9s %7s  %s\n", "parameter", "kind", "values", "spec");
  for (std::size_t i = 0; i < space.dims(); ++i) {
    const Parameter& p = space.param(i);
    std::string spec = specOf(ds, i);
    if (spec.size() > 60) spec = spec.substr(0, 57) + "...";
    std::printf("%-28s %-9s %7s  %s\n", p.name().c_str(), kindOf(ds, i).c_str(),
                p.size().toString().c_str(), spec.c_str());
  }
  const std::size_t failed = ds.failedCount();
  std::printf("\nconfigurations: %zu (%zu ok, %zu failed)\n", ds.table.size(),
              ds.table.size() - failed, failed);
  for (const auto& [key, count] : failureGroups(ds))
    std::printf("  failed: %zu %s (%s)\n", count, key.first.c_str(), key.second.c_str());
  if (ds.bestConfig.empty()) {
    std::printf("best: none (no configuration succeeded)\n");
  } else {
    // The speed is the file's own: its metric, or 1 over its time (Kernel Tuner's objective, as a
    // rule the mean of its runs but not in every file: a note says so), not the median of the
    // runs printed beside it.
    const double median = ds.table.at(ds.bestConfig).medianMs;
    if (ds.speedUnit == "1/ms")
      std::printf(
          "best: %s\n      %.6g %s (1 / the file's time of %.6g ms; median of its runs "
          "%.6g ms)\n",
          space.format(ds.bestConfig).c_str(), ds.bestSpeed, ds.speedUnit.c_str(),
          1.0 / ds.bestSpeed, median);
    else
      std::printf("best: %s\n      %.6g %s (the file's figure; median of its runs %.6g ms)\n",
                  space.format(ds.bestConfig).c_str(), ds.bestSpeed, ds.speedUnit.c_str(), median);
  }
  const double cartesian = space.size().approx();
  // A share that would round to 0.0% is printed with the digits it needs (300 of 10^9: 3e-05%).
  const double share = cartesian > 0 ? 100.0 * ds.table.size() / cartesian : 0.0;
  char shareText[32];
  std::snprintf(shareText, sizeof shareText, share == 0 || share >= 0.05 ? "%.1f" : "%.2g", share);
  // Valid only when the file holds every valid configuration; otherwise it holds what it holds.
  std::printf("space: %s Cartesian points, %zu %s (%s%%)%s\n", space.size().toString().c_str(),
              ds.table.size(), ds.complete ? "valid" : "in the file", shareText,
              ds.complete ? ", all of them measured" : "");
  // What a replay charges its trials (compare's device_seconds), for the whole file.
  std::printf("device time: %s to measure every configuration once (%s)\n",
              deviceTimeText(ds.deviceSeconds).c_str(), ds.deviceTimeNote.c_str());
  // Truncated files and run records already say it among the notes.
  if (ds.completeness != Completeness::Truncated && ds.completeness != Completeness::RunRecord)
    std::printf("completeness: %s\n", ds.completenessNote.c_str());
  for (const std::string& note : ds.notes) std::printf("note: %s\n", note.c_str());
}

}  // namespace

void addDatasetCommand(CLI::App& app) {
  auto options = std::make_shared<DatasetOptions>();
  auto* cmd = app.add_subcommand(
      "dataset",
      "Describe a measured dataset (Kernel Tuner cache or T4, gzip or plain) for replay");
  cmd->add_option("file", options->file, "The dataset file")->required();
  cmd->add_flag("--json", options->json, "Print one JSON object");
  cmd->callback([options] {
    const ReplayDataset ds = loadReplayDataset(options->file);
    if (options->json)
      printJson(ds);
    else
      printText(ds, options->file);
  });
}

}  // namespace opevo::cli
