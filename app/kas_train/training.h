#pragma once

#include <cstdint>
#include <vector>

#include "kas/backbone.h"
#include "kas/budget_solver.h"
#include "kas/micro_dag.h"
#include "kas_train/fashion_mnist.h"

namespace opevo::kastrain {

struct TrainConfig {
  int epochs = 3;
  // Defaults measured to reach ~88% on the baseline in three epochs (half a minute on 2 cores):
  // more, smaller steps beat batch 128 at the same cost.
  std::int64_t trainImages = 16000;  // the first of a seeded shuffle of the training split
  std::int64_t testImages = 2000;    // the first of the test split
  std::int64_t batch = 64;
  double lr = 0.05;  // decays to 0 along a cosine over every step
  double momentum = 0.9, weightDecay = 5e-4;
  std::uint64_t seed = 1;  // torch's generator (weights) and the shuffles
  // Canvas's pruning: accuracy per epoch of the best result so far (empty: never stops early).
  std::vector<double> referenceCurve;
  double theta = 0.5;
};

// The convolutions a kernel replaces, or none for the baseline.
struct KernelPlan {
  const kas::MicroDag* dag = nullptr;
  const kas::Solution* solution = nullptr;  // one LayerSizes per backboneTargets() entry
};

struct TrainResult {
  double accuracy = 0;                // on the test images, after the last epoch run
  std::vector<double> curve, losses;  // per epoch: test accuracy, mean training loss
  int epochsRun = 0;
  bool stoppedEarly = false;
  bool diverged = false;  // a loss was not finite; training stopped there
  double seconds = 0;
  std::int64_t params = 0;        // trainable, whole model
  std::int64_t kernelParams = 0;  // trainable, in the replaceable convolutions' places
};

// libtorch's intra-op threads (the training and the check run on them).
void setTorchThreads(int threads);

// Trains the backbone (SGD with momentum) on Fashion-MNIST, each replaceable convolution a module
// of the kernel with its layer's sizes and its own weights, or a plain convolution without one.
// Progress goes to standard error.
TrainResult train(const kas::Backbone& backbone, const KernelPlan& plan, const ImageSet& trainSet,
                  const ImageSet& testSet, const TrainConfig& config);

}  // namespace opevo::kastrain
