#include "replay/replay_measurer.h"

#include <cassert>
#include <filesystem>

namespace opevo {

ReplayMeasurer::ReplayMeasurer(std::shared_ptr<const ReplayDataset> dataset)
    : m_dataset(std::move(dataset)) {
  assert(m_dataset);
}

std::string ReplayMeasurer::label() const {
  const std::string file = std::filesystem::path(m_dataset->path).filename().string();
  const std::string device =
      m_dataset->deviceName.empty() ? "device not named in the file" : m_dataset->deviceName;
  return "replay of " + file + " (" + device + ", real measurements)";
}

std::vector<Measurement> ReplayMeasurer::measure(const std::vector<Config>& configs) {
  std::vector<Measurement> out;
  out.reserve(configs.size());
  for (const Config& c : configs) {
    const auto it = m_dataset->table.find(c);
    if (it != m_dataset->table.end()) {
      out.push_back(it->second);
      continue;
    }
    Measurement m;
    m.status = TrialStatus::Rejected;
    m.message = "not in the dataset";
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace opevo
