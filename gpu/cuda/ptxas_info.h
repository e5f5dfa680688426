#pragma once

#include <map>
#include <string>
#include <string_view>

#include "codegen/compile_result.h"

namespace opevo {

// Reads ptxas's verbose report (NVRTC --ptxas-options=-v, or nvcc -Xptxas -v): registers,
// static shared memory, stack frame and spill stores of every function it lists.
std::map<std::string, KernelResources> parsePtxasInfo(std::string_view log);

}  // namespace opevo
