#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cluster/cluster_session.h"
#include "engine/measurement.h"

namespace opevo::cluster {

// What a cluster measurer stands for: the device kind whose agents measure, what they need to
// know (the task of each request), and how the results read where they are shown and stored.
struct ClusterMeasurerSpec {
  std::string kind;
  nlohmann::json task;  // {"backend": ..., "operator": ..., "options": ...}
  std::string label;    // "cpu: AMD EPYC 7763, 64 threads, on the cluster at 10.0.0.5:6390"
  std::string device;   // as a local run on that device records it
  std::string speedUnit = "TFLOPS";
  bool replay = false;
  bool hasReference = false;  // the agents can time a vendor library on the operator
};

// The engine's measurer for a cluster: each configuration of a batch becomes a trial request on
// its device kind's stream, so every agent serving the kind measures part of the batch at once;
// results reach the engine as they come (it commits each to the store: the master stays the
// store's only writer). A race's runs take turns batch by batch as on one machine, each batch
// spread over all matching agents.
class ClusterMeasurer final : public Measurer {
 public:
  ClusterMeasurer(std::shared_ptr<ClusterSession> session, ClusterMeasurerSpec spec,
                  const SearchSpace& space);

  std::string label() const override { return m_spec.label; }
  std::string device() const override { return m_spec.device; }
  bool isReplay() const override { return m_spec.replay; }
  std::string speedUnit() const override { return m_spec.speedUnit; }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override;
  void measureEach(const std::vector<Config>& configs, const TrialCallback& done) override;
  std::optional<Reference> reference() override;

  const ClusterMeasurerSpec& spec() const { return m_spec; }
  ClusterSession& session() { return *m_session; }

 private:
  void send(const std::vector<Config>& configs, bool retiming, const TrialCallback& done);

  std::shared_ptr<ClusterSession> m_session;
  ClusterMeasurerSpec m_spec;
  const SearchSpace& m_space;
};

}  // namespace opevo::cluster
