#pragma once

#include <string>

#include "codegen/kernel_codegen.h"
#include "layout/operand_layouts.h"
#include "ops/operator.h"

namespace opevo {

// The C++ (or CUDA / HIP) text of a program that fills A and B, runs the exported kernel, checks
// every output element against plain loops in double precision, times a few runs and prints
// PASS or FAIL (exit status 0 or 1). A GPU kernel that uses layouts of its own needs them
// (`layouts`): the program converts the operands on the host before the upload and the output
// back after it (a CPU kernel's library exports its own conversions).
std::string hostProgram(const OperatorSpec& op, const codegen::GeneratedKernel& kernel,
                        const std::string& kernelFile,
                        const layout::OperandLayouts* layouts = nullptr);

}  // namespace opevo
