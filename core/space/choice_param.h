#pragma once

#include "space/parameter.h"

namespace opevo {

// Unordered choices (e.g. unroll or not): every choice is adjacent to every other.
class ChoiceParam final : public Parameter {
 public:
  ChoiceParam(std::string name, std::vector<std::string> choices);

  ParamKind kind() const override { return ParamKind::Choice; }
  std::string spec() const override;
  Count size() const override { return Count(m_choices.size()); }
  std::string format(const Vertex& v) const override { return m_choices[v[0]]; }
  Vertex parse(std::string_view text) const override;
  bool contains(const Vertex& v) const override;
  Vertex random(Rng& rng) const override;
  Vertex first() const override { return {0}; }
  void neighbours(const Vertex& v, std::vector<Vertex>& out) const override;
  std::size_t degree(const Vertex&) const override { return m_choices.size() - 1; }
  Vertex randomNeighbour(const Vertex& v, Rng& rng) const override;

  const std::vector<std::string>& choices() const { return m_choices; }
  std::int64_t indexOf(std::string_view choice) const;

  // The choices of a spec's list ("a,b,..." after "choice:"), as spec() writes them: a choice that
  // holds a comma (a measured tuple such as "(1,16)") or a backslash has it escaped ("\,", "\\"),
  // so every choice reads back as it was.
  static std::vector<std::string> splitSpecList(std::string_view list);

 private:
  std::vector<std::string> m_choices;
};

}  // namespace opevo
