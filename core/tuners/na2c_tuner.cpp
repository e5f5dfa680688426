#include "tuners/na2c_tuner.h"

#include <algorithm>
#include <cmath>

#include "space/factor_param.h"
#include "tuners/gbfs_tuner.h"

namespace opevo {

TunerSettings Na2cTuner::defaults() {
  TunerSettings s;
  s.declare("steps", 3, 1, 100, true, "moves per rollout from the best configuration");
  s.declare("epsilon", 0.1, 0, 1, false, "probability of a random move instead of the policy's");
  s.declare("learning_rate", 0.01, 0, 10, false, "step size of the actor-critic updates", true);
  s.declare("gamma", 0.9, 0, 1, false, "discount of the next state's value");
  s.declare("hidden", 32, 1, 4096, true, "units in the network's hidden layer");
  return s;
}

Na2cTuner::Na2cTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed)
    : Tuner(space, std::move(settings), seed),
      m_steps(m_settings.getInt("steps")),
      m_epsilon(m_settings.get("epsilon")),
      m_learningRate(m_settings.get("learning_rate")),
      m_gamma(m_settings.get("gamma")),
      m_hidden(static_cast<std::size_t>(m_settings.getInt("hidden"))) {
  requireFactorSpace(space, "na2c");
  for (std::size_t i = 0; i < space.dims(); ++i) {
    const auto& f = static_cast<const FactorParam&>(space.param(i));
    m_inputs += static_cast<std::size_t>(f.parts());
    for (int from = 0; from < f.parts(); ++from)
      for (int to = 0; to < f.parts(); ++to)
        if (from != to)
          for (const auto& [p, e] : f.primes()) m_actions.push_back({i, from, to, p});
  }
  auto init = [&](std::vector<double>& w, std::size_t n, double scale) {
    w.resize(n);
    for (double& x : w) x = (m_rng.uniform() * 2 - 1) * scale;
  };
  init(m_w1, m_hidden * m_inputs, 1.0 / std::sqrt(double(std::max<std::size_t>(m_inputs, 1))));
  m_b1.assign(m_hidden, 0.0);
  init(m_wp, m_actions.size() * m_hidden, 0.1 / std::sqrt(double(m_hidden)));
  m_bp.assign(m_actions.size(), 0.0);
  init(m_wv, m_hidden, 0.1 / std::sqrt(double(m_hidden)));
}

std::vector<double> Na2cTuner::encode(const Config& c) const {
  std::vector<double> x;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double total = std::log(double(static_cast<const FactorParam&>(m_space.param(i)).product()));
    for (std::int64_t f : c[i]) x.push_back(total > 0 ? std::log(double(f)) / total : 0.0);
  }
  return x;
}

Na2cTuner::Forward Na2cTuner::forward(const Config& c) const {
  Forward f;
  f.input = encode(c);
  f.hidden.resize(m_hidden);
  for (std::size_t h = 0; h < m_hidden; ++h) {
    double z = m_b1[h];
    for (std::size_t k = 0; k < m_inputs; ++k) z += m_w1[h * m_inputs + k] * f.input[k];
    f.hidden[h] = std::tanh(z);
  }
  // Softmax over the actions applicable here; the others get probability 0.
  f.probs.assign(m_actions.size(), 0.0);
  double top = -1e300;
  std::vector<double> logits(m_actions.size(), -1e300);
  for (std::size_t a = 0; a < m_actions.size(); ++a) {
    if (!applicable(c, m_actions[a])) continue;
    double z = m_bp[a];
    for (std::size_t h = 0; h < m_hidden; ++h) z += m_wp[a * m_hidden + h] * f.hidden[h];
    logits[a] = z;
    top = std::max(top, z);
  }
  double sum = 0;
  for (std::size_t a = 0; a < m_actions.size(); ++a)
    if (logits[a] > -1e299) sum += (f.probs[a] = std::exp(logits[a] - top));
  for (double& p : f.probs) p = sum > 0 ? p / sum : 0.0;
  f.value = m_bv;
  for (std::size_t h = 0; h < m_hidden; ++h) f.value += m_wv[h] * f.hidden[h];
  return f;
}

bool Na2cTuner::applicable(const Config& c, const Action& a) const {
  return c[a.param][a.from] % a.prime == 0;
}

std::size_t Na2cTuner::chooseAction(const Config& c) {
  const Forward f = forward(c);
  std::vector<std::size_t> valid;
  for (std::size_t a = 0; a < m_actions.size(); ++a)
    if (f.probs[a] > 0) valid.push_back(a);
  if (valid.empty()) return m_actions.size();
  if (m_rng.chance(m_epsilon)) return valid[m_rng.below(valid.size())];
  double pick = m_rng.uniform();
  for (std::size_t a : valid)
    if ((pick -= f.probs[a]) < 0) return a;
  return valid.back();
}

double Na2cTuner::fitnessOf(const Config& c) const {
  const auto it = m_fitness.find(c);
  return it == m_fitness.end() ? 0.0 : it->second;
}

std::vector<Config> Na2cTuner::doPropose(std::size_t n) {
  std::vector<Config> batch;
  Config start = m_space.first();
  if (!history().empty()) start = history()[ranking().front()].config;
  if (isNew(start)) {
    reserve(start);
    batch.push_back(start);
  }
  int fruitless = 0;
  while (batch.size() < n && fruitless < 50 && !m_actions.empty()) {
    Config state = start;
    bool found = false;
    for (int step = 0; step < m_steps && batch.size() < n; ++step) {
      const std::size_t a = chooseAction(state);
      if (a == m_actions.size()) break;
      Config next = state;
      next[m_actions[a].param][m_actions[a].from] /= m_actions[a].prime;
      next[m_actions[a].param][m_actions[a].to] *= m_actions[a].prime;
      if (isNew(next)) {
        reserve(next);
        batch.push_back(next);
        m_pending.push_back({state, next, a});
        found = true;
      }
      state = std::move(next);
    }
    fruitless = found ? 0 : fruitless + 1;
  }
  // The neighbourhood of the best is used up: jump somewhere new.
  while (batch.size() < n) {
    std::optional<Config> c = randomNew();
    if (!c) break;
    reserve(*c);
    batch.push_back(std::move(*c));
  }
  return batch;
}

void Na2cTuner::doObserve(const std::vector<Observation>& results) {
  for (const Observation& o : results) {
    m_fitness[o.config] = o.fitness;
    m_best = std::max(m_best, o.fitness);
  }
  // Learn from every move whose destination is now measured.
  std::vector<Transition> waiting;
  for (Transition& t : m_pending) {
    if (!m_fitness.count(t.after)) {
      waiting.push_back(std::move(t));
      continue;
    }
    const double scale = m_best > 0 ? m_best : 1.0;
    const double reward = (fitnessOf(t.after) - fitnessOf(t.before)) / scale;
    learn(t, reward, forward(t.after).value);
  }
  m_pending = std::move(waiting);
}

void Na2cTuner::learn(const Transition& t, double reward, double nextValue) {
  const Forward f = forward(t.before);
  const double advantage = reward + m_gamma * nextValue - f.value;
  // Gradients of -log pi(a|s) * A (actor) and A^2 / 2 (critic) through the shared layer.
  std::vector<double> dHidden(m_hidden, 0.0);
  for (std::size_t a = 0; a < m_actions.size(); ++a) {
    if (f.probs[a] == 0 && a != t.action) continue;
    const double dLogit = ((a == t.action ? 1.0 : 0.0) - f.probs[a]) * advantage;
    for (std::size_t h = 0; h < m_hidden; ++h) {
      dHidden[h] += dLogit * m_wp[a * m_hidden + h];
      m_wp[a * m_hidden + h] += m_learningRate * dLogit * f.hidden[h];
    }
    m_bp[a] += m_learningRate * dLogit;
  }
  for (std::size_t h = 0; h < m_hidden; ++h) {
    dHidden[h] += advantage * m_wv[h];
    m_wv[h] += m_learningRate * advantage * f.hidden[h];
  }
  m_bv += m_learningRate * advantage;
  for (std::size_t h = 0; h < m_hidden; ++h) {
    const double dz = dHidden[h] * (1 - f.hidden[h] * f.hidden[h]);
    for (std::size_t k = 0; k < m_inputs; ++k) m_w1[h * m_inputs + k] += m_learningRate * dz * f.input[k];
    m_b1[h] += m_learningRate * dz;
  }
}

}  // namespace opevo
