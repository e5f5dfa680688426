#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "backends/backend_factory.h"
#include "cluster/trial_consumer.h"
#include "io/replay_dataset.h"

namespace opevo::agent {

// Answers trials from a replay dataset, each after delayMs of simulated measurement time (for
// scaling tests: a table look-up alone takes microseconds).
class ReplayHandler final : public cluster::TrialHandler {
 public:
  ReplayHandler(std::shared_ptr<const ReplayDataset> dataset, int delayMs);
  Answer handle(const cluster::TrialRequest& request) override;

 private:
  std::shared_ptr<const ReplayDataset> m_dataset;
  int m_delayMs;
};

// Measures trials on this machine's device with the backend's own measurer: kernels compiled
// here, timed and verified in an opevo-worker process. The measurer of the operator in hand is
// kept (with its worker) while trials of that operator and those options keep coming.
class DeviceHandler final : public cluster::TrialHandler {
 public:
  explicit DeviceHandler(std::string backend);
  Answer handle(const cluster::TrialRequest& request) override;

 private:
  MeasurementSetup& setupFor(const cluster::TrialRequest& request);

  std::string m_backend;
  std::string m_key;  // the operator and options m_setup measures
  MeasurementSetup m_setup;
};

}  // namespace opevo::agent
