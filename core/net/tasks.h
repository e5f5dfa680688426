#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "net/network.h"
#include "ops/operator.h"

namespace opevo::net {

// Where a task occurs in the network: the complex layer and the elementwise layers fused after it
// (their order is the epilogue's). For an Add, `residuals` holds the tensor added. The fused
// kernel runs where its last fused layer stood, when every residual it reads exists.
struct Occurrence {
  std::string layer;
  std::vector<std::string> fused;
  std::vector<std::string> residuals;
  std::string output;  // the tensor the fused kernel writes (the last fused layer's, or layer)
  // The tensor the complex layer reads first (a convolution's activation input): the link a
  // depthwise convolution's channel blocking follows (net/layout_constraints.h).
  std::string input;
};

// A tuning task, as TVM extracts them: one complex operator (conv2d, dense, matmul,
// batch_matmul) with its elementwise epilogue fused; identical ones are one task whose weight is
// how often it occurs, since one tuned kernel serves them all.
struct Task {
  std::string name;  // the first occurrence's layer
  OperatorSpec op;   // named `name`, with groups and epilogue
  std::vector<Occurrence> occurrences;
  // Where its kernel first runs: the place in Network::layers of the earliest occurrence's output
  // (a fused kernel runs where its last fused layer stands, once every residual it reads exists).
  // Tasks by position are in topological order of the fused kernels, the order ALT tunes them in.
  std::size_t position = 0;
  // Whether its second operand is a layer's weights (conv2d, dense) at every occurrence, not an
  // activation (matmul, batch_matmul): what a network times cold (NetworkTuningPlan::coldWeights).
  bool readsWeights = false;

  // The weight: how often the task occurs, as the count it is (JSON writes 1, not 1.0), and as a
  // factor of its latency.
  std::int64_t weightCount() const { return static_cast<std::int64_t>(occurrences.size()); }
  double weight() const { return static_cast<double>(weightCount()); }
};

// The layers that run a fixed, untuned kernel (pools, softmax, layer_norm, transposes, and
// elementwise layers nothing could absorb); reshape and flatten are views and cost nothing.
struct FixedLayer {
  std::string layer;
  bool view = false;
};

struct TaskGraph {
  std::vector<Task> tasks;  // in order of first occurrence
  std::vector<FixedLayer> fixed;
};

// The operator a complex layer computes (dense: x W^T with W stored units x in, so trans_b).
OperatorSpec operatorOf(const Network& net, const Layer& layer);
TaskGraph extractTasks(const Network& net);

// Every tensor a task's kernel writes -> that task (a tensor has one writer).
std::map<std::string, std::size_t> tensorWriters(const TaskGraph& graph);

}  // namespace opevo::net
