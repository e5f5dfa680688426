#include "io/export_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "io/gzip_file.h"
#include "io/output_folder.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

std::string temporaryOf(const std::string& path) {
  return path + ".partial";
}

std::string systemReason(int error) {
  return std::strerror(error);
}

// A target that is a folder would only fail at the rename, after the other files of an export
// were written: said before anything is.
void checkNotAFolder(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw ExportWriteError(path, "a folder of that name is in the way");
}

// The bytes into `temporary`, made durable before it is renamed: on a full disk the error may
// only come when the data is flushed, and a rename of a file whose data never reached the disk
// would put an empty file in place after a crash. Errors name `path`, the user's file.
void writeTemporary(const std::string& path, const std::string& temporary, std::string_view bytes,
                    bool executable) {
  const int fd =
      ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, executable ? 0777 : 0666);
  if (fd < 0) throw ExportWriteError(path, systemReason(errno));
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
  // EINVAL: the temporary is not a file that can be synced (a device); its writes were direct.
  if (!error && ::fsync(fd) != 0 && errno != EINVAL) error = errno;
  if (::close(fd) != 0 && !error) error = errno;
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw ExportWriteError(path, systemReason(error));
  }
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
  checkNotAFolder(path);
  const std::string temporary = temporaryOf(path);
  writeTemporary(path, temporary, bytes, false);
  moveIntoPlace(temporary, path);
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
  try {
    for (const std::string& path : paths) checkNotAFolder(path);
    for (std::size_t i = 0; i < files.size(); ++i)
      writeTemporary(paths[i], temporaryOf(paths[i]), files[i].bytes, files[i].executable);
    // Renames within one folder do not fail for want of space: once here, all of them go through
    // (short of the folder changing under us, when the rest are cleaned up and the error said).
    for (const std::string& path : paths) moveIntoPlace(temporaryOf(path), path);
  } catch (...) {
    std::error_code ignored;
    for (const std::string& path : paths) fs::remove(temporaryOf(path), ignored);
    if (!existed) fs::remove(folder, ignored);  // removes only an empty folder
    throw;
  }
  return paths;
}

}  // namespace opevo
