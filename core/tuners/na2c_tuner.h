#pragma once

#include <unordered_map>

#include "tuners/tuner.h"

namespace opevo {

// N-A2C (Zhang et al. 2019), for spaces of factor parameters only. The state is every factor
// as log(factor)/log(C); an action moves one prime from one position to another in one
// parameter. From the best configuration so far, short rollouts pick actions from a small
// actor-critic network (epsilon-greedy); the reward of a move is the change in measured
// fitness relative to the best, and the network learns from it by advantage actor-critic.
class Na2cTuner final : public Tuner {
 public:
  static TunerSettings defaults();
  Na2cTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed);
  std::string name() const override { return "na2c"; }

 protected:
  std::vector<Config> doPropose(std::size_t n) override;
  void doObserve(const std::vector<Observation>& results) override;

 private:
  struct Action {
    std::size_t param;
    int from, to;
    std::int64_t prime;
  };
  struct Transition {
    Config before, after;
    std::size_t action;
  };
  struct Forward {
    std::vector<double> input, hidden, probs;
    double value = 0;
  };

  std::vector<double> encode(const Config& c) const;
  Forward forward(const Config& c) const;
  bool applicable(const Config& c, const Action& a) const;
  std::size_t chooseAction(const Config& c);
  void learn(const Transition& t, double reward, double nextValue);
  double fitnessOf(const Config& c) const;

  std::vector<Action> m_actions;
  int m_steps;
  double m_epsilon, m_learningRate, m_gamma;
  std::size_t m_inputs = 0, m_hidden = 0;
  // One hidden tanh layer shared by the policy (softmax over actions) and the value heads.
  std::vector<double> m_w1, m_b1, m_wp, m_bp, m_wv;
  double m_bv = 0;
  std::vector<Transition> m_pending;
  std::unordered_map<Config, double, ConfigHash> m_fitness;
  double m_best = 0;
};

}  // namespace opevo
