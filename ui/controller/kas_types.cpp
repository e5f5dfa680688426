#include "ui/controller/kas_types.h"

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "kas/pareto.h"
#include "store/store.h"

namespace opevo::ui {

bool kasPlotted(const KasCandidateRow& c) {
  return c.stage == KasStage::Trained && c.accuracy && c.speedup();
}

bool kasDiverged(const KasCandidateRow& c) {
  if (c.stage != KasStage::Trained) return false;
  const auto j = nlohmann::json::parse(c.trainingJson, nullptr, false);
  return j.is_object() && j.contains("diverged") && j["diverged"].is_boolean() &&
         j["diverged"].get<bool>();
}

std::vector<int> kasParetoFront(const std::vector<KasCandidatePtr>& candidates) {
  std::vector<int> seqs;
  std::vector<kas::ParetoPoint> points;
  for (const KasCandidatePtr& c : candidates)
    if (kasPlotted(*c)) {
      seqs.push_back(c->seq);
      points.push_back({*c->speedup(), *c->accuracy});
    }
  std::vector<int> front;
  for (std::size_t i : kas::paretoFront(points)) front.push_back(seqs[i]);
  return front;
}

void readKasBaseline(const std::string& baselineJson, KasSnapshot& into) {
  const auto j = nlohmann::json::parse(baselineJson, nullptr, false);
  if (!j.is_object() || !j.contains("accuracy") || !j["accuracy"].is_number()) return;
  into.baselineAccuracy = j["accuracy"].get<double>();
  into.baselineCurve.clear();
  if (j.contains("curve") && j["curve"].is_array())
    for (const auto& v : j["curve"])
      if (v.is_number()) into.baselineCurve.push_back(v.get<double>());
}

KasSnapshot readKasSnapshot(const Store& store, std::int64_t searchId) {
  const auto r = store.kasSearch(searchId);
  if (!r) throw InputError("no kernel search " + std::to_string(searchId) + " in " + store.path());
  KasSnapshot s;
  s.searchId = r->id;
  s.network = QString::fromStdString(r->network);
  s.status = r->status;
  s.settingsJson = r->settingsJson;
  const auto settings = nlohmann::json::parse(r->settingsJson, nullptr, false);
  if (settings.is_object()) s.wanted = settings.value("candidates", 0);
  readKasBaseline(r->baselineJson, s);
  for (KasCandidateRow& c : store.kasCandidates(searchId))
    s.candidates.push_back(std::make_shared<const KasCandidateRow>(std::move(c)));
  return s;
}

}  // namespace opevo::ui
