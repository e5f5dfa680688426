#include "io/run_import.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "io/replay_dataset.h"

namespace opevo {

ImportFile readImportFile(const std::string& path) {
  const ReplayDataset ds = loadReplayDataset(path);
  const std::string source = std::filesystem::absolute(path).lexically_normal().string();

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
  nlohmann::json settings = {{"source", source}, {"format", ds.format}, {"notes", ds.notes}};
  if (!ds.algorithm.empty()) settings["tuned_by"] = ds.algorithm;
  run.settingsJson = settings.dump();
  run.backend = "replay-import";
  run.device = ds.deviceName;
  run.budgetJson = nlohmann::json{{"trials", points.size()}}.dump();
  run.status = RunStatus::Finished;
  run.endReason = EndReason::Trials;
  run.started = Store::nowUtc();
  run.ended = run.started;
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
    trials.push_back(std::move(t));
  }
  ImportFile file;
  if (ds.kernelName.empty())
    file.info.notes.push_back(
        "the file names no kernel: the run's operator is named after the "
        "file, '" +
        run.operatorName + "'");
  file.info.trials = trials.size();
  file.info.format = ds.format;
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

std::string measuredBy(const RunRecord& run) {
  if (run.algorithm != "import") return run.algorithm;
  const auto settings = nlohmann::json::parse(run.settingsJson, nullptr, false);
  if (settings.is_object() && settings.contains("tuned_by") && settings["tuned_by"].is_string())
    return settings["tuned_by"].get<std::string>() + " (imported)";
  return run.algorithm;
}

}  // namespace opevo
