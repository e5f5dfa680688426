#include "cluster/cluster_measurer.h"

#include <stdexcept>

namespace opevo::cluster {

ClusterMeasurer::ClusterMeasurer(std::shared_ptr<ClusterSession> session, ClusterMeasurerSpec spec,
                                 const SearchSpace& space)
    : m_session(std::move(session)), m_spec(std::move(spec)), m_space(space) {}

std::vector<Measurement> ClusterMeasurer::measure(const std::vector<Config>& configs) {
  // The engine measures a run's trials through measureEach: these are timings beside it (tune's
  // side-by-side rounds), which agents count apart from trials.
  std::vector<Measurement> out(configs.size());
  send(configs, true, [&](std::size_t i, const Measurement& m) { out[i] = m; });
  return out;
}

void ClusterMeasurer::measureEach(const std::vector<Config>& configs, const TrialCallback& done) {
  send(configs, false, done);
}

void ClusterMeasurer::send(const std::vector<Config>& configs, bool retiming,
                           const TrialCallback& done) {
  std::vector<ClusterSession::Item> items;
  items.reserve(configs.size());
  for (const Config& c : configs)
    items.push_back({RequestType::Measure, m_space.format(c), retiming});
  m_session->measure(m_spec.kind, m_spec.task, items, [&](std::size_t i, const TrialResult& r) {
    // Not a trial: the agent could not measure anything. The run stops (resumable), as a local
    // run stops when its measurer cannot work, instead of recording the batch as failures.
    if (r.agentFault)
      throw std::runtime_error(r.measurement.message + " (" + r.device +
                               "); fix that machine or stop its agent, then resume the run");
    // Which node it came from travels with the trial into the store (trials.agent).
    Measurement m = r.measurement;
    m.agent = r.agent;
    done(i, m);
  });
}

std::optional<Measurer::Reference> ClusterMeasurer::reference() {
  if (!m_spec.hasReference) return std::nullopt;
  std::optional<Reference> out;
  m_session->measure(m_spec.kind, m_spec.task, {{RequestType::Reference, {}}},
                     [&](std::size_t, const TrialResult& r) {
                       // A figure beside the run: an agent that cannot time it leaves none.
                       if (!r.library.empty() && !r.agentFault)
                         out = Reference{r.library, r.measurement};
                     });
  return out;
}

}  // namespace opevo::cluster
