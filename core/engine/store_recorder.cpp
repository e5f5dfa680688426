#include "engine/store_recorder.h"

#include <nlohmann/json.hpp>

#include "store/run_lock.h"
#include "store/store.h"

namespace opevo {

StoreRecorder::StoreRecorder(Store& store, Engine& engine, RunContext context)
    : m_store(store), m_engine(engine), m_context(std::move(context)) {}

StoreRecorder::~StoreRecorder() {
  // A run's end that could not be stored as it ended (another program held the database longer
  // than the store waits for it) is tried once more as its program lets go of it: else the run
  // reads as interrupted by a killed program, with no word of its failure. The runs are still
  // held here (the locks go after this), so no resume has taken one meanwhile.
  if (m_unstoredEnds.empty()) return;
  try {
    m_store.inTransaction([&] {
      for (const RunEnd& e : m_unstoredEnds)
        m_store.setRunStatus(e.storeId, statusAfter(e.reason), e.reason, e.failure);
    });
  } catch (const std::exception&) {
    // Still not: those runs read as interrupted, and resume with every trial they committed.
  }
}

void StoreRecorder::createRuns() {
  int fresh = 0;
  for (const RunState& r : m_engine.runs()) fresh += r.storeId == 0 ? 1 : 0;
  if (fresh > 1 && m_raceId == 0)
    m_raceId = m_store.createRace(m_engine.options().schedule, m_engine.options().scheduleSeed);
  for (const RunState& r : m_engine.runs()) {
    if (r.storeId != 0) continue;
    RunRecord rec;
    rec.operatorName = m_context.operatorName;
    rec.operatorJson = m_context.operatorJson;
    rec.algorithm = r.plan.algorithm;
    nlohmann::json settings = nlohmann::json::object();
    // Integers as integers: `opevo show` printed "lambda":8.0.
    for (const SettingInfo& s : m_engine.tuner(r.index).settings().all())
      settings[s.name] =
          s.integer ? nlohmann::json(static_cast<std::int64_t>(s.value)) : nlohmann::json(s.value);
    rec.settingsJson = settings.dump();
    rec.seed = r.plan.seed;
    rec.backend = m_context.backend;
    rec.device = m_context.device;
    rec.budgetJson = r.plan.budget.toJson();
    rec.speedUnit = m_context.speedUnit;
    rec.label = m_context.label;
    rec.raceId = m_raceId;
    rec.raceAlgorithm = r.plan.algorithmIndex;
    rec.raceRepeat = r.plan.repeat;
    const std::int64_t id = m_store.createRun(rec);
    m_engine.setStoreId(r.index, id);
    m_locks.push_back(std::make_unique<RunLock>(m_store.path(), LockedKind::Run, id));
  }
}

void StoreRecorder::setReference(const std::string& library, double speed) {
  for (const RunState& r : m_engine.runs())
    if (r.storeId) m_store.setRunReference(r.storeId, library, speed);
}

void StoreRecorder::trialMeasured(const TrialEvent& e, const EngineProgress&) {
  if (!e.run->storeId) return;
  const TrialRecord& t = e.record;
  TrialRow row;
  row.runId = e.run->storeId;
  row.seq = t.trial;
  row.order = t.order;
  row.config = t.config;
  row.status = t.measurement.status;
  row.message = t.measurement.message;
  row.timesMs = t.measurement.timesMs;
  row.medianMs = t.measurement.medianMs;
  row.speed = t.measurement.speed;
  row.compileMs = t.measurement.compileMs;
  row.verifyMs = t.measurement.verifyMs;
  row.measureMs = t.measurement.measureMs;
  row.tunerMs = t.tunerSeconds * 1e3;
  row.seconds = t.seconds;
  row.finished = Store::nowUtc();
  row.agent = t.measurement.agent;
  m_store.appendTrial(row);  // committed before anyone later hears of it
}

void StoreRecorder::runEnded(const RunState& run, const EngineProgress&) {
  if (!run.storeId) return;
  try {
    m_store.setRunStatus(run.storeId, statusAfter(run.end), run.end, run.message);
  } catch (const std::exception&) {
    m_unstoredEnds.push_back({run.storeId, run.end, run.message});
    throw;
  }
}

}  // namespace opevo
