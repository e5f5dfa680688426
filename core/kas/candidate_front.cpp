#include "kas/candidate_front.h"

#include <nlohmann/json.hpp>

#include "kas/pareto.h"

namespace opevo::kas {

bool plotted(const KasCandidateRow& c) {
  return c.stage == KasStage::Trained && c.accuracy && c.speedup();
}

bool trainingDiverged(const KasCandidateRow& c) {
  if (c.stage != KasStage::Trained) return false;
  const auto j = nlohmann::json::parse(c.trainingJson, nullptr, false);
  return j.is_object() && j.contains("diverged") && j["diverged"].is_boolean() &&
         j["diverged"].get<bool>();
}

std::vector<int> frontSeqs(const std::vector<const KasCandidateRow*>& candidates) {
  std::vector<int> seqs;
  std::vector<ParetoPoint> points;
  for (const KasCandidateRow* c : candidates)
    if (plotted(*c) && !trainingDiverged(*c)) {
      seqs.push_back(c->seq);
      points.push_back({*c->speedup(), *c->accuracy});
    }
  std::vector<int> front;
  for (std::size_t i : paretoFront(points)) front.push_back(seqs[i]);
  return front;
}

const KasCandidateRow* bestWithinLoss(const std::vector<const KasCandidateRow*>& candidates,
                                      double baselineAccuracy, double maxLoss) {
  const KasCandidateRow* best = nullptr;
  for (const KasCandidateRow* c : candidates) {
    if (!plotted(*c) || trainingDiverged(*c)) continue;
    if (*c->accuracy < baselineAccuracy - maxLoss - 1e-12) continue;
    if (!best || *c->speedup() > *best->speedup()) best = c;
  }
  return best;
}

std::vector<const KasCandidateRow*> pointersTo(const std::vector<KasCandidateRow>& candidates) {
  std::vector<const KasCandidateRow*> out;
  out.reserve(candidates.size());
  for (const KasCandidateRow& c : candidates) out.push_back(&c);
  return out;
}

}  // namespace opevo::kas
