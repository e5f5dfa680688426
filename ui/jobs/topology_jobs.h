#pragma once

#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

#include "space/param_graph.h"

namespace opevo::ui {

struct GraphLayout;
struct QwalkResult;

// The Topology page's background work, as plain functions of copied inputs: each runs on the
// thread pool and hands back a value, so nothing is shared with the GUI thread.

struct LayoutJob {
  std::shared_ptr<const GraphLayout> layout;
  QStringList labels;  // each layout vertex as its parameter formats it
  QString error;       // set instead when Graphviz or the graph refused
};
LayoutJob computeLayout(const ParameterPtr& param, const QString& engine, std::size_t maxVertices);

struct SampleJob {
  std::vector<double> frequency;  // by index into the exact result's graph
  int walks = 0;
};
// `walks` q-random walks with core's sampler, from the result's start with its q.
SampleJob sampleWalks(const QwalkResult& result, int walks);

// Sums per-vertex values by the vertex's distance from the start (for the bar chart).
std::vector<double> sumByDistance(const ParamGraph& graph, const std::vector<double>& values);

}  // namespace opevo::ui
