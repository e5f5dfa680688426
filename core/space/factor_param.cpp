#include "space/factor_param.h"

#include <algorithm>

#include "common/error.h"
#include "space/text.h"

namespace opevo {

std::vector<std::pair<std::int64_t, int>> primeFactorization(std::int64_t n) {
  std::vector<std::pair<std::int64_t, int>> result;
  for (std::int64_t p = 2; p * p <= n; p += (p == 2 ? 1 : 2)) {
    int e = 0;
    while (n % p == 0) {
      n /= p;
      ++e;
    }
    if (e > 0) result.emplace_back(p, e);
  }
  if (n > 1) result.emplace_back(n, 1);
  return result;
}

FactorParam::FactorParam(std::string name, std::int64_t product, int parts)
    : Parameter(std::move(name)), m_product(product), m_parts(parts) {
  if (product < 1 || product > kMaxProduct)
    throw InputError("factor parameter '" + this->name() + "': C must be an integer from 1 to " +
                     std::to_string(kMaxProduct) + ", got " + std::to_string(product) +
                     " (accepted form: factor:C:nu, e.g. factor:1024:4)");
  if (parts < 1 || parts > kMaxParts)
    throw InputError("factor parameter '" + this->name() + "': nu must be an integer from 1 to " +
                     std::to_string(kMaxParts) + ", got " + std::to_string(parts) +
                     " (accepted form: factor:C:nu, e.g. factor:1024:4)");
  m_primes = primeFactorization(product);
}

FactorParam::FactorParam(std::string name, std::int64_t product, int parts, Vertex only)
    : FactorParam(std::move(name), product, parts) {
  if (!factorizes(only))
    throw InputError("factor parameter '" + this->name() + "': " + joinIntegers(only) +
                     " is not a split of " + std::to_string(product) + " into " +
                     std::to_string(parts) + " factors (accepted form: factor:C:nu=v1,...,vnu, " +
                     "e.g. factor:64:2=4,16)");
  m_pinned = std::move(only);
}

std::string FactorParam::spec() const {
  const std::string base = "factor:" + std::to_string(m_product) + ":" + std::to_string(m_parts);
  return m_pinned ? base + "=" + joinIntegers(*m_pinned) : base;
}

Count FactorParam::size() const {
  if (m_pinned) return Count(1);
  // Each prime power p^e is spread over nu positions independently: C(e+nu-1, nu-1) ways.
  Count total(1);
  for (const auto& [p, e] : m_primes) total = total * binomial(e + m_parts - 1, m_parts - 1);
  return total;
}

std::string FactorParam::format(const Vertex& v) const { return joinIntegers(v); }

Vertex FactorParam::parse(std::string_view text) const {
  const std::string form = "accepted form: " + std::to_string(m_parts) +
                           " positive integers separated by commas whose product is " +
                           std::to_string(m_product) + ", e.g. " + format(first());
  Vertex v;
  if (!parseIntegers(text, v))
    throw InputError("vertex '" + std::string(text) + "' of " + name() +
                     " is not a list of integers (" + form + ")");
  if (static_cast<int>(v.size()) != m_parts)
    throw InputError("vertex '" + std::string(text) + "' of " + name() + " has " +
                     std::to_string(v.size()) + " parts, not " + std::to_string(m_parts) + " (" +
                     form + ")");
  if (!factorizes(v))
    throw InputError("vertex '" + std::string(text) + "' of " + name() +
                     " is not a factorization of " + std::to_string(m_product) + " (" + form + ")");
  if (!contains(v))
    throw InputError("vertex '" + std::string(text) + "' of " + name() + " is not its one split " +
                     format(*m_pinned) + " (the parameter is pinned: " + spec() + ")");
  return v;
}

bool FactorParam::contains(const Vertex& v) const {
  return factorizes(v) && (!m_pinned || v == *m_pinned);
}

bool FactorParam::factorizes(const Vertex& v) const {
  if (static_cast<int>(v.size()) != m_parts) return false;
  std::int64_t rest = m_product;
  for (std::int64_t f : v) {
    if (f < 1 || rest % f != 0) return false;
    rest /= f;
  }
  return rest == 1;
}

Vertex FactorParam::random(Rng& rng) const {
  if (m_pinned) return *m_pinned;
  Vertex v(m_parts, 1);
  std::vector<std::int64_t> bars;
  for (const auto& [p, e] : m_primes) {
    // A uniform composition of e into nu parts: nu-1 bars among e+nu-1 slots (Floyd's sampling).
    const std::int64_t slots = e + m_parts - 1;
    bars.clear();
    for (std::int64_t j = slots - (m_parts - 1); j < slots; ++j) {
      const auto t = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(j + 1)));
      bars.push_back(std::find(bars.begin(), bars.end(), t) == bars.end() ? t : j);
    }
    std::sort(bars.begin(), bars.end());
    std::int64_t previous = -1;
    for (int part = 0; part < m_parts; ++part) {
      const std::int64_t end = part + 1 < m_parts ? bars[part] : slots;
      for (std::int64_t k = 0; k < end - previous - 1; ++k) v[part] *= p;
      previous = end;
    }
  }
  return v;
}

Vertex FactorParam::first() const {
  if (m_pinned) return *m_pinned;
  Vertex v(m_parts, 1);
  v[0] = m_product;
  return v;
}

void FactorParam::neighbours(const Vertex& v, std::vector<Vertex>& out) const {
  out.clear();
  if (m_pinned) return;
  for (int from = 0; from < m_parts; ++from) {
    for (const auto& [p, e] : m_primes) {
      if (v[from] % p != 0) continue;
      for (int to = 0; to < m_parts; ++to) {
        if (to == from) continue;
        Vertex u = v;
        u[from] /= p;
        u[to] *= p;
        out.push_back(std::move(u));
      }
    }
  }
}

std::size_t FactorParam::degree(const Vertex& v) const {
  if (m_pinned) return 0;
  std::size_t movable = 0;
  for (int from = 0; from < m_parts; ++from)
    for (const auto& pe : m_primes) movable += (v[from] % pe.first == 0);
  return movable * static_cast<std::size_t>(m_parts - 1);
}

Vertex FactorParam::randomNeighbour(const Vertex& v, Rng& rng) const {
  const std::size_t d = degree(v);
  if (d == 0) return v;
  // Pick the k-th (position, prime) move without materialising the neighbour list.
  std::size_t k = rng.below(d / static_cast<std::size_t>(m_parts - 1));
  for (int from = 0; from < m_parts; ++from) {
    for (const auto& pe : m_primes) {
      if (v[from] % pe.first != 0) continue;
      if (k-- != 0) continue;
      int to = static_cast<int>(rng.below(static_cast<std::uint64_t>(m_parts - 1)));
      if (to >= from) ++to;
      Vertex u = v;
      u[from] /= pe.first;
      u[to] *= pe.first;
      return u;
    }
  }
  return v;  // unreachable: k < number of movable (position, prime) pairs
}

}  // namespace opevo
