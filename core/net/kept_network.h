#pragma once

// The network `net tune` kept on the CPU once its untuned configurations ran end to end
// (gpu/net/chain_choice.h chooses it): named in the stored result, read back by `net runs` and
// written out by `net export`.

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opevo::net {

enum class NetworkChoice { Tuned, Mixed, Untuned };
std::string_view networkChoiceName(NetworkChoice choice);
std::optional<NetworkChoice> parseNetworkChoice(std::string_view name);

struct KeptNetwork {
  NetworkChoice choice = NetworkChoice::Tuned;
  // Unless tuned, one per task as net::formatTaskConfig writes it (result "chosen_configs").
  std::vector<std::string> configs;
};

// From a stored result's "chosen" and "chosen_configs"; none where it names no choice (the
// untuned configurations did not run). Throws InputError naming `where` for an unknown choice,
// or one other than tuned without its configurations.
std::optional<KeptNetwork> keptNetworkFromResult(const nlohmann::json& result,
                                                 const std::string& where);

}  // namespace opevo::net
