#pragma once

#include <string>
#include <string_view>

namespace opevo {

// Where built kernels are kept between runs, one folder per kind (cpu-kernels, cuda-kernels,
// hip-kernels, kas-kernels) under $XDG_CACHE_HOME/opevo-studio (~/.cache, else the temporary
// folder): one file per kernel text, never read as a result (docs/codegen.md).
std::string defaultKernelCacheDir(std::string_view leaf = "cpu-kernels");

}  // namespace opevo
