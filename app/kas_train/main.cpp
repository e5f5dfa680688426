// opevo-kas-train: the accuracy side of Canvas. It trains the small ResNet of core/kas/backbone.h
// on Fashion-MNIST with every replaceable convolution replaced by a kernel (each layer its own
// solved sizes and weights), or unmodified with --baseline, and prints one JSON object. --check
// instead proves the kernel's torch module computes what the interpreter does. It includes
// libtorch (through its training, check and kernel-module files) so the rest of the build never
// pays for it. Progress goes to standard error; the result is one JSON line on standard output,
// written last. Exit status 2: a bad kernel file, budget, option or missing data; 1: --check
// found a mismatch, or an internal error.
//
//   opevo-kas-train KERNEL.json [--groups G] [--budget-flops F] [--budget-params P] [--check]
//   opevo-kas-train --baseline
//     [--data DIR] [--epochs E] [--train-images N] [--test-images M] [--batch B] [--lr L]
//     [--seed S] [--threads T] [--reference-curve a1,...,aE] [--theta T]

#include <sys/prctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "cli/option_checks.h"
#include "common/error.h"
#include "kas/backbone.h"
#include "kas/kas_json.h"
#include "kas/training_limits.h"
#include "kas_train/kernel_check.h"
#include "kas_train/training.h"

namespace {

using namespace opevo;
using cli::atLeast;
using cli::numberIn;
using cli::wholeIn;

struct Options {
  std::string kernel;
  bool baseline = false, check = false;
  std::int64_t groups = 0;
  kas::Budget budget;
  std::string data = kastrain::kFashionMnistDir;
  kastrain::TrainConfig train;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
};

void addOptions(CLI::App& app, Options& o) {
  app.add_option("kernel", o.kernel, "Kernel file (opevo kas sample --out writes them)");
  app.add_flag("--baseline", o.baseline, "Train the backbone with its plain convolutions");
  app.add_flag("--check", o.check,
               "Compare the kernel's torch module with the interpreter at every layer; no "
               "training");
  app.add_option("--groups", o.groups, "Group count G (default: as opevo kas solve picks it)")
      ->check(atLeast(1));
  app.add_option("--budget-flops", o.budget.flops, "FLOPs budget, a fraction of the convolutions'")
      ->check(numberIn(1e-6, 100.0))
      ->capture_default_str();
  app.add_option("--budget-params", o.budget.params, "Weights budget, a fraction of theirs")
      ->check(numberIn(1e-6, 100.0))
      ->capture_default_str();
  app.add_option("--data", o.data, "Folder of Fashion-MNIST's four .gz files")
      ->capture_default_str();
  app.add_option("--epochs", o.train.epochs, "Epochs")
      ->check(wholeIn(1, kas::TrainingLimits::maxEpochs))
      ->capture_default_str();
  app.add_option("--train-images", o.train.trainImages,
                 "Training images (the first of a seeded shuffle)")
      ->check(wholeIn(1, kas::TrainingLimits::maxTrainImages))
      ->capture_default_str();
  app.add_option("--test-images", o.train.testImages, "Test images (the first of the test split)")
      ->check(wholeIn(1, kas::TrainingLimits::maxTestImages))
      ->capture_default_str();
  app.add_option("--batch", o.train.batch, "Batch size")
      ->check(wholeIn(1, kas::TrainingLimits::maxBatch))
      ->capture_default_str();
  app.add_option("--lr", o.train.lr, "Learning rate at the start (cosine decay to 0)")
      ->check(numberIn(1e-6, 10.0))
      ->capture_default_str();
  app.add_option("--seed", o.train.seed, "Seed of the weights and the shuffles")
      ->capture_default_str();
  app.add_option("--threads", o.threads, "libtorch threads (default: every core)")
      ->check(wholeIn(1, kas::TrainingLimits::maxThreads));
  app.add_option("--reference-curve", o.train.referenceCurve,
                 "Test accuracy per epoch of the best result so far (stops a run that falls "
                 "behind it)")
      ->delimiter(',')
      ->check(numberIn(0.0, 1.0));
  app.add_option("--theta", o.train.theta,
                 "Pruning strictness: epoch e must reach (theta + (1-theta) e/E) of the curve")
      ->check(numberIn(0.0, 1.0))
      ->capture_default_str();
}

nlohmann::json optionalString(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

int run(const Options& o) {
  if (o.baseline == !o.kernel.empty())
    throw InputError(o.baseline ? "--baseline trains the plain backbone: give no kernel file"
                                : "give a kernel file, or --baseline");
  if (o.baseline && o.check) throw InputError("--check needs a kernel file, not --baseline");
  kastrain::setTorchThreads(o.threads);
  const kas::Backbone backbone = kas::fashionMnistBackbone();
  const std::vector<kas::ConvTarget> targets = kas::backboneTargets(backbone);
  std::optional<kas::MicroDag> dag;
  std::optional<kas::Solution> solution;
  if (!o.baseline) {
    dag = kas::loadKernel(o.kernel);
    kas::SolveResult solved = kas::solveKernel(*dag, targets, o.groups, o.budget);
    if (!solved.solution)
      throw InputError(o.kernel + ": does not fit the backbone's convolutions: " + solved.error);
    solution = std::move(solved.solution);
  }
  if (o.check) {
    kastrain::CheckResult r = kastrain::checkKernel(*dag, *solution, targets, o.train.seed);
    nlohmann::json j{{"kernel", o.kernel}, {"groups", solution->groups}, {"seed", o.train.seed}};
    j.update(r.report);
    if (!r.ok)
      std::cerr << "opevo-kas-train: " << o.kernel
                << ": the torch module differs from the interpreter\n";
    std::cout << j.dump() << std::endl;
    return r.ok ? 0 : 1;
  }
  const kastrain::ImageSet trainSet = kastrain::loadFashionMnist(o.data, true);
  const kastrain::ImageSet testSet = kastrain::loadFashionMnist(o.data, false);
  std::cerr << (o.baseline ? std::string("baseline") : o.kernel) << ": training on "
            << std::min(o.train.trainImages, trainSet.count) << " images, " << o.threads
            << " thread(s)\n";
  const kastrain::KernelPlan plan{dag ? &*dag : nullptr, solution ? &*solution : nullptr};
  const kastrain::TrainResult r = kastrain::train(backbone, plan, trainSet, testSet, o.train);
  nlohmann::json j{{"kernel", optionalString(o.kernel)},
                   {"baseline", o.baseline},
                   {"accuracy", r.accuracy},
                   {"curve", r.curve},
                   {"losses", r.losses},
                   {"epochs", o.train.epochs},
                   {"epochs_run", r.epochsRun},
                   {"stopped_early", r.stoppedEarly},
                   {"diverged", r.diverged},
                   {"seconds", r.seconds},
                   {"params", r.params},
                   {"kernel_params", r.kernelParams},
                   {"groups", solution ? nlohmann::json(solution->groups) : nlohmann::json()},
                   {"train_images", std::min(o.train.trainImages, trainSet.count)},
                   {"test_images", std::min(o.train.testImages, testSet.count)},
                   {"batch", o.train.batch},
                   {"threads", o.threads},
                   {"seed", o.train.seed}};
  if (solution) {
    j["flops_ratio"] = solution->flops / solution->convFlops;
    j["params_ratio"] = solution->params / solution->convParams;
  }
  // Flushed before exit: a caller reading stdout and stderr as one stream takes its last line.
  std::cout << j.dump() << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // A search killed with -9 cannot stop the training it started: the training goes with it rather
  // than run on for minutes with nobody to read its result.
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) return 1;
  CLI::App app{
      "Train the Fashion-MNIST backbone with a Canvas kernel in place of its 3x3 "
      "convolutions (or check the kernel's torch module against the interpreter)"};
  Options o;
  addOptions(app, o);
  cli::checkNumbers(app);
  try {
    app.parse(argc, argv);
    return run(o);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "opevo-kas-train: " << e.what() << " (see opevo-kas-train --help)\n";
    return 2;
  } catch (const InputError& e) {
    std::cerr << "opevo-kas-train: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "opevo-kas-train: internal error: " << e.what() << "\n";
    return 1;
  }
}
