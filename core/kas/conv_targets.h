#pragma once

#include <string>
#include <vector>

#include "kas/budget_solver.h"
#include "net/network.h"

namespace opevo::kas {

// The convolutions of a network a Canvas kernel can replace: C -> C channels, stride 1, no
// groups, a window larger than 1x1 padded to keep the image (ResNet's 3x3 convolutions but the
// first of each stage, which change channels and stride). Layers of one shape merge into one
// target with a count, named after the first; `layers` (when given) gets every target's layers.
std::vector<ConvTarget> replaceableConvolutions(
    const net::Network& net, std::vector<std::vector<std::string>>* layers = nullptr);

}  // namespace opevo::kas
