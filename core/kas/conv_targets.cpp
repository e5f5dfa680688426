#include "kas/conv_targets.h"

#include <algorithm>

namespace opevo::kas {

std::vector<ConvTarget> replaceableConvolutions(const net::Network& net,
                                                std::vector<std::vector<std::string>>* layers) {
  std::vector<ConvTarget> out;
  std::vector<std::vector<std::string>> names;
  for (const net::Layer& layer : net.layers) {
    if (layer.kind != net::LayerKind::Conv2D || layer.inputs.empty()) continue;
    const net::Shape& in = net.shapeOf(layer.inputs.front());
    if (in.size() != 4 || layer.shape.size() != 4) continue;
    const bool sameShape =
        in[1] == layer.shape[1] && in[2] == layer.shape[2] && in[3] == layer.shape[3];
    if (!sameShape || layer.stride != 1 || layer.groups != 1 || layer.kernelH * layer.kernelW == 1)
      continue;
    ConvTarget t{layer.name, in[1], in[2], in[3], layer.kernelH, layer.kernelW, 1};
    auto same = std::find_if(out.begin(), out.end(), [&](const ConvTarget& o) {
      return o.channels == t.channels && o.height == t.height && o.width == t.width &&
             o.kernelH == t.kernelH && o.kernelW == t.kernelW;
    });
    if (same != out.end()) {
      ++same->count;
      names[static_cast<std::size_t>(same - out.begin())].push_back(layer.name);
    } else {
      out.push_back(t);
      names.push_back({layer.name});
    }
  }
  if (layers) *layers = std::move(names);
  return out;
}

}  // namespace opevo::kas
