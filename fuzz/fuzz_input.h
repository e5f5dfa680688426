#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace opevo::fuzz {

// The fuzzer's bytes as JSON, as a file would be read; nullopt for text that is not JSON (which
// the readers refuse before anything of ours runs).
inline std::optional<nlohmann::json> jsonOf(const std::uint8_t* data, std::size_t size) {
  nlohmann::json j =
      nlohmann::json::parse(std::string(reinterpret_cast<const char*>(data), size), nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

}  // namespace opevo::fuzz
