#pragma once

#include <string>

namespace opevo {

// Writes an export's text to path, gzip-compressed when path ends in ".gz", through a temporary
// file (path + ".partial") renamed into place: a failed export leaves no partial file where the
// user looks, and an earlier file of the same name stays whole until the new one is complete.
// Throws InputError naming path when it cannot be written (no such folder, permission, disk full).
void writeExportFile(const std::string& path, const std::string& text);

}  // namespace opevo
