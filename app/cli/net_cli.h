#pragma once

// What the `opevo net` commands share: params from the command line and the end-to-end report.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "net/end_to_end.h"
#include "net/ms_text.h"
#include "net/network_json.h"
#include "net/stored_network_run.h"

namespace opevo::cli {

net::ParamOverrides paramOverrides(const std::vector<std::string>& texts);

// Latencies as the window writes them too (net/ms_text.h).
using net::msText;

// "building N task kernels ..." on standard error, before a build that takes a while.
void announceBuild(const net::Network& n, const net::TaskGraph& g);
// The end-to-end line and the reference line.
void printEndToEnd(const std::string& what, const net::StoredEndToEnd& e);
// A network run's tasks (weight, trials, best, library, configuration), the layouts tuning
// pinned across tasks (net::layoutConstraintText: residuals, depthwise inputs' channel blocks,
// 1x1 inputs), the sums over the tasks and, once it ran end to end, printEndToEnd's lines headed
// `what`: what `net tune` prints at its end and `net runs ID` prints of a stored run.
void printNetworkResult(const net::StoredNetworkRun& run, const std::string& what);

// The check of a --template value (net::parseTaskTemplates) when the command line is read, before
// anything is opened.
CLI::Validator networkTemplateCheck();

// --torch-form, on the commands that time libtorch's reference: how it runs (net::TorchForm),
// checked when the command line is read. It excludes --no-reference, which `cmd` must have
// already: a form of no reference would be ignored without a word.
void addTorchFormOption(CLI::App* cmd, net::TorchForm& form);
// " --torch-form frozen" for a command that repeats this one's (a resume), "" for the default.
std::string torchFormArgs(net::TorchForm form);

// Throws RunFailed when the output differs from the reference.
// `whose`: what ran, as the message names it.
void requireVerified(const net::EndToEnd& e, const std::string& whose = "the network's");

void addNetTuneCommand(CLI::App& net);
void addNetCompareCommand(CLI::App& net);
// net archive and net restore (io/network_archive.h).
void addNetArchiveCommands(CLI::App& net);

}  // namespace opevo::cli
