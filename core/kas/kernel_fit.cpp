#include "kas/kernel_fit.h"

#include <utility>

namespace opevo::kas {

std::optional<KernelFit> fitKernel(const MicroDag& dag,
                                   const std::vector<std::vector<ConvTarget>>& targetSets,
                                   const std::vector<std::int64_t>& order, const Budget& budget,
                                   std::string* why) {
  for (std::int64_t g : order) {
    KernelFit fit{g, {}};
    for (const auto& targets : targetSets) {
      SolveResult r = solveBudget(dag, targets, g, budget);
      if (!r.solution) {
        if (why) *why = r.error;
        break;
      }
      fit.solutions.push_back(std::move(*r.solution));
    }
    if (fit.solutions.size() == targetSets.size()) return fit;
  }
  return std::nullopt;
}

std::vector<std::int64_t> groupOrder(const std::vector<ConvTarget>& targets, std::int64_t fixed,
                                     Rng* rng) {
  if (fixed > 0) return {fixed};
  std::vector<std::int64_t> order = groupChoices(targets);
  if (order.empty()) order.push_back(1);
  if (rng)
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng->below(i)]);
  return order;
}

}  // namespace opevo::kas
