#pragma once

#include <vector>

#include "space/param_graph.h"

namespace opevo {

// Throws InputError unless 0 < q < 1 (q is the probability of taking another step).
void checkMutationRate(double q);

// One q-random walk from start: stop with probability 1-q, else move to a uniform neighbour.
Vertex qWalk(const Parameter& param, const Vertex& start, double q, Rng& rng);

struct WalkDistribution {
  ParamGraph graph;
  std::vector<double> probability;  // per graph vertex
  int iterations = 0;
  double truncatedMass = 0;         // mass not accounted for (below 1e-12)
  bool usedConjugateGradient = false;
};

// Auto sums the walk step by step unless q is so near 1 that conjugate gradients are cheaper.
enum class WalkMethod { Auto, Series, ConjugateGradient };

// S = (1-q)(I-Q)^-1 p0 over the parameter's graph, accurate to 1e-12 of mass. Throws InputError
// for graphs over maxVertices and for q outside (0, 1).
WalkDistribution exactDistribution(const Parameter& param, const Vertex& start, double q,
                                   std::size_t maxVertices = kMaxGraphVertices,
                                   WalkMethod method = WalkMethod::Auto);

}  // namespace opevo
