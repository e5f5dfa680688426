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

std::optional<double> baselineAccuracy(const KasSearchRecord& search) {
  const auto j = nlohmann::json::parse(search.baselineJson, nullptr, false);
  if (!j.is_object() || !j.contains("accuracy") || !j["accuracy"].is_number()) return std::nullopt;
  return j["accuracy"].get<double>();
}

std::vector<LayerTime> layerTimes(const KasCandidateRow& c) {
  std::vector<LayerTime> out;
  const auto j = nlohmann::json::parse(c.tuningJson, nullptr, false);
  if (!j.is_array()) return out;
  for (const auto& l : j) {
    if (!l.is_object() || !l.contains("ms") || !l["ms"].is_number()) continue;
    LayerTime t;
    t.layer = l.value("layer", "");
    t.count = l.value("count", std::int64_t{1});
    t.chosenMs = l["ms"].get<double>();
    t.schedule = l.value("schedule", "");
    if (l.contains("notes") && l["notes"].is_string()) t.notes = l["notes"].get<std::string>();
    if (l.contains("best_trial_ms") && l["best_trial_ms"].is_number()) {
      t.bestTrialMs = l["best_trial_ms"].get<double>();
    } else if (l.contains("curve_ms") && l["curve_ms"].is_array() && !l["curve_ms"].empty()) {
      // Stored before best_trial_ms: the curve left the start schedule out.
      double best = l["curve_ms"].back().get<double>();
      const double start = l.value("default_ms", 0.0);
      if (start > 0 && (best <= 0 || start < best)) best = start;
      if (best > 0) t.bestTrialMs = best;
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<const KasCandidateRow*> pointersTo(const std::vector<KasCandidateRow>& candidates) {
  std::vector<const KasCandidateRow*> out;
  out.reserve(candidates.size());
  for (const KasCandidateRow& c : candidates) out.push_back(&c);
  return out;
}

}  // namespace opevo::kas
