#pragma once

#include <string>
#include <string_view>

namespace opevo {

// Where built kernels are kept between runs, one folder per kind (cpu-kernels, cuda-kernels,
// hip-kernels, kas-kernels) under $XDG_CACHE_HOME/opevo-studio (~/.cache, else the temporary
// folder): one file per kernel text, never read as a result (docs/codegen.md).
std::string defaultKernelCacheDir(std::string_view leaf = "cpu-kernels");

// Makes the cache folder (and those above it); InputError naming it and the reason when it
// cannot be made (a HOME of another user, a read-only home): it read "internal error:
// filesystem error: cannot create directories".
void makeKernelCacheDir(const std::string& dir);

}  // namespace opevo
