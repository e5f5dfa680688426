#include "space/perm_param.h"

#include <numeric>
#include <utility>

#include "common/error.h"
#include "space/text.h"

namespace opevo {

PermParam::PermParam(std::string name, int items) : Parameter(std::move(name)), m_items(items) {
  if (items < 1 || items > kMaxItems)
    throw InputError("permutation parameter '" + this->name() +
                     "': n must be an integer from 1 to " + std::to_string(kMaxItems) +
                     ", got " + std::to_string(items) + " (accepted form: perm:n, e.g. perm:4)");
}

std::string PermParam::format(const Vertex& v) const { return joinIntegers(v); }

Vertex PermParam::parse(std::string_view text) const {
  Vertex v;
  if (!parseIntegers(text, v) || !contains(v))
    throw InputError("vertex '" + std::string(text) + "' of " + name() +
                     " is not a permutation (accepted form: each of 0.." +
                     std::to_string(m_items - 1) + " once, separated by commas, e.g. " +
                     format(first()) + ")");
  return v;
}

bool PermParam::contains(const Vertex& v) const {
  if (static_cast<int>(v.size()) != m_items) return false;
  std::vector<bool> seen(m_items, false);
  for (std::int64_t x : v) {
    if (x < 0 || x >= m_items || seen[x]) return false;
    seen[x] = true;
  }
  return true;
}

Vertex PermParam::random(Rng& rng) const {
  Vertex v = first();
  for (int i = m_items - 1; i > 0; --i)
    std::swap(v[i], v[rng.below(static_cast<std::uint64_t>(i + 1))]);
  return v;
}

Vertex PermParam::first() const {
  Vertex v(m_items);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

void PermParam::neighbours(const Vertex& v, std::vector<Vertex>& out) const {
  out.clear();
  for (int i = 0; i < m_items; ++i)
    for (int j = i + 1; j < m_items; ++j) {
      out.push_back(v);
      std::swap(out.back()[i], out.back()[j]);
    }
}

std::size_t PermParam::degree(const Vertex&) const {
  return static_cast<std::size_t>(m_items) * (m_items - 1) / 2;
}

Vertex PermParam::randomNeighbour(const Vertex& v, Rng& rng) const {
  if (m_items < 2) return v;
  // An ordered pair (i, j), i != j, uniformly: each unordered swap comes up twice, so uniform too.
  const auto i = rng.below(static_cast<std::uint64_t>(m_items));
  auto j = rng.below(static_cast<std::uint64_t>(m_items - 1));
  if (j >= i) ++j;
  Vertex u = v;
  std::swap(u[i], u[j]);
  return u;
}

}  // namespace opevo
