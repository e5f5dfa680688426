#include "kas/candidate_sampling.h"

#include <map>

#include "kas/backbone.h"

namespace opevo::kas {

std::vector<SampledCandidate> sampleCandidates(const std::vector<ConvTarget>& network,
                                               const CandidateSampling& sampling,
                                               SampleStats* stats) {
  const std::vector<ConvTarget> backbone = backboneTargets();
  std::vector<ConvTarget> all = network;
  all.insert(all.end(), backbone.begin(), backbone.end());
  // Its own stream, apart from the sampler's: the accept test draws a G order for every kernel
  // it sees, dead ends included, so the same seed gives the same G to the same kernel.
  Rng groupRng(sampling.seed ^ 0x6b6173ULL);
  std::map<std::uint64_t, KernelFit> fits;
  const auto kernels = sampleDistinct(
      sampling.seed, sampling.count, sampling.options,
      [&](const MicroDag& dag) {
        auto f = fitKernel(dag, {network, backbone}, groupOrder(all, sampling.groups, &groupRng),
                           sampling.budget);
        if (f) fits[dag.canonicalHash()] = std::move(*f);
        return f.has_value();
      },
      stats);
  std::vector<SampledCandidate> out;
  out.reserve(kernels.size());
  for (const MicroDag& k : kernels) out.push_back({k, fits.at(k.canonicalHash())});
  return out;
}

std::string noKernelFitsText(const std::string& network) {
  return "no kernel fits " + network + " and the backbone within the budget";
}

}  // namespace opevo::kas
