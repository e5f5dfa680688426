#include "net/kept_network.h"

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace opevo::net {

std::string_view networkChoiceName(NetworkChoice choice) {
  switch (choice) {
    case NetworkChoice::Tuned:
      return "tuned";
    case NetworkChoice::Mixed:
      return "mixed";
    case NetworkChoice::Untuned:
      return "untuned";
  }
  return "tuned";
}

std::optional<NetworkChoice> parseNetworkChoice(std::string_view name) {
  for (NetworkChoice c : {NetworkChoice::Tuned, NetworkChoice::Mixed, NetworkChoice::Untuned})
    if (networkChoiceName(c) == name) return c;
  return std::nullopt;
}

std::optional<KeptNetwork> keptNetworkFromResult(const nlohmann::json& result,
                                                 const std::string& where) {
  const auto chosen = result.find("chosen");
  if (chosen == result.end()) return std::nullopt;
  const std::optional<NetworkChoice> choice =
      chosen->is_string() ? parseNetworkChoice(chosen->get<std::string>()) : std::nullopt;
  if (!choice)
    throw InputError(where + "'s stored result keeps an unknown network " + chosen->dump() +
                     " (tuned, mixed or untuned)");
  KeptNetwork kept{*choice, {}};
  if (const auto c = result.find("chosen_configs"); c != result.end() && c->is_array())
    for (const nlohmann::json& text : *c)
      if (text.is_string()) kept.configs.push_back(text.get<std::string>());
  if (kept.choice != NetworkChoice::Tuned && kept.configs.empty())
    throw InputError(where + "'s stored result keeps the " +
                     std::string(networkChoiceName(kept.choice)) +
                     " network without its configurations (chosen_configs)");
  return kept;
}

}  // namespace opevo::net
