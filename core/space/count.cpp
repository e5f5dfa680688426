#include "space/count.h"

#include <algorithm>

namespace opevo {

Count Count::operator*(const Count& other) const {
  if (m_overflow || other.m_overflow) return saturated();
  if (m_value == 0 || other.m_value == 0) return Count(0);
  const unsigned __int128 limit = ~static_cast<unsigned __int128>(0);
  if (m_value > limit / other.m_value) return saturated();
  return Count(m_value * other.m_value);
}

std::string Count::toString() const {
  if (m_overflow) return "more than 3.4e38";
  if (m_value == 0) return "0";
  std::string digits;
  for (unsigned __int128 v = m_value; v > 0; v /= 10) digits.push_back(char('0' + int(v % 10)));
  std::reverse(digits.begin(), digits.end());
  return digits;
}

Count binomial(std::uint64_t n, std::uint64_t k) {
  if (k > n) return Count(0);
  k = std::min(k, n - k);
  // C(n, i) = C(n, i-1) * (n-k+i) / i stays integral at every step.
  unsigned __int128 result = 1;
  const unsigned __int128 limit = ~static_cast<unsigned __int128>(0);
  for (std::uint64_t i = 1; i <= k; ++i) {
    const std::uint64_t factor = n - k + i;
    if (result > limit / factor) return Count::saturated();
    result = result * factor / i;
  }
  return Count(result);
}

Count factorial(std::uint64_t n) {
  Count result(1);
  for (std::uint64_t i = 2; i <= n && !result.overflow(); ++i) result = result * Count(i);
  return result;
}

}  // namespace opevo
