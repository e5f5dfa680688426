#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kas/conv_targets.h"
#include "kas/kernel_fit.h"
#include "kas/sampler.h"

namespace opevo::kas {

// A sampled kernel with the group count and sizes it is evaluated with: fit.solutions[0] for the
// network whose convolutions are timed, fit.solutions[1] for the training backbone.
struct SampledCandidate {
  MicroDag dag;
  KernelFit fit;
};

// What decides which kernels are drawn and the G each gets.
struct CandidateSampling {
  std::uint64_t seed = 1;
  std::size_t count = 50;
  SamplerOptions options;
  // 0: each kernel's G drawn (from `seed`) among the counts dividing every layer of the network
  // and of the backbone; else this G for every kernel.
  std::int64_t groups = 0;
  Budget budget;
};

// The kernels `kas search` evaluates, in its order, and what `kas sample` lists and writes: both
// call this, so a kernel sampled with a seed and budget has the G and FLOPs share it gets in a
// search with the same seed and budget (they differed: sample fitted the network alone and drew G
// from another list, 0.8% at G=8 where the search said 0.4% at G=4). A kernel must fit the
// network and the backbone with one G, or the kernel trained would not be the kernel timed.
std::vector<SampledCandidate> sampleCandidates(const std::vector<ConvTarget>& network,
                                               const CandidateSampling& sampling,
                                               SampleStats* stats = nullptr);

// What `kas sample` and `kas search` say when sampleCandidates found none.
std::string noKernelFitsText(const std::string& network);

}  // namespace opevo::kas
