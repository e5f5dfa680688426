#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kas/micro_dag.h"

namespace opevo::kas {

// A convolution a kernel replaces: C -> C channels, H x W image, KH x KW window, stride 1, padded
// to keep the image (the shape Canvas's single template covers, seed 004 sec. 4); `count` layers
// of a network share it.
struct ConvTarget {
  std::string name;
  std::int64_t channels = 0, height = 0, width = 0, kernelH = 3, kernelW = 3;
  std::int64_t count = 1;

  double flops() const;   // multiply-adds count two
  double params() const;  // weights (no bias)
};

// Fractions of the replaced convolutions' totals a kernel may use (over all targets, each
// weighted by its count).
struct Budget {
  double flops = 0.5;
  double params = 0.5;
};

struct LayerSizes {
  Bindings bindings{};                            // every symbol, variables solved
  std::vector<std::vector<std::int64_t>> shapes;  // each node's concrete dims
  double flops = 0, params = 0;
};

struct Solution {
  std::int64_t groups = 1;
  std::vector<LayerSizes> layers;  // one per target
  double flops = 0, params = 0;    // the kernel over all targets, with counts
  double convFlops = 0, convParams = 0;
};

struct SolveResult {
  std::optional<Solution> solution;
  std::string error;  // why not, when there is no solution
};

// Canvas's solver by analytical constraints (seed 004, sec. 6.3): each free variable x_j of layer
// i becomes k * lcm_ij (lcm of what divides it there), k scaled from the smallest layer by
// channels; then, cheapest first by the cost of doubling, variables double while the FLOPs and
// parameter budgets hold.
SolveResult solveBudget(const MicroDag& dag, const std::vector<ConvTarget>& targets,
                        std::int64_t groups, const Budget& budget);

// Group counts the kernel may use: the divisors of every target's C, 2 and up (one G for the
// whole network, as Canvas fixes it).
std::vector<std::int64_t> groupChoices(const std::vector<ConvTarget>& targets);

// FLOPs and weights of one layer's kernel with every symbol bound; nullopt when a size is not a
// whole positive number there.
struct LayerCost {
  double flops = 0, params = 0;
  std::vector<std::vector<std::int64_t>> shapes;
};
std::optional<LayerCost> layerCost(const MicroDag& dag, const Bindings& bindings);

Bindings targetBindings(const ConvTarget& target, std::int64_t groups);

}  // namespace opevo::kas
