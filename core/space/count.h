#pragma once

#include <cstdint>
#include <string>

namespace opevo {

// Exact size of a feasible set or search space. Sizes such as 25! do not fit in 64 bits, so the
// count is 128-bit and saturates (flagged) rather than wrapping.
class Count {
 public:
  Count() = default;
  Count(unsigned __int128 value) : m_value(value) {}  // NOLINT: implicit from integers is handy

  static Count saturated() {
    Count c(~static_cast<unsigned __int128>(0));
    c.m_overflow = true;
    return c;
  }

  bool overflow() const { return m_overflow; }
  unsigned __int128 value() const { return m_value; }
  bool fitsIn64() const { return !m_overflow && (m_value >> 64) == 0; }
  std::uint64_t as64() const { return static_cast<std::uint64_t>(m_value); }
  double approx() const { return static_cast<double>(m_value); }

  Count operator*(const Count& other) const;
  bool operator<=(std::uint64_t limit) const { return !m_overflow && m_value <= limit; }
  bool operator==(const Count& other) const = default;

  // Decimal digits, or "more than 3.4e38" when saturated.
  std::string toString() const;

 private:
  unsigned __int128 m_value = 0;
  bool m_overflow = false;
};

Count binomial(std::uint64_t n, std::uint64_t k);
Count factorial(std::uint64_t n);

}  // namespace opevo
