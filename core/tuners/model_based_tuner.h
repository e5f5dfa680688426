#pragma once

#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "model/cost_model.h"
#include "tuners/tuner.h"

namespace opevo {

// Settings both model-based tuners declare, with each tuner's own defaults.
void declareCostModelSettings(TunerSettings& s, int maxDepth, double eta, int rounds,
                              int objective);
XgbParams costModelParams(const TunerSettings& s, std::uint64_t seed);

// What AutoTVM and the Ansor-style tuner share: observations from earlier runs, a cost model
// retrained from scratch on everything measured, and a plan (model-chosen configurations, best
// first) that proposals are drawn from, each pick replaced by a uniform random new configuration
// with probability `epsilon` so a wrong model cannot confine the search.
class ModelBasedTuner : public Tuner {
 public:
  ModelBasedTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed);

  // Warm start: measurements of the same operator on the same device from earlier runs. The
  // model trains on them, but they are not this run's history and do not stop this run from
  // measuring those configurations again (this run's best curve must come from this run).
  void addPriorObservations(const std::vector<Observation>& prior);
  const std::vector<Observation>& priorObservations() const { return m_prior; }

  // How many times the model was trained (tests and the GUI's status line).
  std::size_t trainings() const { return m_trainings; }

 protected:
  std::vector<Config> doPropose(std::size_t n) final;

  // Called before every pick: the place to make a new plan when the tuner's schedule says so.
  virtual void beforePick() = 0;
  virtual void afterPick() {}

  // Retrains when there is data the model has not seen. False while the data cannot be ranked
  // (fewer than two distinct fitness values): the caller falls back to random picks.
  bool ensureModel();
  // True once, after addPriorObservations, so a tuner can replan on new prior knowledge.
  bool takePriorAdded() { return std::exchange(m_priorAdded, false); }
  void setPlan(std::vector<Config> plan) { m_plan.assign(plan.begin(), plan.end()); }
  CostModel& model() { return m_model; }

  // c with one parameter moved to a random neighbour (a factor parameter moves one prime factor
  // between two positions); only parameters with more than one value are picked.
  Config mutate(const Config& c);
  // A valid configuration (not necessarily new), or nullopt after `tries` rejected draws.
  std::optional<Config> randomValid(int tries) { return m_space.randomValid(m_rng, tries); }

 private:
  std::optional<Config> nextPlanned();

  CostModel m_model;
  std::vector<Observation> m_prior;
  bool m_priorAdded = false;
  std::size_t m_trainedOn = 0;  // prior + history size at the last training
  std::size_t m_trainings = 0;
  std::deque<Config> m_plan;
  std::vector<std::size_t> m_movable;
};

}  // namespace opevo
