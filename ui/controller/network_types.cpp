#include "ui/controller/network_types.h"

namespace opevo::ui {

std::vector<NetworkTaskInfo> networkTaskInfo(const net::Network& n, const net::TaskGraph& g) {
  std::vector<NetworkTaskInfo> out;
  for (const net::Task& t : g.tasks) {
    NetworkTaskInfo info;
    info.name = QString::fromStdString(t.name);
    const net::Layer* layer = n.find(t.occurrences.front().layer);
    info.kind = QString::fromUtf8(layerKindName(layer->kind).data());
    info.shape = QString::fromStdString(net::formatShape(layer->shape));
    info.weight = t.weight();
    info.gflops = n.flops(*layer) / 1e9;
    for (const net::Occurrence& o : t.occurrences) {
      info.layers << QString::fromStdString(o.layer);
      for (const std::string& f : o.fused) info.layers << QString::fromStdString(f);
    }
    out.push_back(std::move(info));
  }
  return out;
}

}  // namespace opevo::ui
