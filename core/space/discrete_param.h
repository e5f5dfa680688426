#pragma once

#include "space/parameter.h"

namespace opevo {

// A finite set of numbers, sorted; adjacent values are neighbours (a path graph).
class DiscreteParam final : public Parameter {
 public:
  DiscreteParam(std::string name, std::vector<double> values);

  ParamKind kind() const override { return ParamKind::Discrete; }
  std::string spec() const override;
  Count size() const override { return Count(m_values.size()); }
  std::string format(const Vertex& v) const override;
  Vertex parse(std::string_view text) const override;
  bool contains(const Vertex& v) const override;
  Vertex random(Rng& rng) const override;
  Vertex first() const override { return {0}; }
  void neighbours(const Vertex& v, std::vector<Vertex>& out) const override;
  std::vector<double> features(const Vertex& v) const override { return {value(v)}; }

  const std::vector<double>& values() const { return m_values; }
  double value(const Vertex& v) const { return m_values[static_cast<std::size_t>(v[0])]; }
  // Index of value, or -1.
  std::int64_t indexOf(double value) const;

 private:
  std::vector<double> m_values;
};

}  // namespace opevo
