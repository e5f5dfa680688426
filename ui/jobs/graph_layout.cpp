#include "ui/jobs/graph_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "ui/jobs/graphviz.h"

namespace opevo::ui {

using graphviz::setDefault;

std::shared_ptr<const GraphLayout> layoutParameter(const Parameter& param, const QString& engine,
                                                   std::size_t maxVertices) {
  auto layout = std::make_shared<GraphLayout>();
  layout->graph = buildGraph(param, param.first(), maxVertices);
  layout->engine = engine;
  const ParamGraph& pg = layout->graph;
  for (std::size_t i = 0; i < pg.size(); ++i) layout->indexOf.emplace(pg.vertices[i], i);

  std::lock_guard lock(graphviz::mutex());
  GVC_t* gvc = graphviz::context();
  if (!gvc) throw std::runtime_error("Graphviz could not start (gvContext failed)");
  std::string graphName = "parameter";
  Agraph_t* g = agopen(graphName.data(), Agundirected, nullptr);
  // Positions only: Graphviz draws nothing, so nodes are small points and labels do not matter.
  setDefault(g, AGNODE, "shape", "point");
  setDefault(g, AGNODE, "width", "0.15");
  setDefault(g, AGNODE, "label", "");  // no text to measure: the view draws its own labels
  setDefault(g, AGRAPH, "overlap", "false");
  setDefault(g, AGRAPH, "splines", "false");
  setDefault(g, AGRAPH, "ranksep", "0.6");
  setDefault(g, AGRAPH, "nodesep", "0.25");
  setDefault(g, AGRAPH, "start", "1");  // neato's seed: the same picture every time
  std::vector<Agnode_t*> nodes(pg.size());
  for (std::size_t i = 0; i < pg.size(); ++i) {
    std::string name = std::to_string(i);
    nodes[i] = agnode(g, name.data(), 1);
  }
  for (std::size_t i = 0; i < pg.size(); ++i)
    for (std::uint32_t k = pg.offsets[i]; k < pg.offsets[i + 1]; ++k)
      if (pg.targets[k] > i) agedge(g, nodes[i], nodes[pg.targets[k]], nullptr, 1);
  const std::string engineName = engine.toStdString();
  if (gvLayout(gvc, g, engineName.c_str()) != 0) {
    agclose(g);
    throw std::runtime_error("Graphviz could not lay out the graph with " + engineName);
  }
  layout->positions.resize(pg.size());
  QRectF bounds;
  for (std::size_t i = 0; i < pg.size(); ++i) {
    const pointf p = ND_coord(nodes[i]);
    layout->positions[i] = QPointF(p.x, -p.y);  // Graphviz's y grows upwards
    bounds |= QRectF(layout->positions[i], QSizeF(1, 1));
  }
  layout->bounds = bounds;
  // All pairs: at most kMaxDrawnVertices (2,000) vertices, two million distances, off the GUI
  // thread.
  double closest = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < pg.size(); ++i)
    for (std::size_t j = i + 1; j < pg.size(); ++j) {
      const QPointF d = layout->positions[i] - layout->positions[j];
      closest = std::min(closest, d.x() * d.x() + d.y() * d.y());
    }
  layout->closest = std::isfinite(closest) ? std::sqrt(closest) : 0.0;
  gvFreeLayout(gvc, g);
  agclose(g);
  return layout;
}

}  // namespace opevo::ui
