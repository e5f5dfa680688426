#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "space/text.h"
#include "tuners/registry.h"

namespace opevo::cli {
namespace {

// Every algorithm with its settings, for scripts and other front ends.
nlohmann::json tunersJson() {
  nlohmann::json out = nlohmann::json::array();
  for (const TunerInfo& t : tunerRegistry().all()) {
    nlohmann::json settings = nlohmann::json::array();
    const TunerSettings defaults = t.defaults();
    for (const SettingInfo& s : defaults.all())
      settings.push_back({{"name", s.name},
                          {"value", s.value},
                          {"min", s.min},
                          {"max", s.max},
                          {"min_exclusive", s.minExclusive},
                          {"max_exclusive", s.maxExclusive},
                          {"integer", s.integer},
                          {"help", s.help}});
    out.push_back({{"name", t.name},
                   {"description", t.description},
                   {"default", t.isDefault},
                   {"settings", settings}});
  }
  return out;
}

void printTuners() {
  for (const TunerInfo& t : tunerRegistry().all()) {
    std::printf("%-11s %s%s\n", t.name.c_str(), t.description.c_str(),
                t.isDefault ? " (the default)" : "");
    const TunerSettings defaults = t.defaults();  // all() refers into it
    for (const SettingInfo& s : defaults.all())
      std::printf("    %s.%s = %s  [%s%s, %s%s]  %s\n", t.name.c_str(), s.name.c_str(),
                  formatNumber(s.value).c_str(), s.minExclusive ? "(" : "",
                  formatNumber(s.min).c_str(), formatNumber(s.max).c_str(),
                  s.maxExclusive ? ")" : "", s.help.c_str());
  }
  std::printf("\nChange a setting with --set algorithm.setting=value.\n");
}

}  // namespace

void addTunersCommand(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("tuners", "List the tuning algorithms and every setting they take");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "As JSON: name, description, default, settings");
  cmd->callback([json] {
    if (*json)
      std::printf("%s\n", tunersJson().dump(2).c_str());
    else
      printTuners();
  });
}

}  // namespace opevo::cli
