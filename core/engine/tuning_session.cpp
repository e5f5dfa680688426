#include "engine/tuning_session.h"

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "store/store.h"

namespace opevo {

std::string Budget::toJson() const {
  nlohmann::json j = nlohmann::json::object();
  if (trials) j["trials"] = *trials;
  if (seconds) j["seconds"] = *seconds;
  if (targetSpeed) j["target"] = *targetSpeed;
  return j.dump();
}

Budget Budget::fromJson(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  Budget b;
  if (!j.is_object()) return b;
  if (j.contains("trials")) b.trials = j["trials"].get<int>();
  if (j.contains("seconds")) b.seconds = j["seconds"].get<double>();
  if (j.contains("target")) b.targetSpeed = j["target"].get<double>();
  return b;
}

TuningSession::TuningSession(const SearchSpace& space, std::unique_ptr<Tuner> tuner,
                             Measurer& measurer, Budget budget, Store* store, std::int64_t runId)
    : m_space(space), m_tuner(std::move(tuner)), m_measurer(measurer), m_budget(budget),
      m_store(store), m_runId(runId) {
  if (!m_budget.trials && !m_budget.seconds && !m_budget.targetSpeed)
    throw InputError("a run needs a budget: a number of trials, a time, or a target speed");
  if (m_budget.trials && *m_budget.trials < 1)
    throw InputError("the trial budget must be at least 1, got " + std::to_string(*m_budget.trials));
  if (m_budget.seconds && !(*m_budget.seconds > 0))
    throw InputError("the time budget must be positive");
}

void TuningSession::restore(const std::vector<std::pair<Config, Measurement>>& trials) {
  std::vector<Observation> observations;
  for (const auto& [config, m] : trials) {
    const double fitness = m.status == TrialStatus::Ok ? m.speed : 0.0;
    observations.push_back({config, fitness});
    if (fitness > m_best) {
      m_best = fitness;
      m_bestConfig = config;
    }
  }
  m_tuner->observe(observations);
  m_done = static_cast<int>(trials.size());
  m_restoredTrials = m_done;
}

bool TuningSession::budgetLeft(std::string& reason) const {
  if (m_stop) {
    reason = "stopped";
    return false;
  }
  if (m_budget.trials && m_done >= *m_budget.trials) {
    reason = "budget";
    return false;
  }
  if (m_budget.targetSpeed && m_best >= *m_budget.targetSpeed) {
    reason = "target";
    return false;
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  if (m_budget.seconds && elapsed >= *m_budget.seconds) {
    reason = "time";
    return false;
  }
  return true;
}

std::string TuningSession::run() {
  m_start = std::chrono::steady_clock::now();
  std::string reason;
  while (budgetLeft(reason)) {
    std::size_t want = m_tuner->preferredBatch();
    if (m_budget.trials) want = std::min<std::size_t>(want, std::size_t(*m_budget.trials - m_done));
    const std::vector<Config> batch = m_tuner->propose(want);
    if (batch.empty()) return "exhausted";
    std::vector<Observation> observations;
    m_measurer.measureEach(batch, [&](std::size_t i, const Measurement& m) {
      const double fitness = m.status == TrialStatus::Ok ? m.speed : 0.0;
      TrialEvent e;
      e.seq = ++m_done;
      e.config = batch[i];
      e.measurement = m;
      e.improved = fitness > m_best;
      if (e.improved) {
        m_best = fitness;
        m_bestConfig = batch[i];
      }
      e.best = m_best;
      e.elapsedSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
      if (m_budget.trials && e.elapsedSeconds > 0 && e.seq > m_restoredTrials)
        e.etaSeconds = e.elapsedSeconds / double(e.seq - m_restoredTrials) * double(*m_budget.trials - e.seq);
      if (m_store) {
        TrialRow row;
        row.runId = m_runId;
        row.seq = e.seq;
        row.config = m_space.format(batch[i]);
        row.status = std::string(statusName(m.status));
        row.message = m.message;
        row.timesMs = m.timesMs;
        row.medianMs = m.medianMs;
        row.speed = m.speed;
        row.compileMs = m.compileMs;
        row.finished = Store::nowUtc();
        m_store->appendTrial(row);  // committed before anyone hears of it
      }
      observations.push_back({batch[i], fitness});
      for (const auto& observer : m_observers) observer(e);
    });
    m_tuner->observe(observations);
  }
  return reason;
}

}  // namespace opevo
