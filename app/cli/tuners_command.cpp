#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "space/text.h"
#include "tuners/joint_layout_tuner.h"
#include "tuners/registry.h"

namespace opevo::cli {
namespace {

nlohmann::json settingsJson(const TunerSettings& settings) {
  nlohmann::json out = nlohmann::json::array();
  for (const SettingInfo& s : settings.all())
    out.push_back({{"name", s.name},
                   {"value", s.value},
                   {"min", s.min},
                   {"max", s.max},
                   {"min_exclusive", s.minExclusive},
                   {"max_exclusive", s.maxExclusive},
                   {"integer", s.integer},
                   {"help", s.help}});
  return out;
}

// Every algorithm with its settings, for scripts and other front ends; beside them, the settings
// of the joint mode, which every algorithm takes with --mode joint.
nlohmann::json tunersJson() {
  const nlohmann::json joint = settingsJson(jointSettings());
  nlohmann::json out = nlohmann::json::array();
  for (const TunerInfo& t : tunerRegistry().all())
    out.push_back({{"name", t.name},
                   {"description", t.description},
                   {"default", t.isDefault},
                   {"settings", settingsJson(t.defaults())},
                   {"joint_mode_settings", joint}});
  return out;
}

// prefix: "opevo." for an algorithm's settings (--set takes "q" or "opevo.q"); empty for the
// joint mode's, whose names carry theirs ("joint.share").
void printSettings(const TunerSettings& settings, const std::string& prefix) {
  for (const SettingInfo& s : settings.all())
    std::printf("    %s%s = %s  [%s%s, %s%s]  %s\n", prefix.c_str(), s.name.c_str(),
                formatNumber(s.value).c_str(), s.minExclusive ? "(" : "",
                formatNumber(s.min).c_str(), formatNumber(s.max).c_str(), s.maxExclusive ? ")" : "",
                s.help.c_str());
}

void printTuners() {
  for (const TunerInfo& t : tunerRegistry().all()) {
    std::printf("%-11s %s%s\n", t.name.c_str(), t.description.c_str(),
                t.isDefault ? " (the default)" : "");
    printSettings(t.defaults(), t.name + ".");
  }
  std::printf(
      "\nWith --mode joint (layouts and loops tuned together, docs/layouts.md), every algorithm "
      "also takes:\n");
  printSettings(jointSettings(), "");
  std::printf(
      "\nChange a setting with --set algorithm.setting=value (or --set joint.share=0.5).\n");
}

}  // namespace

void addTunersCommand(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("tuners", "List the tuning algorithms and every setting they take");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json,
                "As JSON: name, description, default, settings, joint_mode_settings (those "
                "that apply with --mode joint)");
  cmd->callback([json] {
    if (*json)
      std::printf("%s\n", tunersJson().dump(2).c_str());
    else
      printTuners();
  });
}

}  // namespace opevo::cli
