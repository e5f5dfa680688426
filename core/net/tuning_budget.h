#pragma once

#include <cstddef>
#include <string>

#include "net/network_tuning.h"

namespace opevo::net {

// How many of a network's tasks a budget can give a trial at all, before it starts: every unit
// goes to one task, so gradient and round-robin reach at most ceil(trials / unit) tasks (their
// first round gives each task one unit in turn); topological cuts the budget into shares of at
// least one trial, in order, so it reaches min(trials, tasks). A task left out runs untuned and
// leaves the network without a latency (the Networks page's walk: AlexNet at 16 trials in units
// of 4 tuned 4 of its 8 tasks and ended "finished" without a word).
std::size_t tasksReached(std::size_t tasks, const NetworkTuningPlan& plan);

// The smallest budget that reaches every task under the plan's unit and scheduler.
int trialsToReachAll(std::size_t tasks, const NetworkTuningPlan& plan);

// The trials a network keeps for its closing round (NetworkTuning): kTwinConfigsPerUnit for each
// of the `closingTasks` that take part, taken only from the trials beyond trialsToReachAll, so
// the reserve never leaves a task without a trial (tasksReached and budgetNote hold as they are).
int closingReserve(std::size_t tasks, std::size_t closingTasks, const NetworkTuningPlan& plan);

// One line for the command line before tuning, empty when the budget reaches every task:
// "24 trials in units of 4 reach 6 of the 8 tasks: 2 tasks will get no trial, ...".
std::string budgetNote(std::size_t tasks, const NetworkTuningPlan& plan);

// Throws InputError for a network with nothing to tune (every layer a fixed kernel or a view): a
// run of it would be stored as finished with no trial.
void requireTasks(const std::string& networkName, std::size_t tasks);

}  // namespace opevo::net
