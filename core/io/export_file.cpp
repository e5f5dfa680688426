#include "io/export_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <system_error>

#include "io/gzip_file.h"
#include "io/output_folder.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

std::string systemReason(int error) {
  return std::strerror(error);
}

// A target that is a folder would only fail at the rename, after the other files of an export
// were written: said before anything is.
// So would a device, a pipe or a socket, worse: the rename put the export in its place, and
// `export-t4 1 --out /dev/full` run as root left /dev/full a text file.
void checkNothingInTheWay(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw ExportWriteError(path, "a folder of that name is in the way");
  switch (fs::symlink_status(path, ec).type()) {
    case fs::file_type::character:
    case fs::file_type::block:
      throw ExportWriteError(path, "it is a device, not a file (the export would take its place)");
    case fs::file_type::fifo:
    case fs::file_type::socket:
      throw ExportWriteError(path,
                             "it is a pipe or a socket, not a file (the export would take "
                             "its place)");
    default:
      return;
  }
}

// A new file beside `path`, named ".NAME.XXXXXX.partial" with a random part (NAME shortened to
// fit a file name's 255 bytes), created exclusively
// and never through a link: a name planted in a shared folder (a link to the user's own files)
// cannot redirect the export, and two exports of one file do not write into each other. The mode
// is 0666 or 0777 less the umask, as any file the user writes. Returns its path and descriptor.
std::pair<std::string, int> createTemporary(const std::string& path, bool executable) {
  const fs::path target(path);
  std::random_device seed;
  std::mt19937_64 random(seed());
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string suffix(6, 'x');
    for (char& c : suffix) c = kLetters[random() % (sizeof kLetters - 1)];
    // The file's own name shortened where the temporary's would pass the 255 bytes a name may
    // have: a name the user may choose (up to 255) made the export fail "File name too long".
    static constexpr std::size_t kNameMax = 255;
    std::string tail(".");
    tail.append(suffix).append(".partial");
    std::string name(".");
    name.append(target.filename().string());
    if (name.size() + tail.size() > kNameMax) name.resize(kNameMax - tail.size());
    name.append(tail);
    const std::string temporary = (target.parent_path() / name).string();
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                          executable ? 0777 : 0666);
    if (fd >= 0) return {temporary, fd};
    if (errno != EEXIST) throw ExportWriteError(path, systemReason(errno));
  }
  throw ExportWriteError(path, "no free name for a temporary file beside it");
}

// The bytes into a new temporary file, made durable before it is renamed: on a full disk the
// error may only come when the data is flushed, and a rename of a file whose data never reached
// the disk would put an empty file in place after a crash. Errors name `path`, the user's file.
// Returns the temporary's path.
std::string writeTemporary(const std::string& path, std::string_view bytes, bool executable) {
  const auto [temporary, fd] = createTemporary(path, executable);
  int error = 0;
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : ENOSPC;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (!error && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && !error) error = errno;
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw ExportWriteError(path, systemReason(error));
  }
  return temporary;
}

void moveIntoPlace(const std::string& temporary, const std::string& path) {
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw ExportWriteError(path, ec.message());
  }
}

}  // namespace

ExportWriteError::ExportWriteError(const std::string& path, const std::string& reason)
    : InputError("cannot write '" + path + "': " + reason), m_path(path), m_reason(reason) {}

void writeExportBytes(const std::string& path, std::string_view bytes) {
  checkNothingInTheWay(path);
  moveIntoPlace(writeTemporary(path, bytes, false), path);
}

void writeExportFile(const std::string& path, const std::string& text) {
  const bool gzip = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  if (gzip)
    writeExportBytes(path, gzipBytes(text));
  else
    writeExportBytes(path, text + '\n');
}

std::vector<std::string> writeExportFolder(const fs::path& folder,
                                           const std::vector<ExportFileContent>& files) {
  std::error_code ec;
  const bool existed = fs::exists(folder, ec);
  createOutputFolder(folder);
  std::vector<std::string> paths;
  for (const ExportFileContent& f : files) paths.push_back((folder / f.name).string());
  std::vector<std::string> temporaries;  // those not yet renamed
  try {
    for (const std::string& path : paths) checkNothingInTheWay(path);
    for (std::size_t i = 0; i < files.size(); ++i)
      temporaries.push_back(writeTemporary(paths[i], files[i].bytes, files[i].executable));
    // Renames within one folder do not fail for want of space: once here, all of them go through
    // (short of the folder changing under us, when the rest are cleaned up and the error said).
    for (std::size_t i = 0; i < paths.size(); ++i) {
      moveIntoPlace(temporaries[i], paths[i]);
      temporaries[i].clear();
    }
  } catch (...) {
    std::error_code ignored;
    for (const std::string& temporary : temporaries)
      if (!temporary.empty()) fs::remove(temporary, ignored);
    if (!existed) fs::remove(folder, ignored);  // removes only an empty folder
    throw;
  }
  return paths;
}

}  // namespace opevo
