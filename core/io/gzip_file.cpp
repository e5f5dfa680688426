#include "io/gzip_file.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "common/error.h"

namespace opevo {
namespace {

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};
using GzHandle = std::unique_ptr<gzFile_s, GzCloser>;

// zlib reports its own errors through gzerror, and system errors (ENOENT, EACCES) through errno.
// gzerror's text begins with the path ("f.gz: incorrect data check"), which callers name already.
std::string gzReason(gzFile file, const std::string& path) {
  int code = Z_OK;
  const char* text = gzerror(file, &code);
  if (code == Z_ERRNO) return std::strerror(errno);
  std::string reason = text && *text ? text : "zlib error " + std::to_string(code);
  if (reason.starts_with(path + ": ")) reason.erase(0, path.size() + 2);
  return reason;
}

// A read that zlib refused: the file is not what its name says, in words a user acts on.
[[noreturn]] void notGzip(gzFile file, const std::string& path) {
  int code = Z_OK;
  gzerror(file, &code);
  if (code == Z_ERRNO) throw InputError("cannot read '" + path + "': " + std::strerror(errno));
  std::string reason = gzReason(file, path);
  if (reason == "incorrect data check")
    reason = "its data check failed";
  else if (reason == "unexpected end of file")
    reason = "it ends early";
  throw InputError("'" + path + "' is not a valid gzip file (" + reason +
                   ": the file is damaged or truncated)");
}

}  // namespace

std::string readMaybeGzipped(const std::string& path) {
  std::error_code ec;
  // gzopen happily opens a directory and only fails on the first read with a vaguer message.
  if (std::filesystem::is_directory(path, ec))
    throw InputError("cannot read '" + path + "': it is a directory, not a file");
  errno = 0;
  GzHandle file(gzopen(path.c_str(), "rb"));
  if (!file)
    throw InputError("cannot open '" + path +
                     "': " + (errno ? std::strerror(errno) : "out of memory"));
  gzbuffer(file.get(), 1 << 17);
  std::string out;
  // Reserving from the file size avoids most regrowth; gzip text expands about 4x.
  if (const auto size = std::filesystem::file_size(path, ec); !ec) out.reserve(size * 4);
  // An uninitialised chunk: growing the string itself would zero-fill every read first.
  constexpr unsigned kChunk = 1 << 18;
  const std::unique_ptr<char[]> chunk(new char[kChunk]);
  for (;;) {
    const int n = gzread(file.get(), chunk.get(), kChunk);
    if (n < 0) notGzip(file.get(), path);
    if (n == 0) break;
    out.append(chunk.get(), static_cast<std::size_t>(n));
  }
  // A gzip stream cut short yields its prefix and flags Z_BUF_ERROR only here: a silently
  // truncated dataset would look like a smaller, valid one, so it must be an error.
  int code = Z_OK;
  gzerror(file.get(), &code);
  if (code != Z_OK && code != Z_STREAM_END) notGzip(file.get(), path);
  return out;
}

void writeGzipped(const std::string& path, std::string_view data) {
  errno = 0;
  GzHandle file(gzopen(path.c_str(), "wb"));
  if (!file)
    throw InputError("cannot write '" + path +
                     "': " + (errno ? std::strerror(errno) : "out of memory"));
  std::size_t done = 0;
  while (done < data.size()) {
    const unsigned chunk =
        static_cast<unsigned>(std::min<std::size_t>(data.size() - done, 1 << 20));
    if (gzwrite(file.get(), data.data() + done, chunk) != static_cast<int>(chunk))
      throw InputError("cannot write '" + path + "': " + gzReason(file.get(), path));
    done += chunk;
  }
  if (gzclose(file.release()) != Z_OK)
    throw InputError("cannot write '" + path + "': close failed");
}

}  // namespace opevo
