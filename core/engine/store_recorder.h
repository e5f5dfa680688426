#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace opevo {

class RunLock;
class Store;

// What every run of one engine shares in the store: the operator, what measures it and on what.
struct RunContext {
  std::string operatorName;
  std::string operatorJson;  // rebuilds the space on resume
  std::string backend;
  std::string device;
  std::string speedUnit;
  std::string label;
};

// The store as an engine observer, for every front end alike: a row per run (and a race when the
// engine has several runs), each trial committed before any later observer hears of it, and each
// run's status, end reason and failure (RunState::message) when it ends. A failed commit (disk
// full, read-only file) throws, which ends the engine cleanly with every committed trial kept and
// the runs resumable; a run's end that could not be stored is tried again when the recorder goes.
class StoreRecorder final : public EngineObserver {
 public:
  StoreRecorder(Store& store, Engine& engine, RunContext context);
  ~StoreRecorder() override;

  // Stores the runs added to the engine that have no row yet (call after addRun, before the
  // first step), and holds them for this process while the recorder lives (RunLock). Several
  // new runs form a race.
  void createRuns();
  // The reference library's speed, on every run of the engine.
  void setReference(const std::string& library, double speed);
  std::int64_t raceId() const { return m_raceId; }
  // Before createRuns: the engine's new runs join this race (Store::createRace), however few: a
  // race across spaces has an engine per space, and each space's runs are of the one race.
  void joinRace(std::int64_t raceId) { m_raceId = raceId; }

  void trialMeasured(const TrialEvent& trial, const EngineProgress& progress) override;
  void runEnded(const RunState& run, const EngineProgress& progress) override;

 private:
  Store& m_store;
  Engine& m_engine;
  RunContext m_context;
  std::int64_t m_raceId = 0;
  struct RunEnd {
    std::int64_t storeId;
    EndReason reason;
    std::string failure;
  };
  std::vector<RunEnd> m_unstoredEnds;
  std::vector<std::unique_ptr<RunLock>> m_locks;
};

}  // namespace opevo
