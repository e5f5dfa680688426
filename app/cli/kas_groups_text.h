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

// Where the G a kernel file is fitted with comes from (`kas show`, `solve`, `tune`, `train`):
// another G gives other sizes and FLOPs.
inline std::string groupsFrom(std::int64_t fileGroups, std::int64_t given) {
  if (given) return "--groups";
  if (fileGroups) return "the file's, as sampled";
  return "the first that fits";
}

// For a kernel that does not fit: the G its file holds was the only one tried.
inline std::string sampledWith(std::int64_t fileGroups, std::int64_t given) {
  if (!fileGroups || given) return "";
  return " (tried with the file's G=" + std::to_string(fileGroups) +
         ", as sampled; --groups N tries another)";
}

}  // namespace opevo::cli
