#include "engine/interleaved_engines.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace opevo {
namespace {

// The fewest trials among the engine's runs still going; -1 when every run has ended.
long long fewestTrials(const Engine& engine) {
  long long fewest = -1;
  for (const RunState& r : engine.runs())
    if (!r.ended() && (fewest < 0 || r.trials < fewest)) fewest = r.trials;
  return fewest;
}

}  // namespace

InterleavedEngines::InterleavedEngines(std::vector<Engine*> engines, Schedule schedule,
                                       std::uint64_t seed)
    : m_engines(std::move(engines)), m_schedule(schedule), m_rng(seed) {
  if (m_engines.empty()) throw std::logic_error("interleaved engines: no engine");
  // A resumed race goes on from the latest order any of its engines holds.
  for (const Engine* e : m_engines) m_nextOrder = std::max(m_nextOrder, e->nextOrder());
}

bool InterleavedEngines::step() {
  // The engines whose runs are furthest behind; in turn, the first of them after the one stepped
  // last.
  long long fewest = -1;
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < m_engines.size(); ++i) {
    const long long f = fewestTrials(*m_engines[i]);
    if (f < 0) continue;
    if (fewest < 0 || f < fewest) {
      fewest = f;
      candidates.clear();
    }
    if (f == fewest) candidates.push_back(i);
  }
  if (candidates.empty()) return false;
  std::size_t next = candidates.front();
  int run = -1;  // the engine's own schedule picks
  if (m_schedule == Schedule::Shuffle) {
    // Every run furthest behind is as likely, whichever engine holds it: an engine drawn first
    // and its run after would favour the runs of an engine with fewer.
    std::vector<std::pair<std::size_t, int>> runs;
    for (const std::size_t e : candidates)
      for (const RunState& r : m_engines[e]->runs())
        if (!r.ended() && r.trials == fewest) runs.emplace_back(e, r.index);
    std::tie(next, run) = runs[static_cast<std::size_t>(m_rng.below(runs.size()))];
  } else if (m_stepped) {
    for (const std::size_t c : candidates)
      if (c > m_lastStepped) {
        next = c;
        break;
      }
  }
  Engine& engine = *m_engines[next];
  engine.setNextOrder(m_nextOrder);
  if (run < 0)
    engine.step();
  else
    engine.step(run);
  m_nextOrder = engine.nextOrder();
  m_lastStepped = next;
  m_stepped = true;
  // Every engine, the failing one too: an observer's failure at a run's end (a store that
  // refuses it) leaves that engine's other runs going, and half a race would go on.
  if (!engine.failure().empty()) stop();
  return true;
}

void InterleavedEngines::run() {
  while (step()) {
  }
}

void InterleavedEngines::pause() {
  for (Engine* e : m_engines) e->pause();
}

void InterleavedEngines::resume() {
  for (Engine* e : m_engines) e->resume();
}

void InterleavedEngines::stop() {
  for (Engine* e : m_engines) e->stop();
}

EngineProgress InterleavedEngines::progress() const {
  EngineProgress sum;
  bool everyPlanned = true, etaKnown = true;
  double eta = 0;
  for (const Engine* e : m_engines) {
    const EngineProgress p = e->progress();
    sum.runs += p.runs;
    sum.runsEnded += p.runsEnded;
    sum.trialsDone += p.trialsDone;
    sum.trialsPlanned += p.trialsPlanned;
    // 0 planned: a run going on a budget of no trial count (an engine whose runs all ended has
    // its trials as planned).
    if (p.trialsPlanned == 0 && p.runsEnded < p.runs) everyPlanned = false;
    sum.seconds += p.seconds;
    if (p.etaSeconds < 0)
      etaKnown = false;
    else
      eta += p.etaSeconds;
  }
  if (!everyPlanned) sum.trialsPlanned = 0;
  sum.etaSeconds = etaKnown ? eta : -1;
  return sum;
}

std::string InterleavedEngines::failure() const {
  for (const Engine* e : m_engines)
    if (!e->failure().empty()) return e->failure();
  return {};
}

}  // namespace opevo
