#include "store/history.h"

#include <algorithm>

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
  return m;
}

std::vector<TrialRecord> trialRecords(const RunRecord& run, const std::vector<TrialRow>& rows) {
  std::vector<TrialRecord> out;
  out.reserve(rows.size());
  double best = 0;
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
    out.push_back(std::move(t));
  }
  return out;
}

History loadHistory(const Store& store, const RunRecord& like, std::int64_t excludeRun) {
  History h;
  const std::string key = runOperatorKey(like.operatorJson);
  for (const RunRecord& r : store.runs()) {
    if (r.id == excludeRun || runOperatorKey(r.operatorJson) != key || r.backend != like.backend ||
        r.device != like.device)
      continue;
    // A CPU run's label also says whether its weights were timed cold (a network's tasks):
    // those times are not a warm run's.
    if (like.backend == "cpu" && !like.label.empty() && r.label != like.label) continue;
    for (const TrialRow& t : store.trials(r.id)) {
      const Measurement m = measurementOf(t);
      h.byConfig[t.config] = {m, r.id};
      h.inOrder.emplace_back(t.config, m);
    }
  }
  return h;
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
    const std::string from = "from history: run " + std::to_string(it->second.second);
    m.message = m.message.empty() ? from : from + "; " + m.message;
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
