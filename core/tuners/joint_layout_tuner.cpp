#include "tuners/joint_layout_tuner.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "common/error.h"
#include "layout/operand_layouts.h"
#include "tuners/model_based_tuner.h"
#include "tuners/registry.h"

namespace opevo {
namespace {

constexpr const char* kPrefix = "joint.";
// The joint stage of a run with neither a trial nor a time budget gets share * this many trials.
constexpr int kAssumedBudget = 200;
// The joint stage of a run with a time budget alone has no trial limit; this one is far beyond any
// run (a budget is at most 1e9 trials) and leaves room for the stage's arithmetic.
constexpr int kNoTrialLimit = 1'000'000'000;

Config combine(const Config& layout, const Config& loops, const std::vector<std::size_t>& layoutAt,
               const std::vector<std::size_t>& loopAt) {
  Config full(layoutAt.size() + loopAt.size());
  for (std::size_t i = 0; i < layoutAt.size(); ++i) full[layoutAt[i]] = layout[i];
  for (std::size_t i = 0; i < loopAt.size(); ++i) full[loopAt[i]] = loops[i];
  return full;
}

Config pick(const Config& full, const std::vector<std::size_t>& at) {
  Config part;
  part.reserve(at.size());
  for (std::size_t i : at) part.push_back(full[i]);
  return part;
}

// The loops closest to `loops` that `space` admits: as few parameters changed as possible (at
// most kMaxChanged), each to one of its kNearest values on its topology, the fewest steps in all
// first. Good loops of one layout often break the next layout's constraints (a register tile of
// 32 channels in blocks of 16); without this the next layout was judged by its loop tuner's first
// random loops, 20-50x slower than the same layout with the earlier loops adjusted, so the joint
// stage compared loops rather than layouts.
std::optional<Config> nearestAdmitted(const SearchSpace& space, const Config& loops) {
  constexpr std::size_t kMaxChanged = 3, kNearest = 12;
  if (space.satisfies(loops)) return loops;
  // Each parameter's other values, nearest first, with their distance in steps.
  std::vector<std::vector<std::pair<Vertex, int>>> near(loops.size());
  for (std::size_t i = 0; i < loops.size(); ++i) {
    std::vector<Vertex> frontier{loops[i]}, next;
    std::vector<Vertex> seen{loops[i]};
    for (int steps = 1; !frontier.empty() && near[i].size() < kNearest; ++steps) {
      std::vector<Vertex> reached;
      for (const Vertex& v : frontier) {
        next.clear();
        space.param(i).neighbours(v, next);
        for (const Vertex& w : next) {
          if (std::find(seen.begin(), seen.end(), w) != seen.end()) continue;
          seen.push_back(w);
          reached.push_back(w);
          if (near[i].size() < kNearest) near[i].emplace_back(w, steps);
        }
      }
      frontier = std::move(reached);
    }
  }
  std::optional<Config> best;
  int bestSteps = 0;
  Config c = loops;
  // Every choice of `left` more parameters after `from`, each set to one of its near values.
  auto search = [&](auto&& self, std::size_t from, std::size_t left, int steps) -> void {
    if (left == 0) {
      if ((!best || steps < bestSteps) && space.satisfies(c)) best = c, bestSteps = steps;
      return;
    }
    for (std::size_t i = from; i < c.size(); ++i)
      for (const auto& [v, d] : near[i]) {
        if (best && steps + d >= bestSteps) break;  // nearest first: the rest are farther
        c[i] = v;
        self(self, i + 1, left - 1, steps + d);
        c[i] = loops[i];
      }
  };
  for (std::size_t changed = 1; changed <= kMaxChanged && !best; ++changed)
    search(search, 0, changed, 0);
  return best;
}

}  // namespace

TunerSettings jointSettings() {
  TunerSettings s;
  s.declare("joint.share", 0.3, 0, 1, false,
            "share of the budget (trials, tuning time, or the first of them to end) spent on the "
            "joint layout + loop stage; the rest tunes the loops of the best layout");
  s.declare("joint.layout_trials", 2, 1, 1000, true,
            "trials of loop tuning each layout gets in the joint stage");
  s.declare("joint.cross", 1, 0, 1, true,
            "1: ALT's cross exploration (layouts searched, loops tuned per layout); 0: one "
            "search over layouts and loops together in the joint stage");
  return s;
}

std::map<std::string, std::string> jointPart(const std::map<std::string, std::string>& settings) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : settings)
    if (k.rfind(kPrefix, 0) == 0) out[k] = v;
  return out;
}

std::map<std::string, std::string> algorithmPart(
    const std::map<std::string, std::string>& settings) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : settings)
    if (k.rfind(kPrefix, 0) != 0) out[k] = v;
  return out;
}

JointStagePlan jointStagePlan(const TunerSettings& joint, std::optional<int> budgetTrials,
                              std::optional<double> budgetSeconds) {
  JointStagePlan plan;
  const double share = joint.get("joint.share");
  if (budgetTrials || !budgetSeconds)
    plan.jointTrials = static_cast<int>(std::lround(share * budgetTrials.value_or(kAssumedBudget)));
  else
    plan.jointTrials = kNoTrialLimit;
  if (budgetSeconds) plan.jointSeconds = share * *budgetSeconds;
  plan.trialsPerLayout = joint.getInt("joint.layout_trials");
  plan.crossExploration = joint.getInt("joint.cross") == 1;
  plan.settings = joint;
  return plan;
}

struct JointLayoutTuner::LayoutTrial {
  Config layout;
  // Loop configurations that did best under earlier layouts, moved to the nearest loops this one
  // admits, tried first under this one: the layouts are then compared under the same good loops,
  // as ALT's loop actors, shared by every layout, carry what they learnt from one to the next.
  std::vector<Config> seeds;
  std::unique_ptr<SearchSpace> loopSpace;
  std::unique_ptr<Tuner> tuner;
  int proposed = 0, observed = 0;
  double best = 0;
  bool reported = false;
};

JointLayoutTuner::JointLayoutTuner(const SearchSpace& space, const std::string& algorithm,
                                   std::map<std::string, std::string> settings, std::uint64_t seed,
                                   JointStagePlan plan)
    : Tuner(space, TunerSettings{}, seed),
      m_algorithm(algorithm),
      m_algorithmSettings(std::move(settings)),
      m_plan(plan),
      m_seed(seed) {
  m_layoutSpace = std::make_unique<SearchSpace>();
  for (std::size_t i = 0; i < space.dims(); ++i) {
    if (layout::isLayoutParameter(space.param(i).name())) {
      m_layoutParams.push_back(i);
      m_layoutSpace->add(space.paramPtr(i));
    } else {
      m_loopParams.push_back(i);
    }
  }
  if (m_layoutParams.empty())
    throw InputError("joint layout tuning needs a space with layout parameters (layout.*)");
  // Every layout admits some loops (the template's one-element register tile), so the layout
  // space itself has no constraints: they all involve the loops.
  m_layoutTuner = makeTuner(algorithm, *m_layoutSpace, seed, m_algorithmSettings);
  // What the run stores: without the joint settings a resume went back to their defaults (a
  // joint.share of 0.5 resumed as 0.3), and `opevo show` printed "settings {}".
  m_settings = m_layoutTuner->settings();
  for (const SettingInfo& s : m_plan.settings.all())
    m_settings.declare(s.name, s.value, s.min, s.max, s.integer, s.help, s.minExclusive,
                       s.maxExclusive);
  if (!m_plan.crossExploration)
    m_jointTuner = makeTuner(algorithm, space, seed, m_algorithmSettings);
  // The loops are tuned by the same algorithm once a layout is chosen: one that cannot take
  // their parameters (a permutation, a discrete unroll) is refused now, not after the first
  // layout's trials.
  SearchSpace loops;
  for (std::size_t i : m_loopParams) loops.add(space.paramPtr(i));
  (void)makeTuner(algorithm, loops, seed, m_algorithmSettings);
}

JointLayoutTuner::~JointLayoutTuner() = default;

std::string JointLayoutTuner::name() const {
  return m_algorithm;
}

std::size_t JointLayoutTuner::preferredBatch() const {
  const std::size_t inner = m_layoutTuner->preferredBatch();
  return m_stage == Stage::Joint ? std::min<std::size_t>(inner, m_plan.trialsPerLayout) : inner;
}

Config JointLayoutTuner::layoutOf(const Config& full) const {
  return pick(full, m_layoutParams);
}

JointLayoutTuner::LayoutTrial* JointLayoutTuner::findLayout(const Config& layout) {
  for (auto& t : m_layouts)
    if (t->layout == layout) return t.get();
  return nullptr;
}

JointLayoutTuner::LayoutTrial& JointLayoutTuner::startLayout(const Config& layout) {
  auto t = std::make_unique<LayoutTrial>();
  t->layout = layout;
  // The loop space rebuilt for this layout: the loop parameters, and every constraint of the
  // joint space evaluated with the layout fixed.
  t->loopSpace = std::make_unique<SearchSpace>();
  for (std::size_t i : m_loopParams) t->loopSpace->add(m_space.paramPtr(i));
  for (const Constraint& c : m_space.constraints())
    t->loopSpace->addConstraint(
        c.description, [holds = c.holds, layout, a = m_layoutParams, b = m_loopParams](
                           const Config& loops) { return holds(combine(layout, loops, a, b)); });
  t->tuner = makeTuner(m_algorithm, *t->loopSpace, m_seed * 7919 + m_layouts.size() + 1,
                       m_algorithmSettings);
  // What was measured with this layout before (a resumed run) is known to its loop tuner.
  std::vector<Observation> known;
  for (const Observation& o : history())
    if (layoutOf(o.config) == layout) known.push_back({pick(o.config, m_loopParams), o.fitness});
  t->tuner->observe(known);
  for (const Observation& o : known) t->best = std::max(t->best, o.fitness);
  t->observed = static_cast<int>(known.size());
  if (known.empty()) {
    // A model-guided loop tuner starts from what every earlier layout's loops measured, as a
    // warm start: its first proposals are then the model's best children of good loops, not
    // random loops (speeds carry over between layouts well enough to rank loops).
    if (auto* guided = dynamic_cast<ModelBasedTuner*>(t->tuner.get())) {
      std::vector<Observation> earlier;
      for (const Observation& o : history())
        earlier.push_back({pick(o.config, m_loopParams), o.fitness});
      guided->addPriorObservations(earlier);
    }
    const std::size_t want = std::size_t(m_plan.trialsPerLayout / 2);
    for (std::size_t i : ranking()) {
      if (t->seeds.size() >= want || history()[i].fitness <= 0) break;
      std::optional<Config> loops =
          nearestAdmitted(*t->loopSpace, pick(history()[i].config, m_loopParams));
      if (loops && std::find(t->seeds.begin(), t->seeds.end(), *loops) == t->seeds.end())
        t->seeds.push_back(std::move(*loops));
    }
  }
  m_layouts.push_back(std::move(t));
  return *m_layouts.back();
}

std::vector<Config> JointLayoutTuner::proposeFrom(LayoutTrial& t, std::size_t n) {
  std::vector<Config> out;
  while (!t.seeds.empty() && out.size() < n) {
    Config full = combine(t.layout, t.seeds.front(), m_layoutParams, m_loopParams);
    t.seeds.erase(t.seeds.begin());
    if (!isNew(full)) continue;
    reserve(full);
    out.push_back(std::move(full));
    ++t.proposed;
  }
  if (out.size() == n) return out;
  for (const Config& loops : t.tuner->propose(n - out.size())) {
    Config full = combine(t.layout, loops, m_layoutParams, m_loopParams);
    if (!isNew(full)) continue;  // measured under an earlier life of this run
    reserve(full);
    out.push_back(std::move(full));
    ++t.proposed;
  }
  return out;
}

void JointLayoutTuner::beginLoopOnly(int trials) {
  m_stage = Stage::LoopOnly;
  m_boundary = trials;
  Config best;
  if (const auto order = ranking(); !order.empty() && history()[order[0]].fitness > 0)
    best = layoutOf(history()[order[0]].config);
  else if (m_current)
    best = m_current->layout;
  else if (m_space.startPoint())
    best = layoutOf(*m_space.startPoint());
  else
    best = m_layoutSpace->first();
  // A fresh instance for the loops of the best layout, starting from all measured there.
  std::erase_if(m_layouts, [&](const auto& t) { return t->layout == best; });
  m_current = &startLayout(best);
  m_current->reported = true;
  if (const auto& start = m_space.startPoint(); start && layoutOf(*start) == best && isNew(*start))
    m_current->seeds.insert(m_current->seeds.begin(), pick(*start, m_loopParams));
}

void JointLayoutTuner::reportDone() {
  for (auto& t : m_layouts) {
    if (t->reported || t->observed < t->proposed || t->observed == 0) continue;
    if (t.get() == m_current && t->proposed < m_plan.trialsPerLayout) continue;
    m_layoutTuner->observe({{t->layout, t->best}});
    t->reported = true;
  }
}

std::vector<Config> JointLayoutTuner::doPropose(std::size_t n) {
  std::vector<Config> out;
  while (out.size() < n) {
    const int trials = static_cast<int>(history().size() + inFlight() + out.size());
    if (m_stage == Stage::Joint && (trials >= m_plan.jointTrials ||
                                    (m_plan.jointSeconds && m_seconds >= *m_plan.jointSeconds)))
      beginLoopOnly(trials);
    if (m_stage == Stage::LoopOnly) {
      std::vector<Config> more = proposeFrom(*m_current, n - out.size());
      if (more.empty()) break;  // the best layout's loops are exhausted
      for (Config& c : more) out.push_back(std::move(c));
      continue;
    }
    if (m_jointTuner) {
      if (trials == 0 && m_space.startPoint() && isNew(*m_space.startPoint())) {
        reserve(*m_space.startPoint());
        out.push_back(*m_space.startPoint());
        continue;
      }
      std::vector<Config> more = m_jointTuner->propose(
          std::min<std::size_t>(n - out.size(), std::size_t(m_plan.jointTrials - trials)));
      if (more.empty()) {
        beginLoopOnly(trials);
        continue;
      }
      for (Config& c : more) {
        reserve(c);
        out.push_back(std::move(c));
      }
      continue;
    }
    if (!m_current || m_current->proposed >= m_plan.trialsPerLayout ||
        m_current->tuner->exhausted()) {
      if (m_current && m_current->proposed < m_plan.trialsPerLayout)
        m_current->proposed = m_plan.trialsPerLayout;  // exhausted: done with it
      reportDone();
      if (m_layouts.empty() && m_space.startPoint()) {
        // A fresh run begins where the template's own default blocking is, its loops first.
        const Config& start = *m_space.startPoint();
        m_current = &startLayout(layoutOf(start));
        m_current->seeds.insert(m_current->seeds.begin(), pick(start, m_loopParams));
      } else {
        if (m_layoutQueue.empty()) {
          // Layouts are asked for in the layout tuner's own batches, as many as the joint stage
          // has room for: a model-guided tuner mixes exploring and refining within a batch, and
          // asked for one at a time it would only ever hand out the first kind.
          const int left = (m_plan.jointTrials - trials + m_plan.trialsPerLayout - 1) /
                           std::max(1, m_plan.trialsPerLayout);
          const std::size_t ask = std::clamp<std::size_t>(std::size_t(std::max(1, left)), 1,
                                                          m_layoutTuner->preferredBatch());
          for (Config& c : m_layoutTuner->propose(ask)) m_layoutQueue.push_back(std::move(c));
        }
        if (m_layoutQueue.empty()) {
          beginLoopOnly(trials);  // every layout tried
          continue;
        }
        const Config next = std::move(m_layoutQueue.front());
        m_layoutQueue.pop_front();
        m_current = findLayout(next);
        if (!m_current) m_current = &startLayout(next);
      }
    }
    const std::size_t want = std::min<std::size_t>(
        {n - out.size(), std::size_t(m_plan.trialsPerLayout - m_current->proposed),
         std::size_t(m_plan.jointTrials - trials)});
    std::vector<Config> more = proposeFrom(*m_current, want);
    if (more.empty()) m_current->proposed = m_plan.trialsPerLayout;
    for (Config& c : more) out.push_back(std::move(c));
  }
  return out;
}

void JointLayoutTuner::doObserve(const std::vector<Observation>& results) {
  if (m_jointTuner && m_stage == Stage::Joint) {
    // One search over the whole space: layouts need no records of their own until the
    // loop-only stage, which starts from history().
    m_jointTuner->observe(results);
    return;
  }
  for (const Observation& o : results) {
    const Config layout = layoutOf(o.config);
    LayoutTrial* t = findLayout(layout);
    if (!t) {
      // A restored trial: its layout gets a record (the loop tuner learns it there).
      startLayout(layout);
      continue;
    }
    t->tuner->observe({{pick(o.config, m_loopParams), o.fitness}});
    ++t->observed;
    t->best = std::max(t->best, o.fitness);
  }
  reportDone();
}

}  // namespace opevo
