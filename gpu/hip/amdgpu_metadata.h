#pragma once

#include <map>
#include <string>
#include <string_view>

#include "codegen/compile_result.h"

namespace opevo {

// Reads the resource usage of every kernel in an AMDGPU code object (an ELF with the code object
// v3+ metadata note "AMDGPU", a MessagePack map): VGPRs, SGPRs, static LDS (group segment),
// scratch per work-item (private segment) and spills. Anything it cannot read (not ELF, older
// code object versions, truncated data) gives an empty map, never an exception.
std::map<std::string, KernelResources> readAmdgpuResources(std::string_view codeObject);

}  // namespace opevo
