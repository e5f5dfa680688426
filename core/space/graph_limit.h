#pragma once

#include <string>

#include "space/param_graph.h"

namespace opevo {

// kMaxGraphVertices (param_graph.h) is the one limit of the exact q-walk distribution: the CLI
// (opevo qwalk) and the window (the Spaces q-walk table, the Topology page) both compute up to
// it, and both refuse past it with these words. perm:9's 362,880 vertices take a few seconds.

// Why param's graph is not built (its size against maxVertices, worded as buildGraph's refusal),
// or empty when it is small enough. Counts only: nothing is enumerated.
std::string graphTooLarge(const Parameter& param, std::size_t maxVertices = kMaxGraphVertices);

}  // namespace opevo
