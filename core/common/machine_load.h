#pragma once

#include <optional>
#include <string>

namespace opevo {

// The one-minute load average per core, when /proc/loadavg gives it: above 1, runnable processes
// wait for a core, and a CPU kernel's timing waits with them (OpenMP's threads meet at barriers
// that a descheduled thread holds up by a whole time slice).
std::optional<double> loadPerCore();

// A warning for CPU timings about to be taken, naming the load; empty when the machine is not
// busy (at most one runnable process per core) or the load is unknown.
std::string busyMachineNote();

}  // namespace opevo
