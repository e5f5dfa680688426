#include "engine/trials_csv_writer.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/error.h"
#include "io/export_file.h"
#include "io/output_folder.h"
#include "io/trials_csv.h"

namespace opevo {
namespace {

// A line of io/trials_csv.h's format with one more field at its end.
std::string withField(std::string line, const std::string& field) {
  if (!line.empty() && line.back() == '\n') line.pop_back();
  return line + ',' + field + '\n';
}

}  // namespace

TrialsCsvWriter::TrialsCsvWriter(const std::string& path) : m_path(path) {
  createOutputFolder(std::filesystem::path(path).parent_path());
  errno = 0;
  m_out.open(path);
  if (!m_out) throw ExportWriteError(path, errno ? std::strerror(errno) : "cannot create the file");
  m_out << withField(trialsCsvHeader(), "device_seconds") << std::flush;
  if (!m_out) throw ExportWriteError(path, errno ? std::strerror(errno) : "the write failed");
}

void TrialsCsvWriter::trialMeasured(const TrialEvent& e, const EngineProgress&) {
  errno = 0;
  m_out << withField(trialsCsvRow(e.record), csvNumber(m_device.add(e.record))) << std::flush;
  if (!m_out) throw ExportWriteError(m_path, errno ? std::strerror(errno) : "the write failed");
}

}  // namespace opevo
