#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <stdexcept>
#include <string>

namespace opevo::cli {

// A run that an error ended (a full disk, a dead device) after its output was printed: main
// prints the message and exits with status 1. Its committed trials are kept.
class RunFailed : public std::runtime_error {
 public:
  explicit RunFailed(const std::string& message) : std::runtime_error(message) {}
};

// The database a command that only reads (or resumes) opens: the default one when `db` is empty
// (a first start creates it, empty), else `db`, which must exist: a mistyped --db is an
// InputError, not a new empty database in a new folder.
std::string existingDatabase(const std::string& db);
// " --db DB" (quoted for a shell where it needs to be) for the commands a message suggests, so
// that they open the database the command used; empty for the default one.
std::string databaseHint(const std::string& db);

// The side-by-side timing's lines (a run's "side_by_side" JSON as tune prints and stores it):
// the rounds, the best against the library and their ratio, and which configuration was fastest
// where it was not the run's best. Empty for JSON that is not such a record.
std::string sideBySideText(const nlohmann::json& side, const std::string& unit);

// Each registers its subcommand on the app; the callback runs when the subcommand is chosen.
void addSpaceCommand(CLI::App& app);
void addQwalkCommand(CLI::App& app);
void addDevicesCommand(CLI::App& app);
void addTunersCommand(CLI::App& app);
void addCompareCommand(CLI::App& app);
void addSweepCommand(CLI::App& app);
void addDatasetCommand(CLI::App& app);
void addCodegenCommand(CLI::App& app);
void addTuneCommand(CLI::App& app);
void addRunsCommands(CLI::App& app);
// `opevo runs compare`, beside `runs show` and `runs delete` (parentDb and parentJson: `runs --db`
// and `runs --json`).
void addRunsCompareCommand(CLI::App& runs, const std::shared_ptr<std::string>& parentDb,
                           const std::shared_ptr<bool>& parentJson);
void addExportCommand(CLI::App& app);
void addImportCommand(CLI::App& app);
void addExportT4Command(CLI::App& app);
void addT1Command(CLI::App& app);
void addNetCommands(CLI::App& app);
void addKasCommands(CLI::App& app);
// cluster serve|status and agent (cluster_command.cpp).
void addClusterCommands(CLI::App& app);
// kas search, searches, report and train (kas_search_command.cpp), under `kas`.
void addKasSearchCommands(CLI::App* kas);

}  // namespace opevo::cli
