#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace opevo {

// Why an export could not be written: the file the user chose (never the temporary one beside it)
// and the system's reason ("No space left on device", "Permission denied"). what() says both.
class ExportWriteError : public InputError {
 public:
  ExportWriteError(const std::string& path, const std::string& reason);
  const std::string& path() const { return m_path; }
  const std::string& reason() const { return m_reason; }

 private:
  std::string m_path;
  std::string m_reason;
};

// Every export goes through these. The bytes go to a new temporary file beside the target
// (".NAME.XXXXXX.partial", created exclusively, never through a link) that is renamed into place
// once it is complete on disk: a failed export (disk full, no such folder, no permission) leaves
// no empty or partial file where the user looks, and an earlier file of the same name stays whole
// until the new one is complete. Throw ExportWriteError.

// Exactly these bytes (a PNG, an SVG, a CSV).
void writeExportBytes(const std::string& path, std::string_view bytes);

// Text with a final line break, gzip-compressed when path ends in ".gz" (JSON exports).
void writeExportFile(const std::string& path, const std::string& text);

// One file of an export that writes several into a folder.
struct ExportFileContent {
  std::string name;  // within the folder
  std::string bytes;
  bool executable = false;
};

// Writes an export's files into `folder` (created when missing), all or none: every file is
// written completely beside its place before any is renamed into it. On failure the temporary
// files are removed, and so is the folder when this call created it and it is left empty. Returns
// the paths written, in the order given.
std::vector<std::string> writeExportFolder(const std::filesystem::path& folder,
                                           const std::vector<ExportFileContent>& files);

}  // namespace opevo
