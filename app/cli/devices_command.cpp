#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "probe/backend_probe.h"

namespace opevo::cli {

void addDevicesCommand(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("devices", "List the measurement backends and devices found");
  cmd->add_flag("--json", *json, "Print one JSON object");
  cmd->callback([json] {
    const auto backends = probeBackends();
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& b : backends) {
        nlohmann::json devices = nlohmann::json::array();
        for (const auto& d : b.devices) devices.push_back({{"name", d.name}, {"detail", d.detail}});
        out.push_back({{"backend", b.name},
                       {"available", b.available},
                       {"library", b.library},
                       {"reason", b.reason},
                       {"devices", devices}});
      }
      std::cout << nlohmann::json{{"backends", out}, {"best", bestBackend(backends)}}.dump(2)
                << "\n";
      return;
    }
    for (const auto& b : backends) {
      std::printf("%-5s %s\n", b.name.c_str(),
                  b.available ? ("available (" + b.library + ")").c_str()
                              : ("not available: " + b.reason).c_str());
      for (const auto& d : b.devices)
        std::printf("      %s%s%s\n", d.name.c_str(), d.detail.empty() ? "" : ", ",
                    d.detail.c_str());
    }
    std::printf("best backend: %s\n", bestBackend(backends).c_str());
  });
}

}  // namespace opevo::cli
