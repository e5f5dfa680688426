#include "io/gzip_file.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <stdexcept>

#include "common/error.h"
#include "common/input_file.h"
#include "io/export_file.h"

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
  if (deviceInsteadOfFile(path))
    throw InputError("cannot read '" + path + "': it is a device, not a file");
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

std::string gzipBytes(std::string_view data) {
  z_stream z{};
  // gzip (not zlib) framing: windowBits 15 + 16.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::bad_alloc();
  std::string out;
  char buffer[1 << 16];
  std::size_t done = 0;
  int code = Z_OK;
  do {
    const std::size_t chunk = std::min<std::size_t>(data.size() - done, 1 << 20);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + done));
    z.avail_in = static_cast<uInt>(chunk);
    done += chunk;
    const int flush = done == data.size() ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buffer);
      z.avail_out = sizeof buffer;
      code = deflate(&z, flush);
      out.append(buffer, sizeof buffer - z.avail_out);
    } while (z.avail_out == 0);
  } while (code != Z_STREAM_END && code != Z_STREAM_ERROR);
  deflateEnd(&z);
  if (code != Z_STREAM_END) throw std::runtime_error("gzip compression failed");
  return out;
}

void writeGzipped(const std::string& path, std::string_view data) {
  writeExportBytes(path, gzipBytes(data));
}

}  // namespace opevo
