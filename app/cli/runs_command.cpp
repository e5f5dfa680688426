#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "common/error.h"
#include "store/live_status.h"
#include "store/store.h"

namespace opevo::cli {
namespace {

nlohmann::json runJson(const RunRecord& r, RunStatus status, std::size_t trials, double best) {
  nlohmann::json j{{"id", r.id},
                   {"operator", r.operatorName},
                   {"algorithm", r.algorithm},
                   {"settings", nlohmann::json::parse(r.settingsJson, nullptr, false)},
                   {"seed", r.seed},
                   {"backend", r.backend},
                   {"device", r.device},
                   {"budget", nlohmann::json::parse(r.budgetJson, nullptr, false)},
                   {"status", std::string(runStatusName(status))},
                   {"end_reason", std::string(endReasonName(r.endReason))},
                   {"started", r.started},
                   {"ended", r.ended},
                   {"speed_unit", r.speedUnit},
                   {"trials", trials},
                   {"best_speed", best}};
  if (r.raceId)
    j["race"] = {{"id", r.raceId}, {"algorithm", r.raceAlgorithm}, {"repeat", r.raceRepeat}};
  if (r.referenceSpeed)
    j["reference"] = {{"library", r.referenceLibrary}, {"speed", *r.referenceSpeed}};
  if (!r.label.empty()) j["label"] = r.label;
  return j;
}

double bestOf(const std::vector<TrialRow>& trials) {
  double best = 0;
  for (const TrialRow& t : trials)
    if (t.status == TrialStatus::Ok && t.speed > best) best = t.speed;
  return best;
}

}  // namespace

void addRunsCommands(CLI::App& app) {
  auto db = std::make_shared<std::string>();
  auto* runs = app.add_subcommand("runs", "List the stored tuning runs");
  runs->add_option("--db", *db, "Database file (default: " + Store::defaultPath() + ")");
  runs->callback([db] {
    Store store(existingDatabase(*db));
    const std::vector<RunRecord> all = store.runs();
    const LiveStatus live(store);
    // As wide as the longest name, up to 40: cut to 12, resnet18_conv2..5 all read resnet18_con.
    int width = 8;
    for (const RunRecord& r : all)
      width = std::max(width, std::min(40, static_cast<int>(r.operatorName.size())));
    const auto name = [width](const RunRecord& r) { return r.operatorName.substr(0, width); };
    std::printf("%5s  %-*s %-10s %-8s %-11s %7s %12s  %s\n", "run", width, "operator", "algorithm",
                "backend", "status", "trials", "best", "started");
    for (const RunRecord& r : all) {
      std::vector<TrialRow> trials;
      try {
        trials = store.trials(r.id);
      } catch (const std::exception& e) {
        // One run's damaged trial does not hide the others; `show` names what is damaged.
        std::printf("%5lld  %-*s %-10s %-8s %-11s %7s %12s  %s (trials unreadable: %s)\n",
                    static_cast<long long>(r.id), width, name(r).c_str(), r.algorithm.c_str(),
                    r.backend.c_str(), std::string(runStatusName(live.of(r))).c_str(), "?", "?",
                    r.started.c_str(), e.what());
        continue;
      }
      std::printf("%5lld  %-*s %-10s %-8s %-11s %7zu %12.4g  %s\n", static_cast<long long>(r.id),
                  width, name(r).c_str(), r.algorithm.c_str(), r.backend.c_str(),
                  std::string(runStatusName(live.of(r))).c_str(), trials.size(), bestOf(trials),
                  r.started.c_str());
    }
  });

  auto showDb = std::make_shared<std::string>();
  auto id = std::make_shared<std::int64_t>(0);
  auto json = std::make_shared<bool>(false);
  auto* show = app.add_subcommand("show", "Print one stored run and every trial");
  show->add_option("run", *id, "Run id (see opevo runs)")->required();
  show->add_option("--db", *showDb, "Database file (default: " + Store::defaultPath() + ")");
  show->add_flag("--json", *json, "Print one JSON object");
  show->callback([showDb, id, json] {
    Store store(existingDatabase(*showDb));
    const auto run = store.run(*id);
    if (!run) throw InputError("no run " + std::to_string(*id) + " in " + store.path());
    const auto trials = store.trials(*id);
    const LiveStatus live(store);
    const RunStatus status = live.of(*run);
    if (*json) {
      nlohmann::json rows = nlohmann::json::array();
      for (const TrialRow& t : trials)
        rows.push_back({{"seq", t.seq},
                        {"order", t.order},
                        {"config", t.config},
                        {"status", std::string(statusName(t.status))},
                        {"tuning_seconds", t.seconds},
                        {"message", t.message},
                        {"speed", t.speed},
                        {"median_ms", t.medianMs},
                        {"times_ms", t.timesMs},
                        {"compile_ms", t.compileMs},
                        {"verify_ms", t.verifyMs},
                        {"measure_ms", t.measureMs},
                        {"tuner_ms", t.tunerMs},
                        {"finished", t.finished}});
      std::cout << nlohmann::json{{"run", runJson(*run, status, trials.size(), bestOf(trials))},
                                  {"trials", rows}}
                       .dump(2)
                << "\n";
      return;
    }
    // An imported file may name no device.
    const std::string where =
        run->device.empty() ? run->backend : run->backend + ", " + run->device;
    std::printf("run %lld: %s on %s (%s), seed %llu, %s\nsettings %s, budget %s\n",
                static_cast<long long>(run->id), run->algorithm.c_str(), run->operatorName.c_str(),
                where.c_str(), static_cast<unsigned long long>(run->seed),
                std::string(runStatusName(status)).c_str(), run->settingsJson.c_str(),
                run->budgetJson.c_str());
    if (live.orphaned(*run))
      std::printf(
          "(stored as running, but no process is tuning it: the program running it ended "
          "without closing it; every trial below is kept, and it resumes)\n");
    for (const TrialRow& t : trials)
      std::printf("%5d  %-13s %10.4g %s  %s%s%s\n", t.seq,
                  std::string(statusName(t.status)).c_str(), t.speed, run->speedUnit.c_str(),
                  t.config.c_str(), t.message.empty() ? "" : "  # ",
                  t.message.substr(0, 120).c_str());
    std::printf("%zu trials, best %.4g %s\n", trials.size(), bestOf(trials),
                run->speedUnit.c_str());
    if (run->referenceSpeed)
      std::printf("reference (%s): %.4g %s, timed after the trials\n",
                  run->referenceLibrary.c_str(), *run->referenceSpeed, run->speedUnit.c_str());
  });
}

}  // namespace opevo::cli
