#pragma once

#include <fstream>
#include <string>

#include "engine/device_time.h"
#include "engine/engine.h"

namespace opevo {

// Streams trials.csv (io/trials_csv.h) as the engine measures: each row is flushed as it comes,
// so the file holds every trial measured so far even when the program is killed. Its columns are
// the format's, written by the same function as every other trials.csv's; device_seconds is each
// run's device time so far, counted here as the engine measures.
class TrialsCsvWriter final : public EngineObserver {
 public:
  // Creates the file's folder. Throws InputError naming the path when it cannot be written.
  // `space`: what the engine's runs tune (TrialRecord::space), for the rows.
  TrialsCsvWriter(const std::string& path, std::string space);
  void trialMeasured(const TrialEvent& trial, const EngineProgress& progress) override;
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
  std::string m_space;
  std::ofstream m_out;
  DeviceClock m_device;
};

}  // namespace opevo
