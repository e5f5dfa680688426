#include <iostream>

#include "backends/backend_factory.h"
#include "cli/commands.h"
#include "common/error.h"
#include "io/run_import.h"
#include "io/run_restore.h"
#include "io/shipped_path.h"
#include "ops/operator_json.h"
#include "store/store.h"

namespace opevo::cli {
namespace {

struct ImportOptions {
  std::string file;
  std::string db;
  bool restore = false;
  std::string op;
  std::optional<std::uint64_t> seed;
  bool copy = false;
};

void restore(const ImportOptions& o) {
  RestoreOptions options;
  options.seed = o.seed;
  if (!o.op.empty()) {
    // As `opevo tune --op` stores it: the preset or file with its backend's space.
    options.operatorFor = [op = o.op](const std::string& backend) {
      return operatorDefinitionToJson(runDefinition(backend, loadOperator(op))).dump();
    };
    options.operatorName = loadOperator(o.op).op.name;
  }
  // Read and checked first: a bad file leaves no database behind where there was none.
  RunWithTrials read = readRestoreFile(o.file, options);
  Store store(o.db.empty() ? Store::defaultPath() : o.db);
  const RestoredRun r =
      storeRestoredRun(store, std::move(read), o.copy, "--copy stores it again as another run");
  std::cout << r.runId << "\n";
  std::cerr << "restored run " << r.runId << " of " << store.path() << ": " << r.run.operatorName
            << ", " << r.run.algorithm << ", seed " << r.run.seed << ", " << r.run.backend << " ("
            << (r.run.device.empty() ? std::string("device not named") : r.run.device) << "), "
            << r.trials << " trials, " << runStatusName(r.run.status) << "\n";
}

}  // namespace

void addImportCommand(CLI::App& app) {
  auto options = std::make_shared<ImportOptions>();
  auto* cmd = app.add_subcommand(
      "import",
      "Store a measured file (T4 results or a Kernel Tuner cache, gzip or plain) as a finished "
      "run; prints the new run's id");
  cmd->add_option("file", options->file,
                  "The T4 file or Kernel Tuner cache (a network run archive goes back with "
                  "`opevo net restore FILE`)")
      ->required();
  cmd->add_option("--db", options->db, "Database file (default: " + Store::defaultPath() + ")");
  cmd->add_flag("--restore", options->restore,
                "Store a T4 file exported by `opevo export-t4` as the tuning run it came from (its "
                "operator, algorithm, seed, backend and trial times) rather than as measurements: "
                "a lost database, a campaign, goes on from its exported runs");
  cmd->add_option("--op", options->op,
                  "With --restore, for files exported before the operator was written into them: "
                  "the run's operator (a preset such as MM1, or an operator file)");
  cmd->add_option("--seed", options->seed,
                  "With --restore, for files exported before the seed was written into them: the "
                  "run's seed");
  cmd->add_flag("--copy", options->copy,
                "With --restore, store the run even when the database holds it already (restored "
                "before): a second, independent copy");
  cmd->callback([options] {
    // A shipped file by its README name works from an installed copy too (io/shipped_path.h).
    if (const std::string missing = missingDataFileText(options->file); !missing.empty())
      throw InputError(missing);
    options->file = resolveDataFile(options->file);
    if (options->restore) return restore(*options);
    if (options->copy) throw InputError("--copy is for --restore: every plain import is a new run");
    if (!options->op.empty() || options->seed)
      throw InputError("--op and --seed are for --restore: a measured file keeps its own space");
    const ImportFile file = readImportFile(options->file);  // before a database is opened
    Store store(options->db.empty() ? Store::defaultPath() : options->db);
    const ImportedRun run = storeImport(store, file);
    // The id alone on stdout, so scripts can write id=$(opevo import FILE); the summary is for
    // the person at the terminal.
    std::cout << run.runId << "\n";
    std::cerr << "imported " << run.trials << " trials (" << run.format << ", "
              << (run.device.empty() ? std::string("device not named in the file") : run.device)
              << ", " << speedText(run) << ") as run " << run.runId << " of " << store.path()
              << "\n";
    for (const std::string& note : run.notes) std::cerr << "note: " << note << "\n";
    // opevo's own export of a run (it names its operator and seed): as measurements it has no
    // kernel to export; as the run it was, it has.
    try {
      const RunWithTrials own = readRestoreFile(options->file, {});
      std::cerr << "note: " << options->file << " is opevo's own export of a run of "
                << own.run.operatorName << " (" << own.run.algorithm << ", seed " << own.run.seed
                << "): `opevo import --restore " << options->file
                << "` stores it as that run, whose best kernel `opevo export` writes\n";
    } catch (const std::exception&) {
      // Not one of ours, or one without its operator: a measured file, as imported.
    }
  });
}

}  // namespace opevo::cli
