#pragma once

#include <optional>
#include <string>

namespace opevo {

// Why `path`, given where a file is read, is a device (/dev/zero, /dev/urandom): it never ends,
// and reading it took memory until the machine ran out ("'PATH' is a device, not a file").
// nullopt for anything else: a pipe (what `<(gunzip -c op.json.gz)` gives) is read as it comes,
// and a missing file or a folder is its reader's to say.
std::optional<std::string> deviceInsteadOfFile(const std::string& path);

}  // namespace opevo
