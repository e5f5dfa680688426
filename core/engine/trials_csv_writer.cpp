#include "engine/trials_csv_writer.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "common/error.h"
#include "io/export_file.h"
#include "io/output_folder.h"
#include "io/trials_csv.h"

namespace opevo {

TrialsCsvWriter::TrialsCsvWriter(const std::string& path, std::string space)
    : m_path(path), m_space(std::move(space)) {
  createOutputFolder(std::filesystem::path(path).parent_path());
  errno = 0;
  m_out.open(path);
  if (!m_out) throw ExportWriteError(path, errno ? std::strerror(errno) : "cannot create the file");
  m_out << trialsCsvHeader() << std::flush;
  if (!m_out) throw ExportWriteError(path, errno ? std::strerror(errno) : "the write failed");
}

void TrialsCsvWriter::trialMeasured(const TrialEvent& e, const EngineProgress&) {
  errno = 0;
  TrialRecord record = e.record;
  record.space = m_space;
  m_out << trialsCsvRow(record, m_device) << std::flush;
  if (!m_out) throw ExportWriteError(m_path, errno ? std::strerror(errno) : "the write failed");
}

}  // namespace opevo
