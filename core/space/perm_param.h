#pragma once

#include "space/parameter.h"

namespace opevo {

// Orders of n items (e.g. nested loops). Adjacent: one transposition apart. n! vertices, so a step
// must never look beyond the n(n-1)/2 swaps of the current order.
class PermParam final : public Parameter {
 public:
  static constexpr int kMaxItems = 1000;

  PermParam(std::string name, int items);

  ParamKind kind() const override { return ParamKind::Perm; }
  std::string spec() const override { return "perm:" + std::to_string(m_items); }
  Count size() const override { return factorial(static_cast<std::uint64_t>(m_items)); }
  std::string format(const Vertex& v) const override;
  Vertex parse(std::string_view text) const override;
  bool contains(const Vertex& v) const override;
  Vertex random(Rng& rng) const override;
  Vertex first() const override;
  void neighbours(const Vertex& v, std::vector<Vertex>& out) const override;
  std::size_t degree(const Vertex&) const override;
  Vertex randomNeighbour(const Vertex& v, Rng& rng) const override;

  int items() const { return m_items; }

 private:
  int m_items;
};

}  // namespace opevo
