#include "space/choice_param.h"

#include <algorithm>

#include "common/error.h"
#include "space/text.h"

namespace opevo {

ChoiceParam::ChoiceParam(std::string name, std::vector<std::string> choices)
    : Parameter(std::move(name)), m_choices(std::move(choices)) {
  const std::string form = " (accepted form: choice:a,b,..., distinct names, e.g. choice:0,1)";
  if (m_choices.empty())
    throw InputError("choice parameter '" + this->name() + "' has no choices" + form);
  for (std::size_t i = 0; i < m_choices.size(); ++i) {
    if (m_choices[i].empty())
      throw InputError("choice parameter '" + this->name() + "' has an empty choice" + form);
    for (std::size_t j = 0; j < i; ++j)
      if (m_choices[i] == m_choices[j])
        throw InputError("choice parameter '" + this->name() + "' lists '" + m_choices[i] +
                         "' twice" + form);
  }
}

std::string ChoiceParam::spec() const {
  std::string s = "choice:";
  for (std::size_t i = 0; i < m_choices.size(); ++i) {
    if (i) s += ',';
    for (char ch : m_choices[i]) {
      if (ch == ',' || ch == '\\') s += '\\';
      s += ch;
    }
  }
  return s;
}

std::vector<std::string> ChoiceParam::splitSpecList(std::string_view list) {
  std::vector<std::string> out;
  if (trim(list).empty()) return out;
  std::string item;
  for (std::size_t i = 0; i <= list.size(); ++i) {
    if (i == list.size() || list[i] == ',') {
      out.emplace_back(trim(item));
      item.clear();
    } else if (list[i] == '\\' && i + 1 < list.size()) {
      item += list[++i];
    } else {
      item += list[i];
    }
  }
  return out;
}

std::int64_t ChoiceParam::indexOf(std::string_view choice) const {
  const auto it = std::find(m_choices.begin(), m_choices.end(), choice);
  return it == m_choices.end() ? -1 : it - m_choices.begin();
}

Vertex ChoiceParam::parse(std::string_view text) const {
  std::int64_t index = indexOf(text);
  // A choice holding a comma is written a\,b in its spec; the same escaped text names it.
  if (index < 0 && text.find('\\') != std::string_view::npos) {
    std::string unescaped;
    for (std::size_t i = 0; i < text.size(); ++i)
      unescaped += text[i] == '\\' && i + 1 < text.size() ? text[++i] : text[i];
    index = indexOf(unescaped);
  }
  if (index < 0) {
    // Quoted: a choice may hold a comma or a space, and a bare list would not tell them apart.
    std::string listed;
    for (std::size_t i = 0; i < m_choices.size(); ++i)
      listed += (i ? ", '" : "'") + m_choices[i] + "'";
    throw InputError("vertex '" + std::string(text) + "' of " + name() +
                     " is not one of its choices (accepted: one of " + listed + ")");
  }
  return {index};
}

bool ChoiceParam::contains(const Vertex& v) const {
  return v.size() == 1 && v[0] >= 0 && v[0] < static_cast<std::int64_t>(m_choices.size());
}

Vertex ChoiceParam::random(Rng& rng) const {
  return {static_cast<std::int64_t>(rng.below(m_choices.size()))};
}

void ChoiceParam::neighbours(const Vertex& v, std::vector<Vertex>& out) const {
  out.clear();
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(m_choices.size()); ++i)
    if (i != v[0]) out.push_back({i});
}

Vertex ChoiceParam::randomNeighbour(const Vertex& v, Rng& rng) const {
  if (m_choices.size() < 2) return v;
  auto i = static_cast<std::int64_t>(rng.below(m_choices.size() - 1));
  if (i >= v[0]) ++i;
  return {i};
}

}  // namespace opevo
