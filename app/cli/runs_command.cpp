#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "cli/commands.h"
#include "common/error.h"
#include "common/utf8_text.h"
#include "engine/device_time.h"
#include "engine/speed_unit.h"
#include "io/run_import.h"
#include "layout/tuning_mode.h"
#include "space/text.h"
#include "store/history.h"
#include "store/live_status.h"
#include "store/store.h"

namespace opevo::cli {
namespace {

// A stored text as the terminal (or a JSON document) gets it: a damaged database's bytes that are
// not UTF-8 went to the terminal raw (and made --json throw), now they read \xff.
std::string shown(const std::string& text) {
  return escapeInvalidUtf8(text);
}

// A stored JSON column as JSON; one a damaged byte made unreadable as its escaped text, not the
// "<discarded>" nlohmann prints for it (invalid JSON for every reader of --json).
nlohmann::json storedJson(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  return j.is_discarded() ? nlohmann::json(shown(text)) : j;
}

nlohmann::json runJson(const RunRecord& r, RunStatus status, std::size_t trials,
                       std::optional<double> best) {
  nlohmann::json j{{"id", r.id},
                   {"operator", shown(r.operatorName)},
                   {"algorithm", shown(r.algorithm)},
                   // loop, joint, winograd, matvec, replay or imported (layout::runModeName)
                   {"mode", layout::runModeName(r.operatorJson)},
                   {"settings", storedJson(r.settingsJson)},
                   // null for an imported file that names no seed
                   {"seed", knownSeed(r) ? nlohmann::json(*knownSeed(r)) : nlohmann::json()},
                   {"backend", shown(r.backend)},
                   {"device", shown(r.device)},
                   {"budget", storedJson(r.budgetJson)},
                   {"status", std::string(runStatusName(status))},
                   {"end_reason", std::string(endReasonName(r.endReason))},
                   {"started", shown(r.started)},
                   {"ended", shown(r.ended)},
                   {"speed_unit", shown(r.speedUnit)},
                   {"trials", trials},
                   // null where no trial worked
                   {"best_speed", best ? nlohmann::json(*best) : nlohmann::json(nullptr)}};
  if (r.raceId)
    // Repeats counted from 1, as the window, compare and trials.csv count them.
    // Its schedule, and the seed of a shuffle, which a resume of the race goes on under.
    j["race"] = {{"id", r.raceId},
                 {"algorithm", r.raceAlgorithm},
                 {"repeat", r.raceRepeat + 1},
                 {"schedule", std::string(scheduleNames().name(r.raceSchedule))},
                 {"schedule_seed", r.raceScheduleSeed}};
  if (r.referenceSpeed)
    j["reference"] = {{"library", shown(r.referenceLibrary)}, {"speed", *r.referenceSpeed}};
  if (!r.label.empty()) j["label"] = shown(r.label);
  if (!r.sideBySideJson.empty()) j["side_by_side"] = storedJson(r.sideBySideJson);
  // Why it failed (or what failure stopped it beside another run), as the error said it.
  if (!r.failure.empty()) j["failure"] = shown(r.failure);
  return j;
}

// A trial's message on its line of `show`: its first line, cut at a word to at most `width`
// characters, and marked "…" where anything was left out (it was cut mid-phrase, unmarked: "the
// worker exits to"). `show --json` has it whole.
std::string messageOnOneLine(const std::string& message, std::size_t width = 120) {
  const std::size_t newline = message.find('\n');
  std::string line = message.substr(0, newline);
  bool cut = newline != std::string::npos && newline + 1 < message.size();
  if (line.size() > width) {
    const std::size_t space = line.rfind(' ', width);
    std::size_t at = space != std::string::npos && space > width / 2 ? space : width;
    // Not inside a UTF-8 sequence.
    while (at > 0 && (static_cast<unsigned char>(line[at]) & 0xC0) == 0x80) --at;
    line.resize(at);
    cut = true;
  }
  if (cut) {
    while (!line.empty() && (line.back() == ' ' || line.back() == ',' || line.back() == ';'))
      line.pop_back();
    line += "\u2026";
  }
  return line;
}

// When the reference was timed, as far as the store tells: it keeps the speed, not the moment.
// The window times the library before a race's first trial and again as its runs end well
// (keeping the fastest); `opevo tune` after the trials of a run that finished. So a run that did
// not finish has only a timing from when it began (it said "timed after the trials").
std::string referenceTimedText(RunStatus status) {
  if (status == RunStatus::Finished) return ", timed on the same device beside the run";
  return ", timed when the run began (a run that did not finish is not timed again)";
}

// Who measured a run's trials, for a run measured on a cluster: "measured by: node2 12 trials,
// node1 8, this machine 10" (most first; this machine's are those a resume --here measured),
// so that an odd timing on a line above can be put down to its node. Empty when no agent
// measured any (a local run, or one stored before schema 11).
std::string agentsText(const std::vector<TrialRow>& trials) {
  std::map<std::string, int> counts;
  bool any = false;
  for (const TrialRow& t : trials) {
    ++counts[t.agent];
    any = any || !t.agent.empty();
  }
  if (!any) return "";
  std::vector<std::pair<std::string, int>> byCount(counts.begin(), counts.end());
  std::stable_sort(byCount.begin(), byCount.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text = "measured by: ";
  for (std::size_t i = 0; i < byCount.size(); ++i) {
    const auto& [agent, count] = byCount[i];
    if (i > 0) text += ", ";
    text += (agent.empty() ? std::string("this machine") : shown(agent)) + " " +
            (i == 0 ? counted(count, "trial", "trials") : std::to_string(count));
  }
  return text + "\n";
}

std::optional<double> bestOf(const std::vector<TrialRow>& trials) {
  std::optional<double> best;
  for (const TrialRow& t : trials)
    if (t.status == TrialStatus::Ok && (!best || t.speed > *best)) best = t.speed;
  return best;
}

// `opevo runs delete ID...`: every id checked before any run goes, so a mistyped id among good
// ones deletes nothing (Store::deleteRuns). No --yes: the ids are named on purpose, one by one.
void addRunsDeleteCommand(CLI::App& runs, const std::shared_ptr<std::string>& runsDb) {
  auto db = std::make_shared<std::string>();
  auto ids = std::make_shared<std::vector<std::int64_t>>();
  auto* del = runs.add_subcommand(
      "delete", "Delete stored runs with their trials: every run named, or none of them");
  del->add_option("run", *ids, "Run ids (see opevo runs)")->required();
  del->add_option("--db", *db, "Database file (default: " + Store::defaultPath() + ")");
  del->callback([db, runsDb, ids] {
    // `opevo runs --db F delete 3` names the database before the word delete.
    Store store(existingDatabase(db->empty() ? *runsDb : *db));
    for (const RunAndTrials& r : store.deleteRuns(*ids))
      std::printf("deleted %s\n", describeRun(r).c_str());
  });
}

}  // namespace

namespace {

// Whether a stored budget has a time; a damaged one is shown as it is stored, and has none.
bool hasTimeBudget(const std::string& budgetJson) {
  try {
    return Budget::fromJson(budgetJson).seconds.has_value();
  } catch (const std::exception&) {
    return false;
  }
}

void showRun(std::int64_t id, const std::string& db, bool json) {
  const Store store(existingDatabase(db), Store::Opening::ExistingOnly);
  const auto run = store.run(id);
  if (!run) throw InputError(store.missingRunText(id));
  const auto trials = store.trials(id);
  const LiveStatus live(store);
  const RunStatus status = live.of(*run);
  if (json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const TrialRow& t : trials) {
      rows.push_back({{"seq", t.seq},
                      {"order", t.order},
                      {"config", shown(t.config)},
                      {"status", std::string(statusName(t.status))},
                      {"tuning_seconds", t.seconds},
                      {"message", shown(t.message)},
                      {"speed", t.speed},
                      {"median_ms", t.medianMs},
                      {"times_ms", t.timesMs},
                      {"compile_ms", t.compileMs},
                      {"verify_ms", t.verifyMs},
                      {"measure_ms", t.measureMs},
                      {"tuner_ms", t.tunerMs},
                      {"finished", shown(t.finished)}});
      // The cluster agent that measured it; null where this machine did.
      rows.back()["agent"] = t.agent.empty() ? nlohmann::json() : nlohmann::json(shown(t.agent));
    }
    std::cout << nlohmann::json{{"run", runJson(*run, status, trials.size(), bestOf(trials))},
                                {"trials", rows}}
                     .dump(2)
              << "\n";
    return;
  }
  // An imported file may name no device.
  const std::string where =
      shown(run->device.empty() ? run->backend : run->backend + ", " + run->device);
  const std::string mode = layout::runModeName(run->operatorJson);
  const std::optional<std::uint64_t> seed = knownSeed(*run);
  // A replay's time budget counts device time (budgetClock): its "time" end reads so.
  const BudgetClock clock = budgetClockOf(*run);
  std::printf("run %lld: %s on %s (%s)%s, seed %s, %s\nsettings %s, budget %s%s\n",
              static_cast<long long>(run->id), shown(run->algorithm).c_str(),
              shown(run->operatorName).c_str(), where.c_str(),
              mode.empty() ? "" : (", mode " + mode).c_str(),
              seed ? std::to_string(*seed).c_str() : "- (the file names none)",
              runStatusText(status, run->endReason, clock).c_str(),
              shown(run->settingsJson).c_str(), shown(run->budgetJson).c_str(),
              clock == BudgetClock::Device && hasTimeBudget(run->budgetJson)
                  ? " (seconds of device time by the file)"
                  : "");
  if (!run->failure.empty()) std::printf("failure: %s\n", shown(run->failure).c_str());
  if (live.orphaned(*run))
    std::printf(
        "(stored as running, but no process is tuning it: the program running it ended "
        "without closing it; every trial below is kept, and it resumes)\n");
  // A run measured on a cluster names each trial's agent before its configuration ("-": this
  // machine's, measured by a resume --here).
  int agentWidth = 0;
  for (const TrialRow& t : trials)
    agentWidth = std::max(agentWidth, static_cast<int>(shown(t.agent).size()));
  for (const TrialRow& t : trials) {
    const std::string agent =
        agentWidth == 0 ? "" : (t.agent.empty() ? std::string("-") : shown(t.agent)) + "  ";
    std::printf("%5d  %-13s %10s %s  %-*s%s%s%s\n", t.seq,
                std::string(statusName(t.status)).c_str(), speedNumber(t.speed).c_str(),
                shown(run->speedUnit).c_str(), agentWidth == 0 ? 0 : agentWidth + 2, agent.c_str(),
                shown(t.config).c_str(), t.message.empty() ? "" : "  # ",
                messageOnOneLine(shown(t.message)).c_str());
  }
  std::printf("%s", agentsText(trials).c_str());
  if (const std::optional<double> best = bestOf(trials))
    std::printf("%zu trials, best %s %s\n", trials.size(), speedNumber(*best).c_str(),
                run->speedUnit.c_str());
  else
    std::printf("%zu trials, none of them worked\n", trials.size());
  if (measuredElsewhere(*run)) {
    // compile_ms + measure_ms of each trial: what its trials cost the device that measured the
    // file, as the window charts it, whichever clock its budget counts (a replay stored before
    // budgets counted device time goes on counting tuning time).
    double ms = 0;
    for (const TrialRow& t : trials) ms += deviceMs(measurementOf(t));
    std::printf(
        "device time: %s by the file (what these trials cost the device that measured "
        "it)\n",
        deviceTimeText(ms / 1e3).c_str());
  }
  if (run->referenceSpeed)
    std::printf("reference (%s): %s %s%s\n", shown(run->referenceLibrary).c_str(),
                speedNumber(*run->referenceSpeed).c_str(), run->speedUnit.c_str(),
                referenceTimedText(status).c_str());
  std::printf("%s", sideBySideText(nlohmann::json::parse(run->sideBySideJson, nullptr, false),
                                   run->speedUnit)
                        .c_str());
}

// `opevo show ID`, and `opevo runs show ID` beside `runs delete` (where a user looks first).
void addShowCommand(CLI::App& parent, const std::shared_ptr<std::string>& parentDb) {
  auto db = std::make_shared<std::string>();
  auto id = std::make_shared<std::int64_t>(0);
  auto json = std::make_shared<bool>(false);
  auto* show = parent.add_subcommand("show", "Print one stored run and every trial");
  show->add_option("run", *id, "Run id (see opevo runs)")->required();
  show->add_option("--db", *db, "Database file (default: " + Store::defaultPath() + ")");
  show->add_flag("--json", *json, "Print one JSON object");
  show->callback(
      [db, parentDb, id, json] { showRun(*id, db->empty() && parentDb ? *parentDb : *db, *json); });
}

}  // namespace

std::string sideBySideText(const nlohmann::json& side, const std::string& unit) {
  const auto number = [&](const char* key) {
    return side.contains(key) && side[key].is_number() ? side[key].get<double>() : 0.0;
  };
  if (!side.is_object() || !(number("best_speed") > 0) || !(number("reference_speed") > 0))
    return "";
  const int rounds = static_cast<int>(number("rounds"));
  const int run = static_cast<int>(number("rounds_run")),
            asked = static_cast<int>(number("rounds_asked"));
  const std::string library = side.contains("library") && side["library"].is_string()
                                  ? side["library"].get<std::string>()
                                  : "";
  char line[512];
  std::snprintf(line, sizeof line, "side by side, %s in turn%s: best %s, %s %s %s (%.2fx)\n",
                counted(rounds, "round", "rounds").c_str(),
                run > 0 && run < asked ? (" (stopped after " + std::to_string(run) + " of " +
                                          std::to_string(asked) + ")")
                                             .c_str()
                                       : "",
                speedNumber(number("best_speed")).c_str(), library.c_str(),
                speedNumber(number("reference_speed")).c_str(), unit.c_str(),
                number("best_speed") / number("reference_speed"));
  std::string text = line;
  const int rank = static_cast<int>(number("chosen_rank"));
  if (rank > 1 && side.contains("config") && side["config"].is_string())
    text += "  fastest side by side: the run's number " + std::to_string(rank) + " of " +
            std::to_string(static_cast<int>(number("candidates"))) + ", " +
            side["config"].get<std::string>() + " (what export takes)\n";
  return text;
}

void addRunsCommands(CLI::App& app) {
  auto db = std::make_shared<std::string>();
  auto listJson = std::make_shared<bool>(false);
  auto* runs = app.add_subcommand("runs",
                                  "List the stored tuning runs (runs show ID prints one, runs "
                                  "compare ID... compares some, runs "
                                  "delete ID... deletes some)");
  runs->add_option("--db", *db, "Database file (default: " + Store::defaultPath() + ")");
  runs->add_flag("--json", *listJson, "Print one JSON array (each run as show --json has it)");
  addRunsDeleteCommand(*runs, db);
  addShowCommand(*runs, db);
  addRunsCompareCommand(*runs, db, listJson);
  runs->callback([runs, db, listJson] {
    // `runs delete`, `runs show` and `runs compare` list nothing.
    if (runs->got_subcommand("delete") || runs->got_subcommand("show") ||
        runs->got_subcommand("compare"))
      return;
    const Store store(existingDatabase(*db), Store::Opening::ExistingOnly);
    std::vector<RunRecord> all = store.runs();
    const LiveStatus live(store);
    // Counted in the database: a listing does not read every trial of every run.
    const std::map<std::int64_t, RunTally> tallies = store.runTallies();
    if (*listJson) {
      nlohmann::json out = nlohmann::json::array();
      for (const RunRecord& r : all) {
        const auto t = tallies.find(r.id);
        out.push_back(runJson(r, live.of(r), t == tallies.end() ? 0 : t->second.trials,
                              t == tallies.end() ? std::nullopt : t->second.best));
      }
      std::cout << out.dump(2) << "\n";
      return;
    }
    // Each column as wide as its longest entry; names up to 40 (cut to 12, resnet18_conv2..5 all
    // read resnet18_con). The best with its unit: runs of several backends and imported files
    // measure in GFLOP/s, TFLOPS and 1/ms.
    int width = 8, algorithm = 9, modeWidth = 4, backend = 7, status = 6, bestWidth = 4;
    std::vector<std::string> statuses, bests, modes;
    for (RunRecord& r : all) {
      for (std::string* text :
           {&r.operatorName, &r.algorithm, &r.backend, &r.speedUnit, &r.started})
        *text = shown(*text);
      width = std::max(width, std::min(40, static_cast<int>(r.operatorName.size())));
      algorithm = std::max(algorithm, static_cast<int>(r.algorithm.size()));
      // Loop and joint runs of one operator read alike but for their speed without it.
      modes.push_back(layout::runModeName(r.operatorJson));
      if (modes.back().empty()) modes.back() = "-";
      modeWidth = std::max(modeWidth, static_cast<int>(modes.back().size()));
      backend = std::max(backend, static_cast<int>(r.backend.size()));
      const auto tally = tallies.find(r.id);
      statuses.push_back(runStatusText(live.of(r), r.endReason, budgetClockOf(r),
                                       tally == tallies.end() ? 0 : tally->second.trials));
      status = std::max(status, static_cast<int>(statuses.back().size()));
      // No working trial: no best (a 0 would read as a measured speed).
      std::string best = "-";
      if (const auto t = tallies.find(r.id); t != tallies.end() && t->second.best) {
        best = speedNumber(*t->second.best) + (r.speedUnit.empty() ? "" : " " + r.speedUnit);
      }
      bests.push_back(best);
      bestWidth = std::max(bestWidth, static_cast<int>(best.size()));
    }
    // A database of kernel searches only listed an empty header: they are `kas searches`'.
    if (all.empty()) {
      const std::size_t searches = store.kasSearches().size();
      if (searches > 0) {
        std::printf(
            "no tuning runs; the database holds %s (see opevo kas searches)\n",
            counted(static_cast<long long>(searches), "kernel search", "kernel searches").c_str());
        return;
      }
    }
    std::printf("%5s  %-*s %-*s %-*s %-*s %-*s %7s  %-*s  %s\n", "run", width, "operator",
                algorithm, "algorithm", modeWidth, "mode", backend, "backend", status, "status",
                "trials", bestWidth, "best", "started");
    for (std::size_t i = 0; i < all.size(); ++i) {
      const RunRecord& r = all[i];
      const auto t = tallies.find(r.id);
      // Why it failed, cut to a glance after the row (opevo show N has it whole).
      const std::string failure =
          r.failure.empty() ? "" : "  # " + messageOnOneLine(shown(r.failure), 60);
      std::printf("%5lld  %-*s %-*s %-*s %-*s %-*s %7d  %-*s  %s%s\n", static_cast<long long>(r.id),
                  width, r.operatorName.substr(0, width).c_str(), algorithm, r.algorithm.c_str(),
                  modeWidth, modes[i].c_str(), backend, r.backend.c_str(), status,
                  statuses[i].c_str(), t == tallies.end() ? 0 : t->second.trials, bestWidth,
                  bests[i].c_str(), r.started.c_str(), failure.c_str());
    }
  });

  addShowCommand(app, nullptr);
}

}  // namespace opevo::cli
