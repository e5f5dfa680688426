#include "ui/controller/kas_types.h"

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "kas/conv_baseline.h"
#include "store/live_status.h"
#include "store/store.h"

namespace opevo::ui {

std::vector<const KasCandidateRow*> kasCandidates(const KasSnapshot& s) {
  std::vector<const KasCandidateRow*> out;
  out.reserve(s.candidates.size());
  for (const KasCandidatePtr& c : s.candidates) out.push_back(c.get());
  return out;
}

void readKasBaseline(const std::string& baselineJson, KasSnapshot& into) {
  const auto j = nlohmann::json::parse(baselineJson, nullptr, false);
  if (!j.is_object()) return;
  // Timed before the baseline is trained: shown while it trains.
  if (j.contains("convolution"))
    if (const auto conv = kas::ConvBaseline::fromJson(j["convolution"])) {
      into.convolutionBasis = QString::fromStdString(conv->describe());
      into.convolutionBrief = QString::fromStdString(conv->brief());
    }
  if (!j.contains("accuracy") || !j["accuracy"].is_number()) return;
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
  s.status = LiveStatus(store).of(*r);
  s.settingsJson = r->settingsJson;
  const auto settings = nlohmann::json::parse(r->settingsJson, nullptr, false);
  if (settings.is_object()) s.wanted = settings.value("candidates", 0);
  readKasBaseline(r->baselineJson, s);
  for (KasCandidateRow& c : store.kasCandidates(searchId))
    s.candidates.push_back(std::make_shared<const KasCandidateRow>(std::move(c)));
  return s;
}

}  // namespace opevo::ui
