#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace opevo {

struct AlgorithmChoice {
  std::string name;                             // registry name, e.g. "opevo"
  std::map<std::string, std::string> settings;  // only the values that differ from the defaults
};

// N algorithms x R repeats on one engine. Repeat r of every algorithm uses seed + r, so the
// algorithms meet the same luck.
struct RacePlan {
  std::vector<AlgorithmChoice> algorithms;
  int repeats = 1;
  Budget budget;
  std::uint64_t seed = 1;
  std::optional<std::size_t> batch;  // unset: each tuner's own batch
};

// Throws InputError when repeat r's seed, seed + r, would pass the largest seed, 2^64 - 1: it
// would wrap to 0, 1, ..., seeds the first repeats of a race from the default --seed 1 use, so
// runs meant to be independent would repeat others.
void checkRepeatSeeds(std::uint64_t seed, int repeats);
// What seeds a race's repeats took, as compare's and sweep's headers say it: "repeats 1-5: seeds
// 1-5", or "repeat 1: seed 7" for one.
std::string repeatSeedsText(std::uint64_t seed, int repeats);

// Adds the race's runs to the engine, repeat by repeat, so a round-robin schedule alternates the
// algorithms. Throws InputError for no algorithm, repeats below 1, seeds that would wrap
// (checkRepeatSeeds), a bad budget, an unknown algorithm or a bad setting, before anything is
// measured. The runs' algorithm indices start at firstAlgorithmIndex: a race across spaces
// (InterleavedEngines) numbers the same algorithms on the next space's engine after the first's.
void addRace(Engine& engine, const RacePlan& plan, int firstAlgorithmIndex = 0);

// Keeps every trial the engine reports, in measurement order.
class TrialLog final : public EngineObserver {
 public:
  void trialMeasured(const TrialEvent& trial, const EngineProgress&) override {
    m_trials.push_back(trial.record);
  }
  const std::vector<TrialRecord>& trials() const { return m_trials; }

 private:
  std::vector<TrialRecord> m_trials;
};

}  // namespace opevo
