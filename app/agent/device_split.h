#pragma once

#include <atomic>
#include <optional>
#include <string>

#include "agent/agent.h"

namespace opevo::agent {

// A node with several GPUs runs one agent process per GPU, each seeing only its own through
// CUDA_VISIBLE_DEVICES or HIP_VISIBLE_DEVICES: a measurer (and its worker) uses device 0 of the
// devices it sees. This process then only supervises them: a child that dies of a signal is
// started again, a stop reaches every child. Returns the exit status to leave with, or nullopt
// when the backend shows at most one device here (the caller runs the agent itself).
std::optional<int> runPerDeviceAgents(const std::string& self, const AgentOptions& options,
                                      const std::atomic<bool>& stop);

}  // namespace opevo::agent
