#include "space/param_graph.h"

#include "common/error.h"
#include "space/graph_limit.h"

namespace opevo {

std::size_t VertexHash::operator()(const Vertex& v) const noexcept {
  std::size_t h = 0xcbf29ce484222325ull;
  for (std::int64_t x : v) h = (h ^ static_cast<std::size_t>(x)) * 0x100000001b3ull;
  return h ^ (h >> 32);
}

std::string graphTooLarge(const Parameter& param, std::size_t maxVertices) {
  const Count n = param.size();
  if (n <= maxVertices) return {};
  return param.spec() + " has " + n.toString() + " vertices; its graph is built for at most " +
         std::to_string(maxVertices) +
         " (the exact distribution needs the whole graph: choose a smaller parameter)";
}

namespace {

void checkSize(const Parameter& param, std::size_t maxVertices) {
  if (std::string why = graphTooLarge(param, maxVertices); !why.empty()) throw InputError(why);
}

}  // namespace

ParamGraph buildGraph(const Parameter& param, const Vertex& start, std::size_t maxVertices) {
  checkSize(param, maxVertices);
  ParamGraph g;
  const std::size_t expected = static_cast<std::size_t>(param.size().as64());
  g.vertices.reserve(expected);
  g.distance.reserve(expected);
  std::unordered_map<Vertex, std::uint32_t, VertexHash> index;
  index.reserve(expected * 2);
  index.emplace(start, 0);
  g.vertices.push_back(start);
  g.distance.push_back(0);
  g.offsets.push_back(0);
  std::vector<Vertex> scratch;
  for (std::size_t i = 0; i < g.vertices.size(); ++i) {
    param.neighbours(g.vertices[i], scratch);
    for (Vertex& u : scratch) {
      auto [it, inserted] = index.emplace(u, static_cast<std::uint32_t>(g.vertices.size()));
      if (inserted) {
        g.vertices.push_back(std::move(u));
        g.distance.push_back(g.distance[i] + 1);
      }
      g.targets.push_back(it->second);
    }
    g.offsets.push_back(static_cast<std::uint32_t>(g.targets.size()));
  }
  return g;
}

std::vector<Vertex> allVertices(const Parameter& param, std::size_t maxVertices) {
  return buildGraph(param, param.first(), maxVertices).vertices;
}

}  // namespace opevo
