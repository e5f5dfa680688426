#include "space/discrete_param.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "space/text.h"

namespace opevo {

DiscreteParam::DiscreteParam(std::string name, std::vector<double> values)
    : Parameter(std::move(name)), m_values(std::move(values)) {
  const std::string form = " (accepted form: discrete:v1,v2,..., distinct numbers, e.g. "
                           "discrete:0,512,1500)";
  if (m_values.empty())
    throw InputError("discrete parameter '" + this->name() + "' has no values" + form);
  std::sort(m_values.begin(), m_values.end());
  const auto dup = std::adjacent_find(m_values.begin(), m_values.end());
  if (dup != m_values.end())
    throw InputError("discrete parameter '" + this->name() + "' lists " + formatNumber(*dup) +
                     " twice" + form);
}

std::string DiscreteParam::spec() const {
  std::string s = "discrete:";
  for (std::size_t i = 0; i < m_values.size(); ++i) s.append(i ? "," : "").append(formatNumber(m_values[i]));
  return s;
}

std::string DiscreteParam::format(const Vertex& v) const { return formatNumber(value(v)); }

std::int64_t DiscreteParam::indexOf(double x) const {
  const auto it = std::lower_bound(m_values.begin(), m_values.end(), x);
  if (it != m_values.end() && *it == x) return it - m_values.begin();
  return -1;
}

Vertex DiscreteParam::parse(std::string_view text) const {
  double x = 0;
  const std::int64_t index = parseNumber(text, x) ? indexOf(x) : -1;
  if (index < 0) {
    std::string listed;
    for (std::size_t i = 0; i < m_values.size() && i < 12; ++i)
      listed += (i ? ", " : "") + formatNumber(m_values[i]);
    if (m_values.size() > 12) listed += ", ...";
    throw InputError("vertex '" + std::string(text) + "' of " + name() +
                     " is not one of its values (accepted: one of " + listed + ")");
  }
  return {index};
}

bool DiscreteParam::contains(const Vertex& v) const {
  return v.size() == 1 && v[0] >= 0 && v[0] < static_cast<std::int64_t>(m_values.size());
}

Vertex DiscreteParam::random(Rng& rng) const {
  return {static_cast<std::int64_t>(rng.below(m_values.size()))};
}

void DiscreteParam::neighbours(const Vertex& v, std::vector<Vertex>& out) const {
  out.clear();
  if (v[0] > 0) out.push_back({v[0] - 1});
  if (v[0] + 1 < static_cast<std::int64_t>(m_values.size())) out.push_back({v[0] + 1});
}

}  // namespace opevo
