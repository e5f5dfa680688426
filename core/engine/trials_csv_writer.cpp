#include "engine/trials_csv_writer.h"

#include <filesystem>

#include "common/error.h"
#include "io/output_folder.h"
#include "io/trials_csv.h"

namespace opevo {

TrialsCsvWriter::TrialsCsvWriter(const std::string& path) : m_path(path) {
  createOutputFolder(std::filesystem::path(path).parent_path());
  m_out.open(path);
  if (!m_out) throw InputError("cannot write " + path);
  m_out << trialsCsvHeader() << std::flush;
}

void TrialsCsvWriter::trialMeasured(const TrialEvent& e, const EngineProgress&) {
  m_out << trialsCsvRow(e.record) << std::flush;
  if (!m_out) throw InputError("writing " + m_path + " failed (disk full?)");
}

}  // namespace opevo
