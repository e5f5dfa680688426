#include "ui/jobs/topology_jobs.h"

#include <exception>
#include <unordered_map>

#include "space/qwalk.h"
#include "ui/jobs/graph_layout.h"
#include "ui/jobs/qwalk_runner.h"

namespace opevo::ui {

LayoutJob computeLayout(const ParameterPtr& param, const QString& engine, std::size_t maxVertices) {
  LayoutJob job;
  try {
    job.layout = layoutParameter(*param, engine, maxVertices);
    for (const Vertex& v : job.layout->graph.vertices)
      job.labels << QString::fromStdString(param->format(v));
  } catch (const std::exception& e) {
    job.error = QString::fromUtf8(e.what());
  }
  return job;
}

SampleJob sampleWalks(const QwalkResult& result, int walks) {
  const QwalkRequest& req = result.request;
  const ParamGraph& g = result.distribution.graph;
  std::unordered_map<Vertex, std::size_t, VertexHash> index;
  for (std::size_t i = 0; i < g.size(); ++i) index.emplace(g.vertices[i], i);
  SampleJob job;
  job.walks = walks;
  job.frequency.assign(g.size(), 0.0);
  // A fixed seed per size: the same request overlays the same picture (screenshots, bug reports).
  Rng rng(static_cast<std::uint64_t>(walks) * 7919u + 1);
  for (int w = 0; w < walks; ++w) {
    const auto it = index.find(qWalk(*req.param, req.start, req.q, rng));
    if (it != index.end()) job.frequency[it->second] += 1.0 / walks;
  }
  return job;
}

std::vector<double> sumByDistance(const ParamGraph& graph, const std::vector<double>& values) {
  std::vector<double> sums;
  for (std::size_t i = 0; i < graph.size() && i < values.size(); ++i) {
    const auto d = static_cast<std::size_t>(graph.distance[i]);
    if (sums.size() <= d) sums.resize(d + 1, 0.0);
    sums[d] += values[i];
  }
  return sums;
}

}  // namespace opevo::ui
