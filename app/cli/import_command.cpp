#include <iostream>

#include "cli/commands.h"
#include "io/run_import.h"
#include "store/store.h"

namespace opevo::cli {
namespace {

struct ImportOptions {
  std::string file;
  std::string db;
};

}  // namespace

void addImportCommand(CLI::App& app) {
  auto options = std::make_shared<ImportOptions>();
  auto* cmd = app.add_subcommand(
      "import",
      "Store a measured file (T4 results or a Kernel Tuner cache, gzip or plain) as a finished "
      "run; prints the new run's id");
  cmd->add_option("file", options->file, "The T4 file or Kernel Tuner cache")->required();
  cmd->add_option("--db", options->db, "Database file (default: " + Store::defaultPath() + ")");
  cmd->callback([options] {
    Store store(options->db.empty() ? Store::defaultPath() : options->db);
    const ImportedRun run = importRun(store, options->file);
    // The id alone on stdout, so scripts can write id=$(opevo import FILE); the summary is for
    // the person at the terminal.
    std::cout << run.runId << "\n";
    std::cerr << "imported " << run.trials << " trials (" << run.format << ", "
              << (run.device.empty() ? std::string("device not named in the file") : run.device)
              << ", speed in " << run.speedUnit << ") as run " << run.runId << " of "
              << store.path() << "\n";
    for (const std::string& note : run.notes) std::cerr << "note: " << note << "\n";
  });
}

}  // namespace opevo::cli
