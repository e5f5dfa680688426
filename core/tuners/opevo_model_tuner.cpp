#include "tuners/opevo_model_tuner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "space/qwalk.h"

namespace opevo {

TunerSettings OpEvoModelTuner::defaultSettings() {
  TunerSettings s;
  s.declare("batch", 8, 1, 1e6, true, "configurations measured between two rankings");
  s.declare("lambda", 16, 1, 1e6, true, "parents: the top-lambda configurations measured so far");
  s.declare("q", 0.5, 0, 1, false, "mutation rate: probability of another random-walk step", true,
            true);
  s.declare("q_stalled", 0.8, 0, 1, false,
            "q once the best has not improved for `patience` trials (longer walks)", true, true);
  s.declare("patience", 48, 1, 1e6, true, "trials without a better configuration before q rises");
  s.declare("candidates", 512, 1, 1e6, true, "children the model ranks for each batch");
  s.declare("random_share", 1, 0, 100, false,
            "uniformly random candidates, as a multiple of `candidates`");
  s.declare("explore_share", 0.375, 0, 1, false,
            "share of each batch taken from the random candidates (the model's best guesses "
            "away from the parents)");
  s.declare("crossover", 0.5, 0, 1, false,
            "probability that a child takes each parameter from one of two parents");
  s.declare("spread", 16, 1, 1e6, true,
            "random candidates per pick of the first batch (farthest-point spread)");
  s.declare("min_distance", 2, 1, 1000, true,
            "parameters in which two guesses away from the parents differ, where candidates allow");
  s.declare("climb", 1, 0, 1e6, true,
            "picks of each batch among the unmeasured one-step neighbours of the best "
            "configuration (the next best once all of them are measured), ranked by the model");
  s.declare("far_from_best", 3, 0, 1000, true,
            "parameters in which a guess away from the parents must differ from the best "
            "configuration, so it explores another basin (0: no such rule)");
  s.declare("epsilon", 0.05, 0, 1, false, "probability that a pick is uniformly random");
  s.declare("models", 1, 1, 64, true,
            "models ranking the candidates: more than one adds models trained on bootstrap "
            "resamples, and candidates where they disagree score higher");
  s.declare("kappa", 1, 0, 100, false, "weight of the models' disagreement in a score");
  s.declare("label_power", 2, 0.1, 16, false,
            "the model learns (fitness / best)^label_power: above 1 its fit goes to the top "
            "configurations");
  s.declare("stall_spread", 0, 0, 1e6, true,
            "once stalled (`patience`), guesses away from the parents are farthest-point picks "
            "from everything measured among the model's top `stall_spread` random candidates "
            "(0: the model's best guesses, as before the stall)");
  s.declare("basin_pool", 0, 0, 1e6, true,
            "configurations measured, best first, searched for other basins' leaders (0: the "
            "parents)");
  s.declare("climb_reach", 1, 0, 1, true,
            "0: climbing steps to the neighbours of a value; 1: to any value of one discrete "
            "parameter (the others keep their neighbours)");
  s.declare("early_batch", 0, 0, 1e6, true,
            "batch size while fewer than `early_trials` trials are measured, after the first "
            "batch (0: `batch` throughout)");
  s.declare("early_trials", 48, 0, 1e6, true, "trials measured in batches of `early_batch`");
  s.declare("basin_climb", 0, 0, 1e6, true,
            "extra climbing picks among the unmeasured neighbours of the leaders of other basins "
            "(the best configurations that differ from every better leader in `far_from_best` "
            "parameters)");
  s.declare("pair_climb", 1, 0, 2, true,
            "0: climbing moves one parameter; 1: once every one-step neighbour of the best "
            "configuration is measured, climbing ranks its two-parameter moves before turning to "
            "the next best; 2: climbing always ranks one- and two-parameter moves together");
  s.declare("unsettle", 1, 0, 1e6, true,
            "guesses away from the parents that reopen a settled parameter: one on which all "
            "parents agree (a different one each batch, in turn) takes another value, the rest "
            "as the model likes best among the candidates (0: none)");
  s.declare("flag_climb", 1, 0, 1e6, true,
            "picks of each batch climbing on the other side of a flag: the best configuration "
            "measured with the other value of a two-valued parameter, its unmeasured one-step "
            "neighbours (the flag kept) ranked by the model; the flags take turns");
  declareCostModelSettings(s, 4, 0.3, 64, 0);
  return s;
}

OpEvoModelTuner::OpEvoModelTuner(const SearchSpace& space, TunerSettings settings,
                                 std::uint64_t seed)
    : ModelBasedTuner(space, std::move(settings), seed),
      m_batch(static_cast<std::size_t>(m_settings.getInt("batch"))),
      m_earlyBatch(static_cast<std::size_t>(m_settings.getInt("early_batch"))),
      m_earlyTrials(static_cast<std::size_t>(m_settings.getInt("early_trials"))),
      m_seed(seed) {
  model().setLabelPower(m_settings.get("label_power"));
}

std::size_t OpEvoModelTuner::preferredBatch() const {
  // The first batch (a spread over the space) keeps its full size.
  if (m_earlyBatch > 0 && !history().empty() && history().size() < m_earlyTrials)
    return m_earlyBatch;
  return m_batch;
}

void OpEvoModelTuner::trainEnsemble() {
  const auto extra = static_cast<std::size_t>(m_settings.getInt("models") - 1);
  std::vector<Observation> all = priorObservations();
  all.insert(all.end(), history().begin(), history().end());
  for (std::size_t k = 0; k < extra; ++k) {
    if (m_ensemble.size() <= k)
      m_ensemble.push_back(std::make_unique<CostModel>(
          m_space, costModelParams(m_settings, m_seed + 7919 * (k + 1))));
    m_ensemble[k]->setLabelPower(m_settings.get("label_power"));
    std::vector<Observation> resample;
    resample.reserve(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) resample.push_back(all[m_rng.below(all.size())]);
    // A resample with one fitness value cannot be ranked: that member sits this batch out.
    if (!m_ensemble[k]->train(resample, {})) m_ensemble[k].reset();
  }
}

double OpEvoModelTuner::currentQ() {
  for (std::size_t i = m_bestAt; i < history().size(); ++i)
    if (history()[i].fitness > m_best) {
      m_best = history()[i].fitness;
      m_bestAt = i + 1;
    }
  m_stalled =
      history().size() - m_bestAt >= static_cast<std::size_t>(m_settings.getInt("patience"));
  return m_settings.get(m_stalled ? "q_stalled" : "q");
}

void OpEvoModelTuner::beforePick() {
  if (history().size() == m_plannedAt) return;
  m_plannedAt = history().size();
  if (ensureModel()) {
    trainEnsemble();
    setPlan(screened(preferredBatch()));
  } else if (history().empty() && priorObservations().empty()) {
    setPlan(spreadOut(m_batch));
  } else {
    // Nothing to rank yet (one speed, or all equal): OpEvo's own children of what was measured,
    // unranked. A search that starts from one known point (the joint stage's start layout) then
    // explores around it instead of drawing uniformly; with no valid point, picks stay random.
    const std::vector<const Config*> parents = parentsOf(validBestFirst());
    std::vector<Config> plan;
    const double q = currentQ();
    for (std::size_t i = 0; i < preferredBatch() && !parents.empty(); ++i)
      if (std::optional<Config> c = child(parents, q);
          c && std::find(plan.begin(), plan.end(), *c) == plan.end())
        plan.push_back(std::move(*c));
    setPlan(std::move(plan));
  }
}

// Farthest-point picks among random valid candidates, distance measured on each parameter's
// position in its value list (scaled to [0, 1]): a first batch that covers the space.
std::vector<Config> OpEvoModelTuner::spreadOut(std::size_t n) {
  const std::size_t pool = n * static_cast<std::size_t>(m_settings.getInt("spread"));
  std::vector<std::vector<double>> points;
  std::vector<Config> configs;
  for (std::size_t i = 0; i < pool; ++i) {
    std::optional<Config> c = randomNew(Draw::Look);
    if (!c) break;
    std::vector<double> p;
    for (double f : m_space.features(*c)) p.push_back(f);
    points.push_back(std::move(p));
    configs.push_back(std::move(*c));
  }
  if (configs.empty()) return {};
  // Features on one scale: each divided by its range over the pool.
  const std::size_t dims = points.front().size();
  for (std::size_t d = 0; d < dims; ++d) {
    double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
    for (const auto& p : points) lo = std::min(lo, p[d]), hi = std::max(hi, p[d]);
    for (auto& p : points) p[d] = hi > lo ? (p[d] - lo) / (hi - lo) : 0;
  }
  std::vector<double> nearest(configs.size(), std::numeric_limits<double>::max());
  std::vector<Config> chosen;
  std::size_t next = 0;  // the first random candidate starts the spread
  while (chosen.size() < n && chosen.size() < configs.size()) {
    chosen.push_back(configs[next]);
    nearest[next] = -1;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      if (nearest[i] < 0) continue;
      double d = 0;
      for (std::size_t k = 0; k < dims; ++k) d += std::abs(points[i][k] - points[next][k]);
      nearest[i] = std::min(nearest[i], d);
    }
    next = static_cast<std::size_t>(std::max_element(nearest.begin(), nearest.end()) -
                                    nearest.begin());
    if (nearest[next] < 0) break;
  }
  return chosen;
}

std::optional<Config> OpEvoModelTuner::child(const std::vector<const Config*>& parents, double q) {
  // Parents by rank: the best twice as likely as the median, as fitness-proportional selection
  // is on data where the top speeds are close.
  auto pick = [&] {
    const std::size_t a = m_rng.below(parents.size()), b = m_rng.below(parents.size());
    return *parents[std::min(a, b)];
  };
  const Config first = pick();
  const bool cross = m_rng.chance(m_settings.get("crossover"));
  const Config second = cross ? pick() : first;
  for (int attempt = 0; attempt < 8; ++attempt) {
    Config c(m_space.dims());
    for (std::size_t i = 0; i < c.size(); ++i) {
      const Vertex& from = m_rng.chance(0.5) ? first[i] : second[i];
      c[i] = qWalk(m_space.param(i), from, q, m_rng);
    }
    if (isNew(c)) return c;
  }
  return std::nullopt;
}

// The valid configurations of this run and of earlier runs (a warm start), best first; ties keep
// this run's first.
std::vector<const Observation*> OpEvoModelTuner::validBestFirst() const {
  std::vector<const Observation*> known;
  for (const Observation& o : history())
    if (o.fitness > 0) known.push_back(&o);
  for (const Observation& o : priorObservations())
    if (o.fitness > 0) known.push_back(&o);
  std::stable_sort(known.begin(), known.end(), [](const Observation* a, const Observation* b) {
    return a->fitness > b->fitness;
  });
  return known;
}

// Parents: the top-lambda of `known` (best first).
std::vector<const Config*> OpEvoModelTuner::parentsOf(
    const std::vector<const Observation*>& known) const {
  std::vector<const Config*> parents;
  for (const Observation* o : known) {
    if (static_cast<int>(parents.size()) == m_settings.getInt("lambda")) break;
    parents.push_back(&o->config);
  }
  return parents;
}

std::vector<Config> OpEvoModelTuner::screened(std::size_t n) {
  const std::vector<const Observation*> known = validBestFirst();
  const std::vector<const Config*> parents = parentsOf(known);
  const double q = currentQ();
  const auto children =
      parents.empty() ? 0 : static_cast<std::size_t>(m_settings.getInt("candidates"));
  const auto randoms = static_cast<std::size_t>(std::llround(
      static_cast<double>(m_settings.getInt("candidates")) * m_settings.get("random_share")));
  std::unordered_set<Config, ConfigHash> seen;
  std::vector<Config> near, far;
  auto add = [&](std::vector<Config>& to, std::optional<Config> c) {
    if (c && seen.insert(*c).second) to.push_back(std::move(*c));
  };
  for (std::size_t i = 0; i < children; ++i) add(near, child(parents, q));
  for (std::size_t i = 0; i < randoms; ++i) add(far, randomNew(Draw::Look));
  const auto away = static_cast<std::size_t>(m_settings.getInt("far_from_best"));
  if (away > 0 && !parents.empty()) {
    const Config& best = *parents.front();
    std::erase_if(far, [&](const Config& c) {
      std::size_t d = 0;
      for (std::size_t i = 0; i < c.size(); ++i) d += c[i] != best[i] ? 1 : 0;
      return d < away;
    });
  }
  // Most of the batch exploits the parents' neighbourhoods; the rest is the model's best guess
  // anywhere in the space, so a basin the parents do not reach still gets measured.
  // A warm start's first batch begins where the earlier runs ended: it refines their best.
  const bool warmStart = history().empty() && !near.empty();
  // A batch smaller than `batch` (early_batch) keeps the shares, rounding the guesses down.
  const double scale = static_cast<double>(n) / static_cast<double>(m_batch);
  const auto farPicks =
      near.empty() ? n
      : warmStart  ? 0
                   : std::min(n, static_cast<std::size_t>(std::llround(
                                     static_cast<double>(n) * m_settings.get("explore_share") -
                                     (n < m_batch ? 1e-9 : 0))));
  const auto climbPicks = static_cast<std::size_t>(
      std::llround(static_cast<double>(m_settings.getInt("climb")) * std::min(1.0, scale)));
  // Guesses far from the parents are spread out (a wrong one costs one trial, not a batch);
  // children may be one step apart, which is how the last few percent are found.
  const auto spread = static_cast<std::size_t>(m_settings.getInt("min_distance"));
  const auto stallSpread = static_cast<std::size_t>(m_settings.getInt("stall_spread"));
  std::vector<Config> plan = m_stalled && stallSpread > 0 && !near.empty()
                                 ? farthestFromMeasured(far, farPicks, stallSpread)
                                 : bestPredicted(far, farPicks, spread);
  const auto unsettlePicks =
      near.empty() ? 0
                   : std::min<std::size_t>(farPicks,
                                           static_cast<std::size_t>(m_settings.getInt("unsettle")));
  if (unsettlePicks > 0) {
    // Drop the last far picks to make room (they are the model's weakest guesses).
    const std::size_t keep = plan.size() > unsettlePicks ? plan.size() - unsettlePicks : 0;
    std::vector<Config> dropped(plan.begin() + static_cast<std::ptrdiff_t>(keep), plan.end());
    plan.resize(keep);
    std::vector<Config> pool;
    for (const auto* set : {&far, &near})
      for (const Config& c : *set)
        if (std::find(plan.begin(), plan.end(), c) == plan.end()) pool.push_back(c);
    std::vector<Config> got = unsettled(parents, pool, unsettlePicks, spread, plan);
    for (Config& c : got) plan.push_back(std::move(c));
    for (std::size_t i = 0; i < dropped.size() && plan.size() < keep + unsettlePicks; ++i)
      if (std::find(plan.begin(), plan.end(), dropped[i]) == plan.end())
        plan.push_back(std::move(dropped[i]));
  }
  for (Config& c : climbing(parents, std::min<std::size_t>(n - plan.size(), climbPicks)))
    if (std::find(plan.begin(), plan.end(), c) == plan.end()) plan.push_back(std::move(c));
  if (const auto flagPicks = static_cast<std::size_t>(m_settings.getInt("flag_climb"));
      flagPicks > 0 && !parents.empty() && plan.size() < n)
    for (Config& c : flagClimbing(known, *parents.front(), std::min(n - plan.size(), flagPicks)))
      if (std::find(plan.begin(), plan.end(), c) == plan.end()) plan.push_back(std::move(c));
  const auto basinPicks = static_cast<std::size_t>(m_settings.getInt("basin_climb"));
  std::vector<const Config*> basinPool = parents;
  if (const auto pool = static_cast<std::size_t>(m_settings.getInt("basin_pool")); pool > 0) {
    basinPool.clear();
    for (const Observation* o : known)
      if (basinPool.size() < pool) basinPool.push_back(&o->config);
  }
  if (basinPicks > 0 && !warmStart && plan.size() < n)
    for (Config& c : basinClimbing(basinPool, std::min(n - plan.size(), basinPicks), away))
      if (std::find(plan.begin(), plan.end(), c) == plan.end()) plan.push_back(std::move(c));
  std::erase_if(
      near, [&](const Config& c) { return std::find(plan.begin(), plan.end(), c) != plan.end(); });
  for (Config& c : bestPredicted(near, n - plan.size(), 1)) plan.push_back(std::move(c));
  if (plan.size() < n)
    for (Config& c : bestPredicted(far, n, 1))
      if (plan.size() < n && std::find(plan.begin(), plan.end(), c) == plan.end())
        plan.push_back(std::move(c));
  return plan;
}

// A model that has not seen the interaction behind a better neighbour ranks it low among hundreds
// of children, and the search settles on a plateau one step from a peak (on real GPU data: a
// block size of 2 where 1 is 12% faster). Checking the incumbent's neighbours one by one, the
// model's favourites first, makes the best found a local optimum of the topology in the end.
std::vector<Config> OpEvoModelTuner::climbing(const std::vector<const Config*>& parents,
                                              std::size_t n) {
  if (n == 0) return {};
  const int pairs = m_settings.getInt("pair_climb");
  for (std::size_t k = 0; k < parents.size(); ++k) {
    const Config* p = parents[k];
    std::vector<Config> around;
    for (std::size_t i = 0; i < p->size(); ++i) oneMoveAway(*p, i, {}, around);
    if (pairs == 2 || (pairs == 1 && k == 0 && around.empty())) {
      std::vector<Config> two = pairMoves(*p);
      for (Config& c : two)
        if (std::find(around.begin(), around.end(), c) == around.end())
          around.push_back(std::move(c));
    }
    if (!around.empty()) return bestPredicted(around, n, 1);
  }
  return {};
}

// A flag (shared memory on or off, padding, read-only loads) splits a space into two regions whose
// best configurations may be far apart: on real convolution data the peak with shared memory off
// sits five parameters from the best plateau with it on, behind configurations 100x slower. Once
// the search has settled on one side, children and the model's guesses rarely cross, and a flag's
// other side is judged by its first few random samples. Climbing the other side's best
// configuration one step at a time, the flag kept, finds that side's peak as climbing finds this
// side's. One flag's other side per pick, flags in turn.
std::vector<Config> OpEvoModelTuner::flagClimbing(const std::vector<const Observation*>& known,
                                                  const Config& best, std::size_t n) {
  std::vector<std::pair<std::size_t, Vertex>> sides;
  for (std::size_t i = 0; i < m_space.dims(); ++i) {
    const Parameter& p = m_space.param(i);
    if (p.kind() != ParamKind::Discrete || p.size().as64() != 2) continue;
    for (std::int64_t k = 0; k < 2; ++k)
      if (Vertex{k} != best[i]) sides.emplace_back(i, Vertex{k});
  }
  std::vector<Config> out;
  for (std::size_t t = 0; t < sides.size() && out.size() < n; ++t) {
    const auto& [i, side] = sides[(m_flagTurn + t) % sides.size()];
    const Config* lead = nullptr;  // known is best first
    for (const Observation* o : known)
      if (o->config[i] == side) {
        lead = &o->config;
        break;
      }
    if (!lead) continue;
    std::vector<Config> around;
    for (std::size_t j = 0; j < lead->size(); ++j)
      if (j != i) oneMoveAway(*lead, j, out, around);
    for (Config& c : bestPredicted(around, 1, 1)) out.push_back(std::move(c));
  }
  ++m_flagTurn;
  return out;
}

// Appends to `around` the new configurations (not proposed yet, valid) one move of parameter i
// away from p, leaving out those in `exclude` and those already there.
void OpEvoModelTuner::oneMoveAway(const Config& p, std::size_t i,
                                  const std::vector<Config>& exclude,
                                  std::vector<Config>& around) const {
  for (const Vertex& v : moves(i, p[i])) {
    Config c = p;
    c[i] = v;
    if (isNew(c) && std::find(around.begin(), around.end(), c) == around.end() &&
        std::find(exclude.begin(), exclude.end(), c) == exclude.end())
      around.push_back(std::move(c));
  }
}

// Unmeasured configurations two moves from p: two parameters, each moved as climbing moves it.
// Where a corner pays only when two settings change together (a flag that helps only with
// another one off), neither one-step neighbour is better, and one-step climbing stops short.
std::vector<Config> OpEvoModelTuner::pairMoves(const Config& p) const {
  std::vector<Config> out;
  std::unordered_set<Config, ConfigHash> seen;
  std::vector<std::vector<Vertex>> steps(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) steps[i] = moves(i, p[i]);
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t j = i + 1; j < p.size(); ++j)
      for (const Vertex& a : steps[i])
        for (const Vertex& b : steps[j]) {
          Config c = p;
          c[i] = a;
          c[j] = b;
          if (isNew(c) && seen.insert(c).second) out.push_back(std::move(c));
        }
  return out;
}

// Parameters on which every parent agrees are settled: the search no longer measures their other
// values, whatever the rest of the configuration, and a corner where another value pays only
// together with other changes (a memory flag that helps only without padding) stays unseen. Each
// batch reopens one such parameter in turn: the model's favourite candidate holding another value
// of it, the other parameters free.
std::vector<Config> OpEvoModelTuner::unsettled(const std::vector<const Config*>& parents,
                                               const std::vector<Config>& candidates, std::size_t n,
                                               std::size_t minDistance,
                                               const std::vector<Config>& planned) {
  if (parents.empty() || candidates.empty() || n == 0) return {};
  std::vector<std::size_t> settled;
  for (std::size_t i = 0; i < m_space.dims(); ++i) {
    if (m_space.param(i).size() <= 1) continue;
    bool same = true;
    for (const Config* p : parents) same = same && (*p)[i] == (*parents.front())[i];
    if (same) settled.push_back(i);
  }
  if (settled.empty()) return {};
  std::vector<Config> out;
  const std::size_t turn = m_unsettleTurn++;
  for (std::size_t k = 0; k < settled.size() && out.size() < n; ++k) {
    const std::size_t i = settled[(turn + k) % settled.size()];
    std::vector<Config> other;
    for (const Config& c : candidates)
      if (c[i] != (*parents.front())[i] && std::find(out.begin(), out.end(), c) == out.end())
        other.push_back(c);
    std::vector<Config> taken = planned;
    taken.insert(taken.end(), out.begin(), out.end());
    for (Config& c : ranked(other, 1, minDistance, taken)) out.push_back(std::move(c));
  }
  return out;
}

// The model's best n candidates, each at least minDistance parameters from every configuration in
// `taken` and from each other where candidates allow (no ensemble: one pick of one kind).
std::vector<Config> OpEvoModelTuner::ranked(const std::vector<Config>& candidates, std::size_t n,
                                            std::size_t minDistance,
                                            const std::vector<Config>& taken) {
  if (candidates.empty() || n == 0) return {};
  std::vector<float> scores;
  model().predict(candidates, scores);
  return pickByScore(candidates, scores, n, minDistance, taken);
}

// The n best-scored candidates. A batch of near-copies of one guess learns little if the guess is
// wrong: a candidate that differs from one already picked (or in `taken`) in fewer than
// `minDistance` parameters is skipped, unless too few candidates are left to fill the batch.
std::vector<Config> OpEvoModelTuner::pickByScore(const std::vector<Config>& candidates,
                                                 const std::vector<float>& scores, std::size_t n,
                                                 std::size_t minDistance,
                                                 const std::vector<Config>& taken) {
  std::vector<std::size_t> rank(candidates.size());
  for (std::size_t i = 0; i < rank.size(); ++i) rank[i] = i;
  // Stable: equal scores keep generation order, so a seed replays the same batch.
  std::stable_sort(rank.begin(), rank.end(),
                   [&](std::size_t x, std::size_t y) { return scores[x] > scores[y]; });
  auto distance = [](const Config& x, const Config& y) {
    std::size_t d = 0;
    for (std::size_t i = 0; i < x.size(); ++i) d += x[i] != y[i] ? 1 : 0;
    return d;
  };
  std::vector<Config> chosen;
  std::vector<std::size_t> skipped;
  for (std::size_t r = 0; r < rank.size() && chosen.size() < n; ++r) {
    const Config& c = candidates[rank[r]];
    bool close = false;
    for (const Config& x : taken) close = close || distance(x, c) < minDistance;
    for (const Config& x : chosen) close = close || distance(x, c) < minDistance;
    if (close)
      skipped.push_back(rank[r]);
    else
      chosen.push_back(c);
  }
  for (std::size_t r = 0; r < skipped.size() && chosen.size() < n; ++r)
    chosen.push_back(candidates[skipped[r]]);
  return chosen;
}

// Where climbing may move parameter i from v: its neighbours, or (climb_reach 1) every other
// value of a discrete parameter.
std::vector<Vertex> OpEvoModelTuner::moves(std::size_t i, const Vertex& v) const {
  std::vector<Vertex> out;
  const Parameter& p = m_space.param(i);
  if (m_settings.getInt("climb_reach") == 1 && p.kind() == ParamKind::Discrete) {
    const auto n = static_cast<std::int64_t>(p.size().as64());
    for (std::int64_t k = 0; k < n; ++k)
      if (k != v[0]) out.push_back({k});
    return out;
  }
  p.neighbours(v, out);
  return out;
}

// Leaders of other basins: going down the parents, one that differs from every leader above it
// in at least `away` parameters starts a basin (the best configuration is the first leader and is
// left to climbing()). Each later leader, best first, gets one pick among its unmeasured
// neighbours, the model's favourite.
std::vector<Config> OpEvoModelTuner::basinClimbing(const std::vector<const Config*>& parents,
                                                   std::size_t n, std::size_t away) {
  if (n == 0 || parents.empty()) return {};
  auto distance = [](const Config& a, const Config& b) {
    std::size_t d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d += a[i] != b[i] ? 1 : 0;
    return d;
  };
  std::vector<const Config*> leaders{parents.front()};
  std::vector<Config> out;
  for (std::size_t k = 1; k < parents.size() && out.size() < n; ++k) {
    const Config* p = parents[k];
    bool apart = true;
    for (const Config* l : leaders)
      apart = apart && distance(*l, *p) >= std::max<std::size_t>(away, 1);
    if (!apart) continue;
    leaders.push_back(p);
    std::vector<Config> around;
    for (std::size_t i = 0; i < p->size(); ++i) oneMoveAway(*p, i, out, around);
    for (Config& c : bestPredicted(around, 1, 1)) out.push_back(std::move(c));
  }
  return out;
}

// Farthest-point picks among the model's top `top` candidates, distance to everything measured
// (and picked): once the search has stalled, guesses go where nothing has been measured.
std::vector<Config> OpEvoModelTuner::farthestFromMeasured(const std::vector<Config>& candidates,
                                                          std::size_t n, std::size_t top) {
  if (candidates.empty() || n == 0) return {};
  const std::vector<Config> pool =
      top >= candidates.size() ? candidates : bestPredicted(candidates, top, 1);
  std::vector<std::vector<double>> points, measured;
  for (const Config& c : pool) points.push_back(m_space.features(c));
  for (const Observation& o : history()) measured.push_back(m_space.features(o.config));
  const std::size_t dims = points.front().size();
  for (std::size_t d = 0; d < dims; ++d) {
    double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
    for (const auto* set : {&points, &measured})
      for (const auto& p : *set) lo = std::min(lo, p[d]), hi = std::max(hi, p[d]);
    for (auto* set : {&points, &measured})
      for (auto& p : *set) p[d] = hi > lo ? (p[d] - lo) / (hi - lo) : 0;
  }
  auto l1 = [&](const std::vector<double>& a, const std::vector<double>& b) {
    double d = 0;
    for (std::size_t k = 0; k < dims; ++k) d += std::abs(a[k] - b[k]);
    return d;
  };
  std::vector<double> nearest(pool.size(), std::numeric_limits<double>::max());
  for (std::size_t i = 0; i < pool.size(); ++i)
    for (const auto& m : measured) nearest[i] = std::min(nearest[i], l1(points[i], m));
  std::vector<Config> chosen;
  while (chosen.size() < n && chosen.size() < pool.size()) {
    // Ties keep the model's order (pool is best predicted first), so a seed replays.
    const auto next = static_cast<std::size_t>(std::max_element(nearest.begin(), nearest.end()) -
                                               nearest.begin());
    if (nearest[next] < 0) break;
    chosen.push_back(pool[next]);
    nearest[next] = -1;
    for (std::size_t i = 0; i < pool.size(); ++i)
      if (nearest[i] >= 0) nearest[i] = std::min(nearest[i], l1(points[i], points[next]));
  }
  return chosen;
}

std::vector<Config> OpEvoModelTuner::bestPredicted(const std::vector<Config>& candidates,
                                                   std::size_t n, std::size_t minDistance) {
  if (candidates.empty() || n == 0) return {};
  std::vector<float> scores;
  model().predict(candidates, scores);
  std::size_t members = 1;
  std::vector<float> sum(scores.begin(), scores.end()), squares(scores.size()), one;
  for (std::size_t i = 0; i < scores.size(); ++i) squares[i] = scores[i] * scores[i];
  for (auto& m : m_ensemble) {
    if (!m) continue;
    m->predict(candidates, one);
    ++members;
    for (std::size_t i = 0; i < one.size(); ++i) sum[i] += one[i], squares[i] += one[i] * one[i];
  }
  if (members > 1) {
    const float kappa = static_cast<float>(m_settings.get("kappa"));
    const auto count = static_cast<float>(members);
    for (std::size_t i = 0; i < scores.size(); ++i) {
      const float mean = sum[i] / count;
      scores[i] = mean + kappa * std::sqrt(std::max(0.0f, squares[i] / count - mean * mean));
    }
  }
  return pickByScore(candidates, scores, n, minDistance, {});
}

}  // namespace opevo
