#pragma once

#include <cstdint>
#include <string>

namespace opevo::cli {

// Which setting decides the group count G that `kas sample` and `kas search` give a kernel: the
// same seed and budget give a kernel the same G (and FLOPs share) in both; another seed may draw
// another G for it.
inline std::string groupsSource(std::int64_t groups, std::uint64_t seed) {
  if (groups > 0) return "G=" + std::to_string(groups) + " for every kernel (--groups)";
  return "G drawn per kernel by --seed " + std::to_string(seed) + " (--groups fixes it)";
}

}  // namespace opevo::cli
