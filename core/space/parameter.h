#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/rng.h"
#include "space/count.h"

namespace opevo {

// One point of a parameter's feasible set. Factorization: the nu factors. Permutation: the order
// as indices 0..n-1. Discrete and categorical: the index of the value in the parameter's list.
using Vertex = std::vector<std::int64_t>;

enum class ParamKind { Factor, Perm, Discrete, Choice };

std::string_view kindName(ParamKind kind);

// A tunable parameter: its feasible set and the adjacency of the OpEvo paper's section 3. The
// set is never enumerated to take a step: neighbours are computed from the vertex alone.
class Parameter {
 public:
  explicit Parameter(std::string name) : m_name(std::move(name)) {}
  virtual ~Parameter() = default;

  const std::string& name() const { return m_name; }
  virtual ParamKind kind() const = 0;
  // The spec this parameter was made from, e.g. "factor:1024:4" (without the name).
  virtual std::string spec() const = 0;

  // Exact number of vertices.
  virtual Count size() const = 0;

  virtual std::string format(const Vertex& v) const = 0;
  // Throws InputError naming the text, the problem and the accepted form.
  virtual Vertex parse(std::string_view text) const = 0;
  virtual bool contains(const Vertex& v) const = 0;

  virtual Vertex random(Rng& rng) const = 0;
  // A fixed, simple vertex (the untiled loop for a factorization, the identity order, the first
  // value) used as the starting point of G-BFS and in examples.
  virtual Vertex first() const = 0;

  // Appends every neighbour of v to out (out is cleared first).
  virtual void neighbours(const Vertex& v, std::vector<Vertex>& out) const = 0;
  virtual std::size_t degree(const Vertex& v) const;
  // A uniformly chosen neighbour; v itself when v has none.
  virtual Vertex randomNeighbour(const Vertex& v, Rng& rng) const;

  // The value a tuner's cost model sees for this parameter: one number per component.
  virtual std::vector<double> features(const Vertex& v) const;

 private:
  std::string m_name;
};

using ParameterPtr = std::shared_ptr<const Parameter>;

}  // namespace opevo
