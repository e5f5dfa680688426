#pragma once

#include <optional>
#include <utility>

#include "space/parameter.h"

namespace opevo {

// Ordered nu-tuples of positive integers whose product is C (a loop of length C split into nu
// nested loops). Adjacent: one prime factor of C moved from one position to another.
//
// A pinned factorization has one vertex only: the same loop, its split fixed by something outside
// the operator (a network task whose output layout an earlier task chose). It stays a
// factorization of C, so whatever reads the split (templates, cost-model features) reads it as
// before, and tuners never propose another split since there is none. Spec: factor:C:nu=v1,...
class FactorParam final : public Parameter {
 public:
  // Largest loop length accepted: trial division must stay fast.
  static constexpr std::int64_t kMaxProduct = std::int64_t(1) << 50;
  static constexpr int kMaxParts = 64;

  FactorParam(std::string name, std::int64_t product, int parts);
  // Pinned to `only`; throws InputError naming the parameter when `only` is no factorization of
  // product into parts.
  FactorParam(std::string name, std::int64_t product, int parts, Vertex only);

  ParamKind kind() const override { return ParamKind::Factor; }
  std::string spec() const override;
  Count size() const override;
  std::string format(const Vertex& v) const override;
  Vertex parse(std::string_view text) const override;
  bool contains(const Vertex& v) const override;
  Vertex random(Rng& rng) const override;
  Vertex first() const override;
  void neighbours(const Vertex& v, std::vector<Vertex>& out) const override;
  std::size_t degree(const Vertex& v) const override;
  Vertex randomNeighbour(const Vertex& v, Rng& rng) const override;

  std::int64_t product() const { return m_product; }
  int parts() const { return m_parts; }
  // C's prime factorization as (prime, exponent), primes ascending.
  const std::vector<std::pair<std::int64_t, int>>& primes() const { return m_primes; }

 private:
  std::int64_t m_product;
  int m_parts;
  std::vector<std::pair<std::int64_t, int>> m_primes;
  std::optional<Vertex> m_pinned;

  bool factorizes(const Vertex& v) const;
};

std::vector<std::pair<std::int64_t, int>> primeFactorization(std::int64_t n);

}  // namespace opevo
