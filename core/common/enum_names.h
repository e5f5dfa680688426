#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace opevo {

// The stable text of each value of an enum: what files, the store and the command line show.
// The names, not the numbers, are what is written, so reordering an enum changes no file.
template <typename E, std::size_t N>
class EnumNames {
 public:
  constexpr explicit EnumNames(std::array<std::pair<E, std::string_view>, N> table)
      : m_table(table) {}

  constexpr std::string_view name(E value) const {
    for (const auto& [v, n] : m_table)
      if (v == value) return n;
    return "?";
  }
  constexpr std::optional<E> parse(std::string_view text) const {
    for (const auto& [v, n] : m_table)
      if (n == text) return v;
    return std::nullopt;
  }
  // "a, b or c", for messages that list what is accepted.
  std::string list() const {
    std::string out;
    for (std::size_t i = 0; i < N; ++i) {
      if (i > 0) out += i + 1 == N ? " or " : ", ";
      out += m_table[i].second;
    }
    return out;
  }
  // "'a','b','c'", for an SQL CHECK (column IN (...)) constraint.
  std::string sqlList() const {
    std::string out;
    for (std::size_t i = 0; i < N; ++i)
      out += (i ? ",'" : "'") + std::string(m_table[i].second) + "'";
    return out;
  }

 private:
  std::array<std::pair<E, std::string_view>, N> m_table;
};

}  // namespace opevo
