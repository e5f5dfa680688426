#include "cli/net_cli.h"

#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "common/error.h"

namespace opevo::cli {

net::ParamOverrides paramOverrides(const std::vector<std::string>& texts) {
  net::ParamOverrides out;
  for (const std::string& t : texts) {
    auto [name, value] = net::parseParamOverride(t);
    // Two values for one param: neither wins quietly.
    if (const auto it = out.find(name); it != out.end())
      throw InputError("--param " + name + " is given twice (" + name + "=" +
                       std::to_string(it->second) + " and " + t + ")");
    out.emplace(std::move(name), value);
  }
  return out;
}

void announceBuild(const net::Network& n, const net::TaskGraph& g) {
  std::cerr << "building " << g.tasks.size() << " task kernels and the fixed kernels of " << n.name
            << " (one compiler run)...\n";
}

void printEndToEnd(const std::string& what, const net::EndToEnd& e, int runs) {
  std::printf(
      "%s: %.3f ms end to end (median of %d), tasks %.3f ms + layout conversions %.3f ms + "
      "fixed kernels %.3f ms measured one by one\n",
      what.c_str(), e.ms, runs, e.taskMs, e.convertMs, e.fixedMs);
  if (!e.deviceReference.empty())
    std::printf("on %s (NVRTC %.1f s); output against %s: %s (max relative error %.2g)\n",
                e.device.c_str(), e.compileSeconds, e.deviceReference.c_str(),
                e.verified ? "matches" : "DIFFERS", e.error);
  else if (const auto& r = e.reference.best)
    std::printf(
        "libtorch %s, %d threads: %.3f ms (best median of %zu processes); output %s (max relative "
        "error %.2g)\n",
        r->version.c_str(), r->threads, r->ms, e.reference.medians.size(),
        e.verified ? "matches" : "DIFFERS", e.error);
  else
    std::printf("%s\n", e.reference.missing.c_str());
}

CLI::Validator networkTemplateCheck() {
  return CLI::Validator(
      [](std::string& text) {
        try {
          net::parseTaskTemplates(text, "");  // CLI11 names the option
          return std::string();
        } catch (const InputError& e) {
          return std::string(e.what());
        }
      },
      "TEMPLATE");
}

void requireVerified(const net::EndToEnd& e) {
  if (!e.deviceReference.empty() && !e.verified)
    throw RunFailed("the network's output differs from " + e.deviceReference +
                    " (max relative error " + std::to_string(e.error) + ")");
  if (e.reference.best && !e.verified)
    throw RunFailed("the network's output differs from libtorch's (max relative error " +
                    std::to_string(e.error) + ")");
}

}  // namespace opevo::cli
