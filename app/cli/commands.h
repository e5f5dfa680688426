#pragma once

#include <CLI/CLI.hpp>

namespace opevo::cli {

// Each registers its subcommand on the app; the callback runs when the subcommand is chosen.
void addSpaceCommand(CLI::App& app);
void addQwalkCommand(CLI::App& app);
void addDevicesCommand(CLI::App& app);
void addTunersCommand(CLI::App& app);
void addCompareCommand(CLI::App& app);
void addDatasetCommand(CLI::App& app);
void addCodegenCommand(CLI::App& app);
void addTuneCommand(CLI::App& app);
void addRunsCommands(CLI::App& app);
void addExportCommand(CLI::App& app);
void addImportCommand(CLI::App& app);
void addExportT4Command(CLI::App& app);
void addT1Command(CLI::App& app);

}  // namespace opevo::cli
