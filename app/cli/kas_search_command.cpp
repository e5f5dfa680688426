// opevo kas search | searches | report | train: Canvas's loop, its stored results, and one
// kernel's training on its own.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.h"
#include "cli/interrupt_notice.h"
#include "cli/kas_groups_text.h"
#include "cli/measuring_options.h"
#include "cli/option_checks.h"
#include "common/error.h"
#include "kas/backbone.h"
#include "kas/candidate_front.h"
#include "kas/kas_checks.h"
#include "kas/kas_json.h"
#include "kas/kas_search.h"
#include "kas/share_text.h"
#include "kas/training_limits.h"
#include "space/text.h"
#include "store/live_status.h"

namespace opevo::cli {
namespace {

std::atomic<bool> g_stop{false};  // set by the first Ctrl-C (InterruptNotice)

void onInterrupt() {
  g_stop = true;  // a flag alone: the search ends its candidate in hand, a training at once
}

struct SearchOptions {
  kas::KasSearchSettings settings;
  MeasuringArgs measuring;             // settings.measuring, as the command line gave it
  std::optional<std::int64_t> resume;  // given: whatever the id (0 and -1 are no search either)
  std::string db;
  bool json = false;
};

std::string fmt(const std::optional<double>& v, const char* format, const char* none = "-") {
  if (!v) return none;
  char buf[32];
  std::snprintf(buf, sizeof buf, format, *v);
  return buf;
}

// The convolution figures every candidate was compared with; nullopt for a search stored before
// they were shared (each candidate then timed its own).
std::optional<kas::ConvBaseline> convolutionOf(const KasSearchRecord& r) {
  const auto j = nlohmann::json::parse(r.baselineJson, nullptr, false);
  if (!j.is_object() || !j.contains("convolution")) return std::nullopt;
  return kas::ConvBaseline::fromJson(j["convolution"]);
}

// An accuracy as the tables print it: a diverged training's is chance's, not the kernel's.
std::string accuracyText(const KasCandidateRow& c) {
  if (kas::trainingDiverged(c)) return "diverged";
  return fmt(c.accuracy ? std::optional(*c.accuracy * 100) : std::nullopt, "%.2f%%");
}

std::string baselineText(const std::optional<double>& base) {
  return base ? fmt(*base * 100, "%.2f%%") : "-";
}

// A speed-up as words: below 1 the kernel is slower than the convolutions.
std::string speedText(double speedup) {
  char buf[96];
  if (speedup >= 1)
    std::snprintf(buf, sizeof buf, "%.2fx faster than the convolutions", speedup);
  else
    std::snprintf(buf, sizeof buf, "%.2fx the convolutions' speed (slower)", speedup);
  return buf;
}

nlohmann::json candidateJson(const KasCandidateRow& c) {
  nlohmann::json j = {{"seq", c.seq},
                      {"hash", c.hash},
                      {"stage", std::string(kasStageNames().name(c.stage))},
                      {"groups", c.groups},
                      {"flops_ratio", c.flopsRatio},
                      {"params_ratio", c.paramsRatio},
                      {"stopped_early", c.stoppedEarly},
                      {"tune_seconds", c.tuneSeconds},
                      {"train_seconds", c.trainSeconds},
                      {"message", c.message}};
  j["kernel_ms"] = c.kernelMs ? nlohmann::json(*c.kernelMs) : nlohmann::json();
  j["conv_ms"] = c.convMs ? nlohmann::json(*c.convMs) : nlohmann::json();
  j["speedup"] = c.speedup() ? nlohmann::json(*c.speedup()) : nlohmann::json();
  j["accuracy"] = c.accuracy ? nlohmann::json(*c.accuracy) : nlohmann::json();
  j["diverged"] = kas::trainingDiverged(c);
  // What Kernel ms is the sum of: count x the chosen schedule's median, per layer.
  nlohmann::json layers = nlohmann::json::array();
  for (const kas::LayerTime& t : kas::layerTimes(c))
    layers.push_back(
        {{"layer", t.layer},
         {"count", t.count},
         {"ms", t.chosenMs},
         {"best_trial_ms", t.bestTrialMs ? nlohmann::json(*t.bestTrialMs) : nlohmann::json()},
         {"schedule", t.schedule},
         {"notes", t.notes}});
  j["layers"] = std::move(layers);
  return j;
}

// What each tuned candidate's Kernel ms is made of, so that it can be traced from the layers.
void printLayerTimes(const std::vector<KasCandidateRow>& all) {
  bool header = false;
  for (const auto& c : all) {
    const std::vector<kas::LayerTime> layers = kas::layerTimes(c);
    if (layers.empty() || !c.kernelMs) continue;
    if (!header) {
      std::printf(
          "\nkernel ms per layer: count x the chosen schedule's median (timed again after the "
          "tuning), summed; the best trial is the fastest single timing while tuning\n");
      std::printf("%4s  %-24s %5s %10s %14s %11s\n", "seq", "layer", "count", "median ms",
                  "count x median", "best trial");
      header = true;
    }
    for (const kas::LayerTime& t : layers) {
      std::printf("%4d  %-24s %5lld %10.4f %14.4f %11s\n", c.seq, t.layer.c_str(),
                  static_cast<long long>(t.count), t.chosenMs,
                  static_cast<double>(t.count) * t.chosenMs, fmt(t.bestTrialMs, "%.4f").c_str());
      // How many of the layer's trials were timed by fewer runs than asked, or failed.
      if (!t.notes.empty()) std::printf("%4s  %-24s %s\n", "", "", t.notes.c_str());
    }
    std::printf("%4d  %-24s %5s %10s %14.3f\n", c.seq, "kernel ms", "", "", *c.kernelMs);
  }
}

void printReport(const Store& store, std::int64_t id, bool json) {
  const auto r = store.kasSearch(id);
  if (!r) throw InputError("no kernel search " + std::to_string(id) + " in " + store.path());
  const auto all = store.kasCandidates(id);
  // As it stands: stored "running" by a program that died reads as interrupted.
  const RunStatus status = LiveStatus(store).of(*r);
  const std::optional<double> base = kas::baselineAccuracy(*r);
  const std::vector<const KasCandidateRow*> candidates = kas::pointersTo(all);
  const std::vector<int> front = kas::frontSeqs(candidates);
  const KasCandidateRow* best = base ? kas::bestWithinLoss(candidates, *base, 0.01) : nullptr;
  double sampleS = 0, tuneS = 0, trainS = 0;
  if (const auto b = nlohmann::json::parse(r->baselineJson, nullptr, false); b.is_object()) {
    sampleS = b.value("sample_seconds", 0.0);
    trainS = b.value("seconds", 0.0);
  }
  for (const auto& c : all) {
    tuneS += c.tuneSeconds;
    trainS += c.trainSeconds;
  }
  if (json) {
    nlohmann::json out = {{"search", id},
                          {"network", r->network},
                          {"status", std::string(runStatusName(status))},
                          {"baseline_accuracy", base ? nlohmann::json(*base) : nlohmann::json()},
                          {"seconds", {{"sample", sampleS}, {"tune", tuneS}, {"train", trainS}}},
                          {"candidates", nlohmann::json::array()},
                          {"pareto", nlohmann::json::array()}};
    if (const auto conv = convolutionOf(*r)) out["convolution"] = conv->toJson();
    for (const auto& c : all) out["candidates"].push_back(candidateJson(c));
    for (int seq : front) out["pareto"].push_back(seq);
    // The fastest kernel at least as accurate as the baseline minus 1 point (null without one,
    // or without a baseline).
    out["best_within_1pt"] = best ? candidateJson(*best) : nlohmann::json();
    std::cout << out.dump() << "\n";
    return;
  }
  std::size_t trained = 0, failed = 0;
  for (const auto& c : all) {
    trained += c.stage == KasStage::Trained;
    failed += c.stage == KasStage::Failed;
  }
  std::printf("kernel search %lld on %s: %s, %zu candidates (%zu trained, %zu failed)\n",
              static_cast<long long>(id), r->network.c_str(),
              std::string(runStatusName(status)).c_str(), all.size(), trained, failed);
  if (status != r->status)
    std::printf(
        "(stored as running, but no process runs it: its program ended without a word; it "
        "resumes with opevo kas search --resume %lld)\n",
        static_cast<long long>(id));
  std::printf("baseline (standard convolutions) accuracy %s\n",
              base ? baselineText(base).c_str() : "not trained yet");
  std::printf("time: sampling %.3f s, tuning %.1f s, training %.1f s\n", sampleS, tuneS, trainS);
  if (const auto conv = convolutionOf(*r)) std::printf("conv ms: %s\n", conv->describe().c_str());
  std::printf("\n%4s  %-16s %5s %7s %10s %10s %8s %9s  %s\n", "seq", "kernel", "G", "FLOPs",
              "kernel ms", "conv ms", "speed-up", "accuracy", "");
  for (const auto& c : all) {
    const bool onFront = std::find(front.begin(), front.end(), c.seq) != front.end();
    std::string note = onFront ? "pareto" : "";
    if (c.stoppedEarly) note += std::string(note.empty() ? "" : ", ") + "stopped early";
    if (!c.message.empty()) note += std::string(note.empty() ? "" : ", ") + c.message;
    std::printf("%4d  %-16s %5lld %7s %10s %10s %8s %9s  %s\n", c.seq, c.hash.c_str(),
                static_cast<long long>(c.groups), kas::shareText(c.flopsRatio).c_str(),
                fmt(c.kernelMs, "%.3f").c_str(), fmt(c.convMs, "%.3f").c_str(),
                fmt(c.speedup(), "%.2fx").c_str(), accuracyText(c).c_str(), note.c_str());
  }
  printLayerTimes(all);
  std::printf("\nPareto front (speed-up, accuracy):");
  for (int seq : front) {
    const KasCandidateRow& c = *std::find_if(
        all.begin(), all.end(), [&](const KasCandidateRow& r) { return r.seq == seq; });
    std::printf(" #%d (%.2fx, %.2f%%)", c.seq, *c.speedup(), *c.accuracy * 100);
  }
  const bool ended = status == RunStatus::Finished || status == RunStatus::Failed;
  std::printf("%s\n", !front.empty() ? "" : ended ? " none" : " none yet");
  std::string diverged;
  for (const auto& c : all)
    if (kas::trainingDiverged(c))
      diverged += (diverged.empty() ? " #" : ", #") + std::to_string(c.seq);
  if (!diverged.empty())
    std::printf(
        "left off the front:%s (training diverged: the loss was not finite, so the accuracy is "
        "chance's, not the kernel's)\n",
        diverged.c_str());
  // bestWithinLoss takes any kernel down to a point below the baseline: above it too, and
  // slower than the convolutions as well as faster.
  constexpr const char* kRule = "at least as accurate as the baseline minus 1 point";
  if (best)
    std::printf("fastest kernel %s: #%d %s, %s, %.2f%% (baseline %.2f%%)\n", kRule, best->seq,
                best->hash.c_str(), speedText(*best->speedup()).c_str(), *best->accuracy * 100,
                *base * 100);
  else if (!base)
    std::printf("no kernel is compared with the baseline: it is not trained yet\n");
  else
    std::printf("no trained kernel is %s%s\n", kRule, ended ? "" : " yet");
}

// The search's progress on standard error. On a terminal, a step's progress (a layer's trials)
// is one line rewritten in place; elsewhere (a file, a pipe, CI's log) every line is a plain
// one, as opevo tune's progress printer writes them: carriage returns and padding made a log one
// line thousands of characters long.
class PrintingObserver final : public kas::KasSearchObserver {
 public:
  PrintingObserver(int total, bool terminal) : m_total(total), m_terminal(terminal) {}
  void baselineTrained(const kas::TrainResult& r) override {
    endLive();
    std::fprintf(stderr, "baseline: accuracy %.2f%% in %.1f s\n", r.accuracy * 100, r.seconds);
  }
  void convolutionTimed(const kas::ConvBaseline& b) override {
    endLive();
    std::fprintf(stderr, "%s\n", b.describe().c_str());
  }
  void candidateUpdated(const KasCandidateRow& c) override {
    endLive();
    switch (c.stage) {
      case KasStage::Sampled:
        header(c, "");
        break;
      case KasStage::Tuned:
        std::fprintf(stderr,
                     "[%d/%d]   tuned in %.0f s: %.3f ms (count x chosen schedule's median, summed "
                     "over the layers) against %.3f ms, %.2fx%s%s\n",
                     c.seq, m_total, c.tuneSeconds, *c.kernelMs, *c.convMs, *c.speedup(),
                     c.message.empty() ? "" : "; ", c.message.c_str());
        break;
      case KasStage::Trained:
        if (kas::trainingDiverged(c))
          std::fprintf(stderr,
                       "[%d/%d]   trained in %.0f s: training diverged (no accuracy: the loss was "
                       "not finite)\n",
                       c.seq, m_total, c.trainSeconds);
        else
          std::fprintf(stderr, "[%d/%d]   trained in %.0f s: accuracy %.2f%%%s%s%s\n", c.seq,
                       m_total, c.trainSeconds, *c.accuracy * 100,
                       c.stoppedEarly ? " (stopped early)" : "", c.message.empty() ? "" : "; ",
                       c.message.c_str());
        break;
      case KasStage::Failed:
        std::fprintf(stderr, "[%d/%d]   failed: %s\n", c.seq, m_total, c.message.c_str());
        break;
    }
  }
  // A resumed search's candidate gets its header again: its next step's lines follow it.
  void candidateResumed(const KasCandidateRow& c) override {
    endLive();
    header(c, c.stage == KasStage::Tuned ? " (resumed: tuned before, to be trained)"
                                         : " (resumed: its tuning starts again)");
  }
  void note(const std::string& text) override {
    endLive();
    std::fprintf(stderr, "%s\n", text.c_str());
  }
  void stepProgress(int seq, const std::string& what) override {
    if (!m_terminal) {
      std::fprintf(stderr, "[%d/%d]   %s\n", seq, m_total, what.c_str());
      return;
    }
    std::fprintf(stderr, "\r\033[K[%d/%d]   %s", seq, m_total, what.c_str());
    m_live = true;
  }
  void header(const KasCandidateRow& c, const char* resumed) {
    std::fprintf(stderr, "[%d/%d] %s: G=%lld, %s of the FLOPs%s\n", c.seq, m_total, c.hash.c_str(),
                 static_cast<long long>(c.groups), kas::shareText(c.flopsRatio).c_str(), resumed);
  }
  // Ends the live line, so what is printed next starts on a line of its own.
  void endLive() {
    if (!m_live) return;
    std::fprintf(stderr, "\r\033[K");
    m_live = false;
  }

 private:
  int m_total;
  bool m_terminal;
  bool m_live = false;  // a live line is on screen
};

// ", timed with --timeout 5 --slow-cutoff 0" where a search's measuring is not the defaults.
std::string measuringText(const kas::KasMeasurerOptions& m) {
  const std::string options = measuringArgsText(measuringArgsOf(m));
  return options.empty() ? options : ", timed with" + options;
}

void runSearch(SearchOptions& o) {
  const bool terminal = isatty(fileno(stderr)) == 1;
  // Every setting is checked before the database is opened, let alone a search stored in it
  // (the KasSearch constructor checks again, for the window).
  if (!o.resume) {
    o.settings.measuring = kasMeasuring(o.measuring);
    o.settings.check();
  }
  Store store(o.resume ? existingDatabase(o.db) : o.db.empty() ? Store::defaultPath() : o.db);
  std::unique_ptr<kas::KasSearch> search =
      o.resume ? std::make_unique<kas::KasSearch>(store, *o.resume)
               : std::make_unique<kas::KasSearch>(store, o.settings);
  const auto& s = search->settings();
  if (!o.json)
    std::fprintf(stderr,
                 "kernel search %lld: %s on %s, FLOPs and weights within %.3g%% and "
                 "%.3g%%, %s per layer, %s on %d images (accuracy on %d test images), %s%s%s\n",
                 static_cast<long long>(search->id()),
                 counted(s.candidates, "candidate", "candidates").c_str(), s.network.c_str(),
                 s.budget.flops * 100, s.budget.params * 100,
                 counted(s.trials, "trial", "trials").c_str(),
                 counted(s.training.epochs, "epoch", "epochs").c_str(), s.training.trainImages,
                 s.training.testImages, groupsSource(s.groups, s.seed).c_str(),
                 // How its schedules are timed, where not by default: a resume says it too.
                 measuringText(s.measuring).c_str(), o.resume ? " (resumed)" : "");
  PrintingObserver printer(s.candidates, terminal);
  g_stop = false;
  const std::string resume =
      "opevo kas search --resume " + std::to_string(search->id()) + databaseHint(o.db);
  // Ctrl-C (SIGTERM, SIGHUP) stops the search after the candidate in hand; a second one kills
  // the worker, compilers and trainer (process groups of their own, which a terminal's Ctrl-C does
  // not reach) and ends the program, the candidate in hand lost (the search then reads
  // interrupted).
  std::optional<InterruptNotice> notice(std::in_place, "kernel search");
  notice->rearm("kernel search " + std::to_string(search->id()) +
                    ": the candidate in hand was abandoned, every finished one is kept (continue "
                    "it with " +
                    resume + ")",
                onInterrupt, "stopping after the candidate in hand (Ctrl-C again to end now)",
                [] { storeAbandonedRunsStopped({}, {}); });
  const RunStatus status = search->run(o.json ? nullptr : &printer, &g_stop);
  notice.reset();
  printer.endLive();
  printReport(store, search->id(), o.json);
  // Stopped by a signal: its exit status (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).
  if (status == RunStatus::Interrupted && stopSignal())
    throw Interrupted("kernel search " + std::to_string(search->id()) +
                      " stopped (continue it with " + resume + ")");
  if (status == RunStatus::Interrupted)
    throw RunFailed("kernel search " + std::to_string(search->id()) +
                    " interrupted (continue it with " + resume + ")");
  if (status == RunStatus::Failed)
    throw RunFailed("kernel search " + std::to_string(search->id()) + " failed");
}

void runSearches(const std::string& db, bool json) {
  const Store store(existingDatabase(db), Store::Opening::ExistingOnly);
  nlohmann::json out = nlohmann::json::array();
  if (!json)
    std::printf("%4s  %-10s %-12s %-24s %10s %8s %9s\n", "id", "network", "status", "started",
                "candidates", "trained", "baseline");
  const LiveStatus live(store);
  for (const auto& r : store.kasSearches()) {
    const auto all = store.kasCandidates(r.id);
    const std::string status(runStatusName(live.of(r)));
    std::size_t trained = 0;
    for (const auto& c : all) trained += c.stage == KasStage::Trained;
    const std::optional<double> base = kas::baselineAccuracy(r);
    if (json) {
      out.push_back({{"id", r.id},
                     {"network", r.network},
                     {"status", status},
                     {"started", r.started},
                     {"candidates", all.size()},
                     {"trained", trained},
                     {"baseline_accuracy", base ? nlohmann::json(*base) : nlohmann::json()}});
    } else {
      std::printf("%4lld  %-10s %-12s %-24s %10zu %8zu %9s\n", static_cast<long long>(r.id),
                  r.network.c_str(), status.c_str(), r.started.c_str(), all.size(), trained,
                  baselineText(base).c_str());
    }
  }
  if (json) std::cout << out.dump() << "\n";
}

struct TrainOptions {
  std::string file;
  bool baseline = false;
  std::int64_t groups = 0;  // 0: the file's G, else the first that fits
  kas::TrainRequest request;
  bool json = false;
};

void runTrain(TrainOptions& o) {
  kas::TrainRequest q = o.request;
  if (o.baseline && !o.file.empty())
    throw InputError("--baseline trains the plain backbone: give no kernel file");
  if (!o.baseline && o.file.empty()) throw InputError("give a kernel file, or --baseline");
  // What opevo-kas-train would refuse after it started, refused here in its words.
  kas::checkTraining(q);
  std::string groupsText;
  if (!o.baseline) {
    // The file's G, as show, solve and tune take it: sampling fitted it to the network and to
    // this backbone both, and --groups 4 trained a kernel at G=1 when the file said 4.
    const kas::KernelFile kernel = kas::readKernelFile(o.file);
    const kas::MicroDag& dag = kernel.dag;
    // Checked here, naming the file, as the training program would check its copy of it.
    const kas::SolveResult solved = kas::solveKernel(dag, kas::backboneTargets(),
                                                     o.groups ? o.groups : kernel.groups, q.budget);
    if (!solved.solution)
      throw InputError(o.file + ": does not fit the backbone's convolutions: " + solved.error +
                       sampledWith(kernel.groups, o.groups));
    q.groups = solved.solution->groups;
    q.kernelJson = kas::kernelToJson(dag).dump();
    groupsText = "G=" + std::to_string(q.groups) + " (" + groupsFrom(kernel.groups, o.groups) + ")";
  }
  const std::string what = o.baseline ? "baseline" : o.file;
  if (!o.json)
    std::fprintf(stderr, "%s%s%s: training %s on %d images\n", what.c_str(),
                 groupsText.empty() ? "" : " at ", groupsText.c_str(),
                 counted(q.epochs, "epoch", "epochs").c_str(), q.trainImages);
  std::string why;
  const auto r = kas::runTraining(q, &why, nullptr, [&](const std::string& line) {
    if (!o.json) std::fprintf(stderr, "%s\n", line.c_str());
  });
  if (!r) throw RunFailed(why);
  if (o.json) {
    // The training program read a temporary copy of the kernel: the file given is the one named.
    nlohmann::json out = r->raw;
    if (out.is_object() && out.contains("kernel"))
      out["kernel"] = o.baseline ? nlohmann::json() : nlohmann::json(o.file);
    std::cout << out.dump() << "\n";
    return;
  }
  std::printf("%s%s%s: accuracy %s after %d of %d epochs in %.1f s%s\n", what.c_str(),
              groupsText.empty() ? "" : " at ", groupsText.c_str(),
              r->diverged ? "- (training diverged)" : fmt(r->accuracy * 100, "%.2f%%").c_str(),
              r->epochsRun, q.epochs, r->seconds,
              r->stoppedEarly ? " (stopped early by Canvas's rule)" : "");
  std::printf("curve:");
  for (double a : r->curve) std::printf(" %.2f%%", a * 100);
  std::printf("\n");
}

void addTrainingOptions(CLI::App* c, kas::TrainRequest& t) {
  // The training program's own limits and words (core/kas/training_limits.h): a value it would
  // refuse is refused here, before a search is stored or a baseline trained.
  using L = kas::TrainingLimits;
  c->add_option("--epochs", t.epochs, "Training epochs")
      ->capture_default_str()
      ->check(wholeIn(1, L::maxEpochs));
  c->add_option("--train-images", t.trainImages, "Fashion-MNIST training images used")
      ->capture_default_str()
      ->check(wholeIn(1, L::maxTrainImages));
  c->add_option("--test-images", t.testImages, "Test images the accuracy is measured on")
      ->capture_default_str()
      ->check(wholeIn(1, L::maxTestImages));
  c->add_option("--batch", t.batch, "Batch size")
      ->capture_default_str()
      ->check(wholeIn(1, L::maxBatch));
  c->add_option("--train-seed", t.seed, "Seed of the training")->capture_default_str();
  c->add_option("--theta", t.theta, "Canvas's early-stopping strictness")
      ->capture_default_str()
      ->check(numberIn(0.0, 1.0));
  c->add_option("--threads", t.threads, "Training threads (default: every core)")
      ->check(wholeIn(1, L::maxThreads));
  c->add_option("--data", t.dataDir,
                "Fashion-MNIST folder (default: /usr/share/datasets/fashion-mnist, Debian's "
                "dataset-fashion-mnist)");
}

}  // namespace

void addKasSearchCommands(CLI::App* kas) {
  static SearchOptions search;
  CLI::App* s = kas->add_subcommand(
      "search", "Canvas's loop: sample kernels, tune each for speed, train each for accuracy");
  auto& st = search.settings;
  s->add_option("--network", st.network, "Network whose convolutions are timed")
      ->capture_default_str();
  s->add_option("--candidates", st.candidates, "Kernels evaluated")
      ->capture_default_str()
      ->check(atLeast(1));
  s->add_option("--seconds", st.seconds, "Stop after this long (0: no limit)")
      ->capture_default_str()
      ->check(nonNegativeFinite());
  s->add_option("--flops", st.budget.flops, "FLOPs budget, a fraction of the convolutions'")
      ->capture_default_str()
      ->check(numberIn(1e-6, 100.0));
  s->add_option("--params", st.budget.params, "Weights budget, a fraction of the convolutions'")
      ->capture_default_str()
      ->check(numberIn(1e-6, 100.0));
  s->add_option("--groups", st.groups, "Group count G (default: drawn per kernel)")
      ->check(atLeast(1));
  s->add_option("--seed", st.seed, "Seed of the sampler and the tuners")->capture_default_str();
  s->add_option("--trials", st.trials, "Schedules measured per replaced layer")
      ->capture_default_str()
      ->check(atLeast(1));
  s->add_option("--algo", st.algorithm, "Tuning algorithm (opevo tuners)")->capture_default_str();
  s->add_option("--min-speedup", st.minSpeedup,
                "Train only kernels at least this much faster than the convolution")
      ->capture_default_str()
      ->check(nonNegativeFinite());
  addTrainingOptions(s, st.training);
  addMeasuringOptions(s, search.measuring, kasTimeoutText());
  CLI::Option* resume = s->add_option(
      "--resume", search.resume, "Continue a stored search (opevo kas searches) with its settings");
  s->add_option("--db", search.db, "The database (default: the user's data directory)");
  s->add_flag("--json", search.json, "Print one JSON object");
  // A resumed search goes on with its stored settings: every option that sets one is refused
  // beside --resume, not ignored.
  for (CLI::Option* option : s->get_options())
    if (option != resume && option->get_name() != "--db" && option->get_name() != "--json" &&
        option->get_name() != "--help")
      resume->excludes(option);
  s->callback([] { runSearch(search); });

  static std::pair<std::string, bool> list;
  CLI::App* l = kas->add_subcommand("searches", "The stored kernel searches");
  l->add_option("--db", list.first, "The database (default: the user's data directory)");
  l->add_flag("--json", list.second, "Print JSON");
  l->callback([] { runSearches(list.first, list.second); });

  static std::int64_t reportId = 0;
  static std::pair<std::string, bool> report;
  CLI::App* r =
      kas->add_subcommand("report", "A stored search's candidates, Pareto front and best kernel");
  r->add_option("id", reportId, "Search id (opevo kas searches)")->required();
  r->add_option("--db", report.first, "The database (default: the user's data directory)");
  r->add_flag("--json", report.second, "Print one JSON object");
  r->callback([] {
    const Store store(existingDatabase(report.first), Store::Opening::ExistingOnly);
    printReport(store, reportId, report.second);
  });

  static TrainOptions train;
  CLI::App* t = kas->add_subcommand(
      "train", "Train the Fashion-MNIST backbone with a kernel in place of its convolutions");
  t->add_option("file", train.file, "Kernel file");
  t->add_flag("--baseline", train.baseline, "Train the backbone with its standard convolutions");
  t->add_option("--flops", train.request.budget.flops, "FLOPs budget")
      ->capture_default_str()
      ->check(numberIn(1e-6, 100.0));
  t->add_option("--params", train.request.budget.params, "Weights budget")
      ->capture_default_str()
      ->check(numberIn(1e-6, 100.0));
  t->add_option("--groups", train.groups,
                "Group count G (default: the file's, else the first that fits)")
      ->check(atLeast(1));
  addTrainingOptions(t, train.request);
  t->add_option("--reference-curve", train.request.referenceCurve,
                "Accuracy per epoch of the best result so far (a1,a2,...): stops early below "
                "Canvas's threshold")
      ->delimiter(',')
      ->check(numberIn(0.0, 1.0));
  t->add_flag("--json", train.json, "Print the training program's JSON");
  t->callback([] { runTrain(train); });
}

}  // namespace opevo::cli
