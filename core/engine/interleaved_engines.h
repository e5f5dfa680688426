#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/rng.h"
#include "engine/engine.h"

namespace opevo {

// Several engines measured on one device in turn: a race across spaces (the loops over plain
// layouts beside ALT's layouts and loops), each space's runs on an engine and measurer of their
// own. An engine interleaves its own runs; this steps the engine whose runs are furthest behind
// in trials, so every run of the race advances together whatever its space, and drift (heat,
// other load) falls on each space alike, as it falls on each algorithm of one engine. The order
// of measurement goes on across the engines, so a trial's order is its place in the whole race.
class InterleavedEngines {
 public:
  // The engines are the caller's; none is stepped yet. The schedule is the race's (the engines'
  // own): under Shuffle the next run is drawn from the seed among every engine's runs furthest
  // behind, so no space is measured first at each trial count.
  explicit InterleavedEngines(std::vector<Engine*> engines,
                              Schedule schedule = Schedule::RoundRobin, std::uint64_t seed = 1);

  // One batch: in turn, of the engine furthest behind (its own schedule picks the run); under
  // Shuffle, of a run drawn among those of every engine. False once every run of every engine
  // has ended. An engine that fails (a store that refuses a trial) stops
  // every engine: their runs end as stopped, resumable, and failure() says why.
  bool step();
  void run();

  // From any thread, to every engine.
  void pause();
  void resume();
  void stop();

  const std::vector<Engine*>& engines() const { return m_engines; }
  // Every engine's runs' progress together: runs, trials and tuning time summed, and the time
  // left the sum of each engine's, as they share the device; -1 when one is unknown.
  EngineProgress progress() const;
  // The first failure of an engine; empty when none failed.
  std::string failure() const;

 private:
  std::vector<Engine*> m_engines;
  Schedule m_schedule;
  Rng m_rng;
  long long m_nextOrder = 1;
  std::size_t m_lastStepped = 0;
  bool m_stepped = false;
};

}  // namespace opevo
