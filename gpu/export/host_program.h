#pragma once

#include <string>

#include "codegen/kernel_codegen.h"
#include "layout/operand_layouts.h"
#include "ops/operator.h"

namespace opevo {

// What an exported CPU program (a kernel's check, a network's program) says and does about
// OpenMP's idle threads, written once for both: opevo times with GOMP_SPINCOUNT bounded
// (common/openmp_waiting.h), and under libgomp's default spinning an exported check read 0.26 to
// 33.8 GFLOP/s for a kernel opevo stored at 13.42 (8.4 to 177 for one at 89.13), an AlexNet
// 128 ms for 17.1, on a busy 2-core machine. The program cannot link opevo: it carries its own
// copy of the restart.

// Includes and a function `static std::string boundOpenMpWaiting(char** argv)` to call first in
// main: unless the user chose a policy (GOMP_SPINCOUNT or OMP_WAIT_POLICY set), it starts the
// program anew with opevo's spin count, and it returns the setting the program runs under, in
// words, for its report. `timed` names what opevo times that way ("kernels", "networks").
std::string openMpWaitingFunction(const std::string& timed);

// A paragraph for a README or a build script: how `program` (./check, ./network) is timed and
// why, so that its figure compares with the one opevo stored.
std::string openMpWaitingNote(const std::string& program, const std::string& timed);

// The C++ (or CUDA / HIP) text of a program that fills A and B, runs the exported kernel, checks
// every output element against plain loops in double precision, times a few runs and prints
// PASS or FAIL (exit status 0 or 1). A GPU kernel that uses layouts of its own needs them
// (`layouts`): the program converts the operands on the host before the upload and the output
// back after it (a CPU kernel's library exports its own conversions).
std::string hostProgram(const OperatorSpec& op, const codegen::GeneratedKernel& kernel,
                        const std::string& kernelFile,
                        const layout::OperandLayouts* layouts = nullptr);

}  // namespace opevo
