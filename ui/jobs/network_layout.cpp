#include "ui/jobs/network_layout.h"

#include <map>
#include <stdexcept>
#include <string>

#include "ui/jobs/graphviz.h"

namespace opevo::ui {

using graphviz::setDefault;

namespace {

constexpr double kNodeWidthInches = 1.9, kNodeHeightInches = 0.5;

// Which task and step compute each layer.
void assignSteps(const net::TaskGraph& graph, std::map<std::string, NetworkLayout::Node*>& byName) {
  for (std::size_t t = 0; t < graph.tasks.size(); ++t)
    for (const net::Occurrence& o : graph.tasks[t].occurrences) {
      std::vector<std::string> layers{o.layer};
      layers.insert(layers.end(), o.fused.begin(), o.fused.end());
      for (const std::string& l : layers)
        if (auto it = byName.find(l); it != byName.end()) {
          it->second->task = static_cast<int>(t);
          it->second->step = QString::fromStdString(o.layer);
        }
    }
  for (const net::FixedLayer& f : graph.fixed)
    if (auto it = byName.find(f.layer); it != byName.end() && !f.view)
      it->second->step = QString::fromStdString(f.layer);
}

}  // namespace

std::shared_ptr<const NetworkLayout> layoutNetwork(const net::Network& net,
                                                   const net::TaskGraph& graph) {
  auto layout = std::make_shared<NetworkLayout>();
  for (const net::Input& in : net.inputs)
    layout->nodes.push_back({QString::fromStdString(in.name),
                             QStringLiteral("input"),
                             QString::fromStdString(net::formatShape(in.shape)),
                             {},
                             -1,
                             {}});
  for (const net::Layer& l : net.layers)
    layout->nodes.push_back({QString::fromStdString(l.name),
                             QString::fromUtf8(net::layerKindName(l.kind).data()),
                             QString::fromStdString(net::formatShape(l.shape)),
                             {},
                             -1,
                             {}});
  std::map<std::string, NetworkLayout::Node*> byName;
  for (NetworkLayout::Node& n : layout->nodes) byName[n.name.toStdString()] = &n;
  assignSteps(graph, byName);

  std::lock_guard lock(graphviz::mutex());
  GVC_t* gvc = graphviz::context();
  if (!gvc) throw std::runtime_error("Graphviz could not start (gvContext failed)");
  std::string graphName = "network";
  Agraph_t* g = agopen(graphName.data(), Agdirected, nullptr);
  // Fixed-size boxes with no text: the view draws its own labels, so no font is measured.
  setDefault(g, AGNODE, "shape", "box");
  setDefault(g, AGNODE, "fixedsize", "true");
  setDefault(g, AGNODE, "width", std::to_string(kNodeWidthInches).c_str());
  setDefault(g, AGNODE, "height", std::to_string(kNodeHeightInches).c_str());
  setDefault(g, AGNODE, "label", "");
  setDefault(g, AGRAPH, "rankdir", "TB");
  setDefault(g, AGRAPH, "ranksep", "0.3");
  setDefault(g, AGRAPH, "nodesep", "0.3");
  std::map<std::string, Agnode_t*> nodes;
  for (const NetworkLayout::Node& n : layout->nodes) {
    std::string name = n.name.toStdString();
    nodes[name] = agnode(g, name.data(), 1);
  }
  std::vector<Agedge_t*> edges;
  for (const net::Layer& l : net.layers)
    for (const std::string& in : l.inputs)
      if (auto it = nodes.find(in); it != nodes.end())
        edges.push_back(agedge(g, it->second, nodes.at(l.name), nullptr, 1));
  if (gvLayout(gvc, g, "dot") != 0) {
    agclose(g);
    throw std::runtime_error("Graphviz could not lay out the network with dot");
  }
  QRectF bounds;
  const QSizeF size(kNodeWidthInches * 72, kNodeHeightInches * 72);
  for (NetworkLayout::Node& n : layout->nodes) {
    const pointf p = ND_coord(nodes.at(n.name.toStdString()));
    n.center = QPointF(p.x, -p.y);  // Graphviz's y grows upwards
    bounds |= QRectF(n.center - QPointF(size.width() / 2, size.height() / 2), size);
  }
  for (Agedge_t* e : edges) {
    const splines* spl = ED_spl(e);
    if (!spl || spl->size < 1 || spl->list[0].size < 1) continue;
    const bezier& bz = spl->list[0];
    NetworkLayout::Edge edge;
    edge.path.moveTo(bz.list[0].x, -bz.list[0].y);
    for (int i = 1; i + 2 < bz.size; i += 3)
      edge.path.cubicTo(bz.list[i].x, -bz.list[i].y, bz.list[i + 1].x, -bz.list[i + 1].y,
                        bz.list[i + 2].x, -bz.list[i + 2].y);
    const pointf last = bz.list[bz.size - 1];
    edge.from = QPointF(last.x, -last.y);
    edge.tip = bz.eflag ? QPointF(bz.ep.x, -bz.ep.y) : edge.from;
    if (bz.eflag) edge.path.lineTo(edge.tip);
    layout->edges.push_back(std::move(edge));
  }
  layout->bounds = bounds;
  layout->nodeSize = size;
  gvFreeLayout(gvc, g);
  agclose(g);
  return layout;
}

}  // namespace opevo::ui
