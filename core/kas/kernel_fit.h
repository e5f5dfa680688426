#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/rng.h"
#include "kas/budget_solver.h"

namespace opevo::kas {

// A kernel's sizes solved with one group count for several sets of layers at once: the network
// whose convolutions are timed and the backbone that is trained must use the same G, or the
// kernel trained would not be the kernel timed.
struct KernelFit {
  std::int64_t groups = 1;
  std::vector<Solution> solutions;  // one per target set, in order
};

// The first group count of `order` for which the budget solver fits the kernel to every target
// set; nullopt (and *why, when given, the last solver's reason) when none does.
std::optional<KernelFit> fitKernel(const MicroDag& dag,
                                   const std::vector<std::vector<ConvTarget>>& targetSets,
                                   const std::vector<std::int64_t>& order, const Budget& budget,
                                   std::string* why = nullptr);

// The group counts to try: {fixed} when given (> 0); else every count that divides all targets'
// channels (groupChoices), or {1} when none does, shuffled by rng when one is given so that
// sampled kernels spread over G.
std::vector<std::int64_t> groupOrder(const std::vector<ConvTarget>& targets, std::int64_t fixed,
                                     Rng* rng);

}  // namespace opevo::kas
