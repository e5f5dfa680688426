#include "kas/conv_baseline.h"

#include <algorithm>
#include <cstdio>

namespace opevo::kas {

double ConvBaseline::totalMs() const {
  double sum = 0;
  for (const auto& l : layers) sum += static_cast<double>(l.count) * l.ms;
  return sum;
}

double ConvBaseline::slowestMs() const {
  double sum = 0;
  for (const auto& l : layers)
    if (!l.timings.empty())
      sum += static_cast<double>(l.count) * *std::max_element(l.timings.begin(), l.timings.end());
  return sum;
}

std::optional<double> ConvBaseline::msOf(const std::string& layer) const {
  for (const auto& l : layers)
    if (l.layer == layer && l.ms > 0) return l.ms;
  return std::nullopt;
}

std::string ConvBaseline::describe() const {
  // "oneDNN 2.6.3 brgconv:avx512_core" -> "oneDNN"; the full name is in the tuning results.
  const std::string name = library.substr(0, library.find(' '));
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s%sconvolution: fastest of %d timings per layer before the first kernel, shared "
                "by every kernel: %.3f ms over the network (the slowest timings: %.3f ms)",
                name.c_str(), name.empty() ? "" : " ", repeats, totalMs(), slowestMs());
  std::string text = buf;
  if (tunedBefore > 0)
    text += "; the " + std::to_string(tunedBefore) +
            " kernels tuned before it (the search was stored before the figure was shared) keep "
            "the convolution timed beside each";
  return text;
}

std::string ConvBaseline::brief() const {
  const std::string name = library.substr(0, library.find(' '));
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s%sconvolution %.3f ms for every kernel (fastest of %d timings)",
                name.c_str(), name.empty() ? "" : " ", totalMs(), repeats);
  return buf;
}

nlohmann::json ConvBaseline::toJson() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& l : layers)
    list.push_back({{"layer", l.layer}, {"count", l.count}, {"ms", l.ms}, {"timings", l.timings}});
  return {{"library", library},
          {"repeats", repeats},
          {"ms", totalMs()},
          {"layers", list},
          {"tuned_before", tunedBefore}};
}

std::optional<ConvBaseline> ConvBaseline::fromJson(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("layers") || !j["layers"].is_array()) return std::nullopt;
  ConvBaseline b;
  b.library = j.value("library", std::string());
  b.repeats = j.value("repeats", 0);
  b.tunedBefore = j.value("tuned_before", 0);
  for (const auto& l : j["layers"]) {
    if (!l.is_object()) continue;
    ConvBaselineLayer layer;
    layer.layer = l.value("layer", std::string());
    layer.count = l.value("count", std::int64_t{1});
    layer.ms = l.value("ms", 0.0);
    if (l.contains("timings") && l["timings"].is_array())
      for (const auto& t : l["timings"])
        if (t.is_number()) layer.timings.push_back(t.get<double>());
    b.layers.push_back(std::move(layer));
  }
  if (b.layers.empty()) return std::nullopt;
  return b;
}

}  // namespace opevo::kas
