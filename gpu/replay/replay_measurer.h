#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/measurement.h"
#include "io/replay_dataset.h"

namespace opevo {

// Answers measurements from a measured dataset instead of a device: the tuners see the real
// hardware's behaviour (failures included) at the cost of a table look-up.
class ReplayMeasurer final : public Measurer {
 public:
  explicit ReplayMeasurer(std::shared_ptr<const ReplayDataset> dataset);

  // "replay of RTX_2080_Ti.json.gz (NVIDIA GeForce RTX 2080 Ti, real measurements)"
  std::string label() const override;
  bool isReplay() const override { return true; }
  std::string speedUnit() const override { return m_dataset->speedUnit; }
  // The file's measurement of each configuration; one the file lacks (the space's constraint
  // keeps tuners from proposing it) is Rejected with the message "not in the dataset".
  std::vector<Measurement> measure(const std::vector<Config>& configs) override;

  const ReplayDataset& dataset() const { return *m_dataset; }

 private:
  std::shared_ptr<const ReplayDataset> m_dataset;
};

}  // namespace opevo
