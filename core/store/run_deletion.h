#pragma once

#include <string>
#include <vector>

#include "store/records.h"

namespace opevo {

// A run and how many trials it holds: what deleting it removes (Store::deleteRuns).
struct RunAndTrials {
  RunRecord run;
  int trials = 0;
};

// What deleting some runs would remove, or why it may not (Store::checkRunDeletion). Runs are
// deleted all or none: one refusal keeps every run of the list.
struct RunDeletionCheck {
  std::vector<RunAndTrials> runs;     // the runs found, in the order asked, each once
  std::vector<std::string> refusals;  // one sentence for each run in the way, naming it
  int trials() const;
};

// A network run and the trials of its task runs: what deleting it removes
// (Store::deleteNetworks).
struct NetworkAndTrials {
  NetworkRecord network;
  int trials = 0;
};

// The same for network runs (Store::checkNetworkDeletion): all or none.
struct NetworkDeletionCheck {
  std::vector<NetworkAndTrials> networks;
  std::vector<std::string> refusals;
};

// "run 3 (MM1, opevo, 300 trials)": how the command line and the window name a deleted run.
std::string describeRun(const RunAndTrials& r);
// "network run 2 (resnet18, 12 tasks, 400 trials)", the same for a network run.
std::string describeNetwork(const NetworkAndTrials& n);

// The refusals as one message, ending with "; nothing was deleted".
std::string refusalText(const std::vector<std::string>& refusals);

}  // namespace opevo
