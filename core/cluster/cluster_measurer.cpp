#include "cluster/cluster_measurer.h"

namespace opevo::cluster {

ClusterMeasurer::ClusterMeasurer(std::shared_ptr<ClusterSession> session, ClusterMeasurerSpec spec,
                                 const SearchSpace& space)
    : m_session(std::move(session)), m_spec(std::move(spec)), m_space(space) {}

std::vector<Measurement> ClusterMeasurer::measure(const std::vector<Config>& configs) {
  return collectEach(configs);
}

void ClusterMeasurer::measureEach(const std::vector<Config>& configs, const TrialCallback& done) {
  std::vector<ClusterSession::Item> items;
  items.reserve(configs.size());
  for (const Config& c : configs) items.push_back({RequestType::Measure, m_space.format(c)});
  m_session->measure(m_spec.kind, m_spec.task, items,
                     [&](std::size_t i, const TrialResult& r) { done(i, r.measurement); });
}

std::optional<Measurer::Reference> ClusterMeasurer::reference() {
  if (!m_spec.hasReference) return std::nullopt;
  std::optional<Reference> out;
  m_session->measure(m_spec.kind, m_spec.task, {{RequestType::Reference, {}}},
                     [&](std::size_t, const TrialResult& r) {
                       if (!r.library.empty()) out = Reference{r.library, r.measurement};
                     });
  return out;
}

}  // namespace opevo::cluster
