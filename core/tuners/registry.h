#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tuners/tuner.h"

namespace opevo {

struct TunerInfo {
  std::string name;         // as typed on the command line, e.g. "opevo"
  std::string description;  // one line
  // The settings with their defaults (for listing, and to start from).
  std::function<TunerSettings()> defaults;
  std::function<std::unique_ptr<Tuner>(const SearchSpace&, TunerSettings, std::uint64_t seed)> make;
  // The algorithm `opevo tune`, `opevo compare` and the window use when none is named; exactly
  // one in the registry.
  bool isDefault = false;
  // It tunes factor parameters only (G-BFS and N-A2C move prime factors).
  bool factorsOnly = false;
};

class TunerRegistry {
 public:
  void add(TunerInfo info) { m_tuners.push_back(std::move(info)); }
  const std::vector<TunerInfo>& all() const { return m_tuners; }
  const TunerInfo* find(const std::string& name) const;
  const TunerInfo& defaultTuner() const;

 private:
  std::vector<TunerInfo> m_tuners;
};

// Every algorithm the product offers.
const TunerRegistry& tunerRegistry();

// A setting as named on a command line that tunes one algorithm: "q" or, as `opevo tuners`
// lists it, "opevo.q" (the algorithm's own prefix is dropped). Throws InputError for another
// algorithm's prefix ("autotvm.batch" when tuning opevo); other names ("joint.share") are kept.
std::string settingOf(const std::string& name, const std::string& algorithm);

// Throws InputError for an unknown algorithm (listing the known ones) or a bad setting.
std::unique_ptr<Tuner> makeTuner(const std::string& algorithm, const SearchSpace& space,
                                 std::uint64_t seed,
                                 const std::map<std::string, std::string>& settings = {});

// The model-based tuners (AutoTVM, Ansor-style) register themselves here; model_tuners.cpp.
void registerModelTuners(TunerRegistry& registry);
// The model-free tuners (OpEvo, random, exhaustive, SA, GA, G-BFS, N-A2C); model_free_tuners.cpp.
void registerModelFreeTuners(TunerRegistry& registry);

}  // namespace opevo
