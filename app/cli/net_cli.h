#pragma once

// What the `opevo net` commands share: params from the command line and the end-to-end report.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "net/end_to_end.h"
#include "net/network_json.h"

namespace opevo::cli {

net::ParamOverrides paramOverrides(const std::vector<std::string>& texts);

// "building N task kernels ..." on standard error, before a build that takes a while.
void announceBuild(const net::Network& n, const net::TaskGraph& g);
// The end-to-end line and the reference line.
void printEndToEnd(const std::string& what, const net::EndToEnd& e, int runs);

// The check of a --template value (net::parseTaskTemplates) when the command line is read, before
// anything is opened.
CLI::Validator networkTemplateCheck();

// Throws RunFailed when the output differs from the reference.
void requireVerified(const net::EndToEnd& e);

void addNetTuneCommand(CLI::App& net);
void addNetCompareCommand(CLI::App& net);
// net archive and net restore (io/network_archive.h).
void addNetArchiveCommands(CLI::App& net);

}  // namespace opevo::cli
