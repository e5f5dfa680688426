#pragma once

#include <cstdint>
#include <random>

namespace opevo {

// Seeded generator with our own integer/real draws: std::uniform_*_distribution differ between
// standard libraries, and a run must replay identically from its seed everywhere.
class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0) : m_engine(seed) {}

  std::uint64_t next() { return m_engine(); }

  // Uniform in [0, n), n > 0, without modulo bias (Lemire's multiply-and-reject).
  std::uint64_t below(std::uint64_t n) {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(next()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  bool chance(double p) { return uniform() < p; }

 private:
  std::mt19937_64 m_engine;
};

}  // namespace opevo
