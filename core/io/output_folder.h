#pragma once

#include <filesystem>

namespace opevo {

// Creates `folder` and its parents for a command's output; a path that cannot be one (a file on
// the way, no permission) is an InputError naming it and why, not a filesystem exception.
void createOutputFolder(const std::filesystem::path& folder);

}  // namespace opevo
