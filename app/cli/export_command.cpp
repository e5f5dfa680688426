#include <cstdio>

#include "cli/commands.h"
#include "export/kernel_export.h"
#include "store/store.h"

namespace opevo::cli {

void addExportCommand(CLI::App& app) {
  auto id = std::make_shared<std::int64_t>(0);
  auto options = std::make_shared<ExportOptions>();
  auto db = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("export",
                                 "Export a run's best kernel as standalone, self-checking source");
  cmd->add_option("run", *id, "Run id (see opevo runs)")->required();
  cmd->add_option("--out", options->outDir,
                  "Output directory: new, or holding no earlier export (see --force)")
      ->required();
  cmd->add_option("--backend", options->backend,
                  "Source for cpu, cuda or hip (default: the run's)");
  cmd->add_flag("--force", options->overwrite,
                "Replace the files of an earlier export in --out (refused without it)");
  cmd->add_option("--db", *db, "Database file (default: " + Store::defaultPath() + ")");
  cmd->callback([id, options, db] {
    const Store store(existingDatabase(*db), Store::Opening::ExistingOnly);
    ExportResult r;
    try {
      r = exportRun(store, *id, *options);
    } catch (const ExistingExportError& e) {
      throw InputError(std::string(e.what()) +
                       "; export into another folder, or add --force to replace them");
    }
    std::printf("exported %s\n", r.exported.c_str());
    for (const std::string& f : r.files) std::printf("wrote %s\n", f.c_str());
    if (!r.note.empty()) std::printf("%s\n", r.note.c_str());
    if (!r.buildCommand.empty())
      std::printf("build and check: cd %s && %s\n", options->outDir.c_str(),
                  r.buildCommand.c_str());
  });
}

}  // namespace opevo::cli
