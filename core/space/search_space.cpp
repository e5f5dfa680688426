#include "space/search_space.h"

#include <stdexcept>

#include "common/error.h"
#include "space/text.h"

namespace opevo {

std::size_t ConfigHash::operator()(const Config& c) const noexcept {
  std::size_t h = 0x9e3779b97f4a7c15ull;
  for (const Vertex& v : c) {
    for (std::int64_t x : v) h = (h ^ static_cast<std::size_t>(x)) * 0x100000001b3ull + (h >> 29);
    h = h * 31 + 7;
  }
  return h;
}

void SearchSpace::add(ParameterPtr parameter) {
  if (indexOf(parameter->name()) >= 0)
    throw InputError("search space has two parameters named '" + parameter->name() + "'");
  m_params.push_back(std::move(parameter));
}

void SearchSpace::replace(std::size_t i, ParameterPtr parameter) {
  if (i >= m_params.size() || parameter->name() != m_params[i]->name())
    throw std::invalid_argument("search space: a parameter is replaced by one of its name only");
  m_params[i] = std::move(parameter);
  if (const auto it = m_whenAbsent.find(i);
      it != m_whenAbsent.end() && !m_params[i]->contains(it->second))
    m_whenAbsent.erase(it);
  if (m_start && (!contains(*m_start) || !satisfies(*m_start))) m_start.reset();
}

void SearchSpace::addConstraint(std::string description, std::function<bool(const Config&)> holds) {
  m_constraints.push_back({std::move(description), std::move(holds)});
}

void SearchSpace::setExplicitPoints(std::vector<Config> points, std::string description) {
  auto explicitPoints = std::make_shared<ExplicitPoints>();
  explicitPoints->set.insert(points.begin(), points.end());
  explicitPoints->list = std::move(points);
  m_points = explicitPoints;
  addConstraint(std::move(description),
                [explicitPoints](const Config& c) { return explicitPoints->set.count(c) > 0; });
}

void SearchSpace::setStartPoint(Config start) {
  std::string broken;
  if (!contains(start) || !satisfies(start, &broken))
    throw std::invalid_argument("start point " +
                                (start.size() == dims() ? format(start) : std::string("?")) +
                                " is not in the space" + (broken.empty() ? "" : ": " + broken));
  m_start = std::move(start);
}

void SearchSpace::setValueWhenAbsent(std::string_view name, Vertex value) {
  const int i = indexOf(name);
  if (i < 0)
    throw std::invalid_argument("value when absent: the space has no parameter '" +
                                std::string(name) + "'");
  if (!m_params[std::size_t(i)]->contains(value))
    throw std::invalid_argument("value when absent: not a value of '" + std::string(name) + "'");
  m_whenAbsent[std::size_t(i)] = std::move(value);
}

const Vertex* SearchSpace::valueWhenAbsent(std::size_t i) const {
  const auto it = m_whenAbsent.find(i);
  return it == m_whenAbsent.end() ? nullptr : &it->second;
}

int SearchSpace::indexOf(std::string_view name) const {
  for (std::size_t i = 0; i < m_params.size(); ++i)
    if (m_params[i]->name() == name) return static_cast<int>(i);
  return -1;
}

Count SearchSpace::size() const {
  Count total(1);
  for (const auto& p : m_params) total = total * p->size();
  return total;
}

bool SearchSpace::contains(const Config& c) const {
  if (c.size() != m_params.size()) return false;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (!m_params[i]->contains(c[i])) return false;
  return true;
}

bool SearchSpace::satisfies(const Config& c, std::string* broken) const {
  for (const Constraint& constraint : m_constraints) {
    if (!constraint.holds(c)) {
      if (broken) *broken = constraint.description;
      return false;
    }
  }
  return true;
}

std::string SearchSpace::format(const Config& c) const {
  std::string s;
  for (std::size_t i = 0; i < m_params.size(); ++i) {
    if (i) s += "; ";
    s += m_params[i]->name() + "=" + m_params[i]->format(c[i]);
  }
  return s;
}

Config SearchSpace::parse(std::string_view text) const {
  Config c(m_params.size());
  std::vector<bool> seen(m_params.size(), false);
  for (const std::string& item : splitList(text, ';')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw InputError("configuration item '" + item +
                       "' has no '=' (accepted form: name=vertex; name=vertex; ..., e.g. " +
                       format(first()) + ")");
    const std::string name(trim(std::string_view(item).substr(0, eq)));
    const int index = indexOf(name);
    if (index < 0) throw InputError("configuration names unknown parameter '" + name + "'");
    // The last value winning would tune or build something other than what one of them says.
    if (seen[index])
      throw InputError("configuration names parameter '" + name + "' twice (give it once)");
    c[index] = m_params[index]->parse(std::string_view(item).substr(eq + 1));
    seen[index] = true;
  }
  for (std::size_t i = 0; i < m_params.size(); ++i)
    if (!seen[i] && valueWhenAbsent(i))
      c[i] = *valueWhenAbsent(i);
    else if (!seen[i])
      throw InputError("configuration lacks parameter '" + m_params[i]->name() +
                       "' (accepted form: " + format(first()) + ")");
  return c;
}

Config SearchSpace::random(Rng& rng) const {
  Config c;
  c.reserve(m_params.size());
  for (const auto& p : m_params) c.push_back(p->random(rng));
  return c;
}

std::optional<Config> SearchSpace::randomValid(Rng& rng, int maxTries) const {
  if (m_points) {
    // Draw from the list; other constraints may still reject a point.
    for (int i = 0; i < maxTries && !m_points->list.empty(); ++i) {
      const Config& c = m_points->list[rng.below(m_points->list.size())];
      if (satisfies(c)) return c;
    }
    return std::nullopt;
  }
  for (int i = 0; i < maxTries; ++i) {
    Config c = random(rng);
    if (satisfies(c)) return c;
  }
  return std::nullopt;
}

Config SearchSpace::first() const {
  Config c;
  for (const auto& p : m_params) c.push_back(p->first());
  return c;
}

std::vector<double> SearchSpace::features(const Config& c) const {
  std::vector<double> out;
  for (std::size_t i = 0; i < m_params.size(); ++i) {
    const auto f = m_params[i]->features(c[i]);
    out.insert(out.end(), f.begin(), f.end());
  }
  return out;
}

}  // namespace opevo
