#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "space/parameter.h"

namespace opevo {

struct VertexHash {
  std::size_t operator()(const Vertex& v) const noexcept;
};

// A parameter's graph made explicit by breadth-first search from a start vertex: for the exact
// q-walk distribution, the GUI's picture and exhaustive enumeration. Only for small sets.
struct ParamGraph {
  std::vector<Vertex> vertices;         // BFS order; vertices[0] is the start
  std::vector<int> distance;            // hops from the start
  std::vector<std::uint32_t> offsets;   // CSR: neighbours of i are targets[offsets[i]..offsets[i+1])
  std::vector<std::uint32_t> targets;

  std::size_t size() const { return vertices.size(); }
  std::size_t degree(std::size_t i) const { return offsets[i + 1] - offsets[i]; }
  std::size_t edgeEnds() const { return targets.size(); }
};

inline constexpr std::size_t kMaxGraphVertices = 1'000'000;

// Throws InputError (naming the parameter, its size and the limit) when the set has more than
// maxVertices vertices, before building anything.
ParamGraph buildGraph(const Parameter& param, const Vertex& start,
                      std::size_t maxVertices = kMaxGraphVertices);

// Every vertex of a parameter (BFS from first()); same limit.
std::vector<Vertex> allVertices(const Parameter& param, std::size_t maxVertices);

}  // namespace opevo
