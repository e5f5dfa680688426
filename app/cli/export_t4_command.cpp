#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/error.h"
#include "io/t4_export.h"
#include "store/store.h"

namespace opevo::cli {
namespace {

struct ExportOptions {
  std::int64_t run = 0;
  std::string out;
  std::string db;
};

}  // namespace

void addExportT4Command(CLI::App& app) {
  auto options = std::make_shared<ExportOptions>();
  auto* cmd = app.add_subcommand(
      "export-t4",
      "Write a stored run as a T4 results file (gzip-compressed when FILE ends in .gz)");
  cmd->add_option("run", options->run, "The run's id")->required();
  cmd->add_option("--out", options->out, "The T4 file to write")->required();
  cmd->add_option("--db", options->db, "Database file (default: " + Store::defaultPath() + ")");
  cmd->callback([options] {
    const Store store(existingDatabase(options->db), Store::Opening::ExistingOnly);
    std::vector<std::string> notes;
    const std::size_t results = exportRunT4(store, options->run, options->out, &notes);
    for (const std::string& note : notes) std::cerr << "warning: " << note << "\n";
    std::cout << "wrote " << results << " results of run " << options->run << " to " << options->out
              << "\n";
  });
}

}  // namespace opevo::cli
