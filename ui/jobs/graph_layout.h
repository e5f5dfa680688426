#pragma once

#include <QPointF>
#include <QRectF>
#include <QString>
#include <memory>
#include <unordered_map>
#include <vector>

#include "space/param_graph.h"

namespace opevo::ui {

// A parameter's graph with positions from Graphviz, computed once per parameter (the start
// vertex and q change only the colours). Vertices keep the BFS order of `graph`.
struct GraphLayout {
  ParamGraph graph;                // BFS from the parameter's first vertex
  std::vector<QPointF> positions;  // in points, y down
  QRectF bounds;
  // The least distance between two vertices' positions (0 for fewer than two): the view spaces
  // vertices by it so no two discs overlap.
  double closest = 0;
  std::unordered_map<Vertex, std::size_t, VertexHash> indexOf;
  QString engine;  // "neato" or "dot"
};

// Builds the graph of param and lays it out with the named Graphviz engine. Runs on any thread
// (Graphviz is not re-entrant, so calls are serialised). Throws InputError for a graph over
// maxVertices and std::runtime_error when Graphviz fails.
std::shared_ptr<const GraphLayout> layoutParameter(const Parameter& param, const QString& engine,
                                                   std::size_t maxVertices);

}  // namespace opevo::ui
