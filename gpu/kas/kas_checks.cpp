#include "kas/kas_checks.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "engine/engine.h"
#include "kas/conv_targets.h"
#include "kas/kas_codegen.h"
#include "kas/training_limits.h"
#include "net/network_json.h"

namespace opevo::kas {
namespace {

void checkRange(const char* option, long long value, long long least, long long most) {
  if (value >= least && value <= most) return;
  throw InputError(std::string(option) + " " + std::to_string(value) + ": expected " +
                   std::to_string(least) + " to " + std::to_string(most));
}

}  // namespace

std::vector<ConvTarget> networkTargets(const std::string& network,
                                       std::vector<std::vector<std::string>>* layers) {
  auto targets = replaceableConvolutions(net::loadNetwork(network), layers);
  if (targets.empty())
    throw InputError(network +
                     ": no convolution a kernel can replace (C -> C channels, stride 1, "
                     "a window wider than 1x1)");
  return targets;
}

void checkGroups(const std::vector<ConvTarget>& targets, std::int64_t groups,
                 const std::string& network) {
  if (groups == 0 || groups == 1) return;
  const std::vector<std::int64_t> choices = groupChoices(targets);
  if (groups > 1 && std::find(choices.begin(), choices.end(), groups) != choices.end()) return;
  std::string list;
  for (std::int64_t g : choices) list += (list.empty() ? "" : ", ") + std::to_string(g);
  throw InputError("--groups " + std::to_string(groups) + " does not divide the channels of " +
                   network + "'s replaced convolutions (" +
                   (list.empty() ? std::string("only 1 does") : "1, " + list + " do") + ")");
}

void checkTuning(const std::vector<ConvTarget>& targets, const std::string& algorithm, int trials) {
  if (trials < 1) throw InputError("--trials " + std::to_string(trials) + ": expected 1 or more");
  // Every kernel's schedule space has the same parameters (only their ranges follow the image):
  // the first layer's stands for all of them.
  RunPlan plan;
  plan.algorithm = algorithm;
  plan.budget.trials = trials;
  checkRunPlan(kasScheduleSpace(targets.front().height, targets.front().width), plan);
}

void checkTraining(const TrainRequest& q) {
  using L = TrainingLimits;
  checkRange("--epochs", q.epochs, 1, L::maxEpochs);
  checkRange("--train-images", q.trainImages, 1, L::maxTrainImages);
  checkRange("--test-images", q.testImages, 1, L::maxTestImages);
  checkRange("--batch", q.batch, 1, L::maxBatch);
  if (q.threads != 0) checkRange("--threads", q.threads, 1, L::maxThreads);  // 0: every core
  if (!(q.theta >= 0 && q.theta <= 1))
    throw InputError("--theta " + std::to_string(q.theta) + ": expected 0 to 1");
  for (double a : q.referenceCurve)
    if (!(a >= 0 && a <= 1))
      throw InputError("--reference-curve: " + std::to_string(a) +
                       " is no accuracy (expected 0 to 1)");
  checkFashionMnistFolder(q.dataDir);
}

}  // namespace opevo::kas
