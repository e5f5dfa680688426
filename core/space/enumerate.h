#pragma once

#include <functional>

#include "space/search_space.h"

namespace opevo {

// Visits every point of the space's Cartesian product (constraints not applied) in mixed-radix
// order until visit returns false. Throws InputError when the product exceeds maxPoints.
void forEachConfig(const SearchSpace& space, std::size_t maxPoints,
                   const std::function<bool(const Config&)>& visit);

}  // namespace opevo
