#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kas/budget_solver.h"

namespace opevo::kas {

// What opevo-kas-train is asked: train the backbone on Fashion-MNIST with a kernel in place of
// its convolutions (or, for the baseline, as it is), on a short seeded schedule.
struct TrainRequest {
  std::string kernelJson;  // empty: the baseline
  std::int64_t groups = 1;
  Budget budget;
  int epochs = 3;
  int trainImages = 16000, testImages = 2000, batch = 64;  // opevo-kas-train's defaults
  std::uint64_t seed = 1;
  int threads = 0;  // 0: every core
  double theta = 0.5;
  // Canvas's early stop: the best result's accuracy per epoch (empty: never stop early).
  std::vector<double> referenceCurve;
  std::string dataDir;  // empty: the files Debian's dataset-fashion-mnist installs
};

struct TrainResult {
  double accuracy = 0;
  std::vector<double> curve;  // test accuracy after each epoch run
  int epochsRun = 0;
  bool stoppedEarly = false, diverged = false;
  double seconds = 0;
  nlohmann::json raw;  // everything the program printed
};

// The training program: $OPEVO_KAS_TRAIN, else opevo-kas-train beside this program, else PATH.
std::string trainerProgram();

// A line of the training program's progress: an epoch's ("epoch 1/3: loss 0.6050, test accuracy
// 0.7400 (9.8 s)"), or its early stop.
using TrainProgress = std::function<void(const std::string&)>;

// Runs the training in its own process (a crash or a long run never touches the caller). Returns
// nullopt with *why naming what went wrong: the program missing (libtorch-dev not installed when
// it was built), its error message, a stop requested through `stop` (the child is killed).
// `progress`, when given, hears each line of progress the program writes as it writes it.
std::optional<TrainResult> runTraining(const TrainRequest& request, std::string* why,
                                       const std::atomic<bool>* stop = nullptr,
                                       const TrainProgress& progress = {});

}  // namespace opevo::kas
