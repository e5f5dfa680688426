#include "store/history.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_set>

#include "common/utf8_text.h"
#include "engine/trial_failures.h"
#include "layout/tuning_mode.h"
#include "space/text.h"
#include "store/run_operator.h"

namespace opevo {

Measurement measurementOf(const TrialRow& t) {
  Measurement m;
  m.status = t.status;
  m.speed = t.speed;
  m.medianMs = t.medianMs;
  m.timesMs = t.timesMs;
  m.compileMs = t.compileMs;
  m.verifyMs = t.verifyMs;
  m.measureMs = t.measureMs;
  m.message = t.message;
  m.agent = t.agent;
  // Read back as the engine saw it: a reused trial took nothing of the device (device_time.h),
  // though it keeps the build time of the run that measured it. A resumed run's device clock, and
  // the device_seconds of its trials.csv, once charged it that build again.
  m.reused = reusedFromHistory(t.message);
  return m;
}

std::vector<TrialRecord> trialRecords(const RunRecord& run, const std::vector<TrialRow>& rows) {
  std::vector<TrialRecord> out;
  out.reserve(rows.size());
  double best = 0;
  const std::string space = layout::runModeName(run.operatorJson);
  for (const TrialRow& row : rows) {
    TrialRecord t;
    t.order = row.order;
    t.run = run.id;
    t.algorithm = run.algorithm;
    t.repeat = run.raceRepeat;
    t.seed = run.seed;
    t.trial = row.seq;
    t.config = row.config;
    t.measurement = measurementOf(row);
    if (t.measurement.status == TrialStatus::Ok) best = std::max(best, t.measurement.speed);
    t.bestSoFar = best;
    t.seconds = row.seconds;
    t.tunerSeconds = row.tunerMs / 1e3;
    t.space = space;
    out.push_back(std::move(t));
  }
  return out;
}

namespace {

constexpr std::string_view kFromHistory = "from history: run ";

// The unreadable trials of one run, said on one line: "skipped 3 unreadable trials of run 1 in
// runs.db (column config of trials 2, 5, 9; trial 2: vertex '\xff,2,32,4' of tile_n is ...)".
std::string unreadableLine(const std::string& database, std::int64_t run,
                           const std::vector<int>& trials, const std::string& firstError) {
  std::string seqs;
  const std::size_t shown = std::min<std::size_t>(trials.size(), 5);
  for (std::size_t i = 0; i < shown; ++i) seqs += (i ? ", " : "") + std::to_string(trials[i]);
  if (trials.size() > shown) seqs += ", ...";
  const std::string why = escapeInvalidUtf8(firstError);
  return "skipped " +
         counted(static_cast<long long>(trials.size()), "unreadable trial", "unreadable trials") +
         " of run " + std::to_string(run) + (database.empty() ? "" : " in " + database) +
         " (column config of " +
         (trials.size() == 1
              ? "trial " + seqs + ": " + why
              : "trials " + seqs + "; trial " + std::to_string(trials.front()) + ": " + why) +
         ")";
}

}  // namespace

namespace {

bool sameDevice(const RunRecord& like, const RunRecord& other) {
  if (like.backend != other.backend || like.device != other.device) return false;
  // A CPU run's label also says whether its weights were timed cold (a network's tasks): those
  // times are not a warm run's.
  return like.backend != "cpu" || like.label.empty() || other.label == like.label;
}

}  // namespace

bool sameMeasurement(const RunRecord& like, const RunRecord& other) {
  return sameDevice(like, other) &&
         runOperatorKey(like.operatorJson) == runOperatorKey(other.operatorJson);
}

bool sameProblem(const RunRecord& like, const RunRecord& other) {
  return sameDevice(like, other) &&
         runProblemKey(like.operatorJson) == runProblemKey(other.operatorJson);
}

History loadHistory(const Store& store, const RunRecord& like, std::int64_t excludeRun,
                    const HistoryOptions& options) {
  std::vector<std::int64_t> runs;
  for (const RunRecord& r : store.runs())
    if (r.id != excludeRun && sameMeasurement(like, r)) runs.push_back(r.id);
  // Read newest first, so that a limited history stops reading once it has enough.
  History h;
  std::vector<std::vector<HistoryTrial>> newestFirst;
  std::unordered_set<std::string> configs;
  for (auto run = runs.rbegin(); run != runs.rend(); ++run) {
    if (options.latestConfigs > 0 && configs.size() >= options.latestConfigs) break;
    std::vector<HistoryTrial>& trials = newestFirst.emplace_back();
    for (const TrialRow& t : store.trials(*run)) {
      if (environmentalFailure(t.status, t.message, options.timeLimitSeconds)) {
        ++h.environmental;
        continue;
      }
      if (options.latestConfigs > 0) configs.insert(t.config);
      trials.push_back({t.config, measurementOf(t), *run, t.seq});
    }
  }
  for (auto run = newestFirst.rbegin(); run != newestFirst.rend(); ++run)
    for (HistoryTrial& t : *run) {
      h.byConfig[t.config] = {t.measurement, t.run};
      h.inOrder.push_back(std::move(t));
    }
  return h;
}

WarmStart warmStartFrom(const History& history, const SearchSpace& space,
                        const std::string& database, std::size_t limit) {
  WarmStart out;
  std::unordered_set<std::string_view> seen;
  // Unreadable trials by run, in the order met (newest run first).
  std::vector<std::pair<std::int64_t, std::vector<int>>> unreadable;
  std::map<std::int64_t, std::string> firstError;  // the error of each run's first one
  for (auto it = history.inOrder.rbegin();
       it != history.inOrder.rend() && out.observations.size() < limit; ++it) {
    if (!seen.insert(it->config).second) continue;
    // Read here, not on loading: only the configurations learnt from cost their parsing, and a
    // damaged one costs its trial, not the run (it stopped every tune of the operator).
    Config config;
    try {
      config = space.parse(it->config);
    } catch (const std::exception& e) {
      if (unreadable.empty() || unreadable.back().first != it->run)
        unreadable.push_back({it->run, {}});
      unreadable.back().second.push_back(it->seq);
      firstError[it->run] = e.what();  // newest first: the run's lowest trial number wins
      continue;
    }
    const Measurement& m = it->measurement;
    out.observations.push_back({std::move(config), m.status == TrialStatus::Ok ? m.speed : 0.0});
  }
  std::reverse(out.observations.begin(), out.observations.end());
  for (auto& [run, seqs] : unreadable) {
    std::sort(seqs.begin(), seqs.end());
    out.unreadable.push_back(unreadableLine(database, run, seqs, firstError[run]));
  }
  return out;
}

bool reusedFromHistory(const std::string& message) {
  return std::string_view(message).substr(0, kFromHistory.size()) == kFromHistory;
}

std::string reusedMessage(const std::string& message, std::int64_t run) {
  // Each reuse used to put its note before the last one's: "from history: run 97; from history:
  // run 96; ..." grew with every run (458 characters after a hundred).
  std::string_view rest = message;
  std::string first = std::to_string(run);
  while (rest.substr(0, kFromHistory.size()) == kFromHistory) {
    rest.remove_prefix(kFromHistory.size());
    const std::size_t end = rest.find("; ");
    first = std::string(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 2);
  }
  const std::string note = std::string(kFromHistory) + first;
  return rest.empty() ? note : note + "; " + std::string(rest);
}

HistoryMeasurer::HistoryMeasurer(Measurer& inner, const SearchSpace& space, History history)
    : m_inner(inner), m_space(space), m_history(std::move(history)) {
  // Lookups go by the text the space writes, which names every parameter: an older trial's text
  // lacks the newer ones. Each stored text is read once here, and one the space cannot read (from
  // another space, or damaged) is left as it is: it is never asked for.
  std::vector<std::pair<std::string, std::pair<Measurement, std::int64_t>>> renamed;
  for (const auto& [text, answer] : m_history.byConfig) {
    try {
      std::string now = m_space.format(m_space.parse(text));
      if (now != text) renamed.emplace_back(std::move(now), answer);
    } catch (const std::exception&) {
    }
  }
  // Where the full text has a trial too, the same configuration was measured twice: the later
  // run's answer is kept, as loadHistory keeps it for one text.
  for (auto& [text, answer] : renamed) {
    const auto [at, added] = m_history.byConfig.try_emplace(text, answer);
    if (!added && answer.second > at->second.second) at->second = std::move(answer);
  }
}

void HistoryMeasurer::measureEach(const std::vector<Config>& configs, const TrialCallback& done) {
  std::vector<Config> missing;
  std::vector<std::size_t> missingIndex;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const auto it = m_history.byConfig.find(m_space.format(configs[i]));
    if (it == m_history.byConfig.end()) {
      missing.push_back(configs[i]);
      missingIndex.push_back(i);
      continue;
    }
    Measurement m = it->second.first;
    // Nothing was verified or measured for this run: the old run's times are its own.
    m.verifyMs = 0;
    m.measureMs = 0;
    m.message = reusedMessage(m.message, it->second.second);
    m.reused = true;
    ++m_reused;
    done(i, m);
  }
  if (!missing.empty())
    m_inner.measureEach(missing,
                        [&](std::size_t j, const Measurement& m) { done(missingIndex[j], m); });
}

std::vector<Measurement> HistoryMeasurer::measure(const std::vector<Config>& configs) {
  return collectEach(configs);
}

}  // namespace opevo
