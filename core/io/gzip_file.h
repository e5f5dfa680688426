#pragma once

#include <string>
#include <string_view>

namespace opevo {

// The whole content of a file, gunzipped when it is gzip-compressed and as is otherwise (the
// measured datasets come both ways and users rename files freely, so the content decides, not the
// extension). Throws InputError naming the path when it cannot be opened or read, or when a gzip
// stream is corrupt or cut short.
std::string readMaybeGzipped(const std::string& path);

// data gzip-compressed, in memory (what writeExportFile writes for a ".gz" path), fed to zlib
// in chunks: a one-call deflate takes at most 4 GiB and would cut the rest unseen.
std::string gzipBytes(std::string_view data);

// Writes data gzip-compressed through writeExportBytes (for tests that need a gzip file whatever
// its name). Throws InputError naming the path when it cannot be written.
void writeGzipped(const std::string& path, std::string_view data);

}  // namespace opevo
