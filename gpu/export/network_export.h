#pragma once

#include <string>
#include <vector>

#include "net/network_program.h"

namespace opevo::net {

// Writes a standalone program that runs a tuned network on a CPU and checks itself: kernels.cpp
// (every kernel), main.cpp (the calls in order, timing, the check), data.bin (the input, the
// parameters, the expected output as float32), build.sh and README.txt. `expected` is the output
// the program must reproduce (libtorch's when it was there), `expectedFrom` says whose it is.
// The program times the network as opevo does: it starts itself anew with GOMP_SPINCOUNT=1000
// unless the user set a waiting policy, and prints which it ran under (export/host_program.h's
// openMpWaitingFunction, which a kernel's exported check runs too).
// The five files are written all or none (io/export_file.h's writeExportFolder): ExportWriteError
// names the file and the system's reason when one cannot be written.
void exportNetworkProgram(const NetworkProgram& program, const std::vector<float>& expected,
                          const std::string& expectedFrom, const std::string& title,
                          const std::string& directory);

}  // namespace opevo::net
