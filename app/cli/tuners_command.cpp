#include <cstdio>

#include "cli/commands.h"
#include "space/text.h"
#include "tuners/registry.h"

namespace opevo::cli {

void addTunersCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("tuners", "List the tuning algorithms and every setting they take");
  cmd->callback([] {
    for (const TunerInfo& t : tunerRegistry().all()) {
      std::printf("%-11s %s\n", t.name.c_str(), t.description.c_str());
      const TunerSettings defaults = t.defaults();  // all() refers into it
      for (const SettingInfo& s : defaults.all())
        std::printf("    %s.%s = %s  [%s%s, %s%s]  %s\n", t.name.c_str(), s.name.c_str(),
                    formatNumber(s.value).c_str(), s.minExclusive ? "(" : "",
                    formatNumber(s.min).c_str(), formatNumber(s.max).c_str(),
                    s.maxExclusive ? ")" : "", s.help.c_str());
    }
    std::printf("\nChange a setting with --set algorithm.setting=value.\n");
  });
}

}  // namespace opevo::cli
