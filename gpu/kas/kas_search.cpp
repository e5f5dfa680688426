#include "kas/kas_search.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>

#include "common/error.h"
#include "kas/backbone.h"
#include "kas/candidate_sampling.h"
#include "kas/conv_targets.h"
#include "kas/kas_checks.h"
#include "kas/kas_conv_timing.h"
#include "kas/kas_json.h"
#include "kas/kas_tuning.h"

namespace opevo::kas {
namespace {

using Clock = std::chrono::steady_clock;

// Timings of each convolution the shared figure is the fastest of: five take about a second per
// layer shape of ResNet-18 here.
constexpr int kConvolutionRepeats = 5;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string hex(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// The curve the next candidate is held to: that of the most accurate full training so far (the
// baseline's until a candidate beats it).
std::vector<double> referenceCurve(const nlohmann::json& baseline,
                                   const std::vector<KasCandidateRow>& done) {
  std::vector<double> curve;
  double best = -1;
  if (baseline.contains("curve")) {
    curve = baseline["curve"].get<std::vector<double>>();
    best = baseline.value("accuracy", 0.0);
  }
  for (const KasCandidateRow& c : done) {
    if (c.stage != KasStage::Trained || c.stoppedEarly || !c.accuracy || *c.accuracy <= best)
      continue;
    const auto j = nlohmann::json::parse(c.trainingJson, nullptr, false);
    if (j.is_discarded() || !j.contains("curve")) continue;
    curve = j["curve"].get<std::vector<double>>();
    best = *c.accuracy;
  }
  return curve;
}

}  // namespace

nlohmann::json KasSearchSettings::toJson() const {
  const TrainRequest& t = training;
  return {{"network", network},
          {"flops", budget.flops},
          {"params", budget.params},
          {"groups", groups},
          {"candidates", candidates},
          {"seconds", seconds},
          {"seed", seed},
          {"min_primitives", minPrimitives},
          {"max_primitives", maxPrimitives},
          {"algorithm", algorithm},
          {"trials", trials},
          {"min_speedup", minSpeedup},
          {"training",
           {{"epochs", t.epochs},
            {"train_images", t.trainImages},
            {"test_images", t.testImages},
            {"batch", t.batch},
            {"seed", t.seed},
            {"threads", t.threads},
            {"theta", t.theta},
            {"data", t.dataDir}}},
          {"measuring", measuringJson(measuring)}};
}

KasSearchSettings KasSearchSettings::fromJson(const nlohmann::json& j) {
  KasSearchSettings s;
  try {
    s.network = j.at("network").get<std::string>();
    s.budget.flops = j.at("flops").get<double>();
    s.budget.params = j.at("params").get<double>();
    s.groups = j.at("groups").get<std::int64_t>();
    s.candidates = j.at("candidates").get<int>();
    s.seconds = j.at("seconds").get<double>();
    s.seed = j.at("seed").get<std::uint64_t>();
    s.minPrimitives = j.at("min_primitives").get<std::size_t>();
    s.maxPrimitives = j.at("max_primitives").get<std::size_t>();
    s.algorithm = j.at("algorithm").get<std::string>();
    s.trials = j.at("trials").get<int>();
    s.minSpeedup = j.at("min_speedup").get<double>();
    const auto& t = j.at("training");
    s.training.epochs = t.at("epochs").get<int>();
    s.training.trainImages = t.at("train_images").get<int>();
    s.training.testImages = t.at("test_images").get<int>();
    s.training.batch = t.at("batch").get<int>();
    s.training.seed = t.at("seed").get<std::uint64_t>();
    s.training.threads = t.at("threads").get<int>();
    s.training.theta = t.at("theta").get<double>();
    s.training.dataDir = t.at("data").get<std::string>();
    if (j.contains("measuring")) s.measuring = measuringFromJson(j.at("measuring"));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("kernel search settings: ") + e.what());
  }
  return s;
}

void KasSearchSettings::check() const {
  const std::vector<ConvTarget> targets = networkTargets(network);
  if (!(budget.flops > 0 && budget.params > 0 && std::isfinite(budget.flops) &&
        std::isfinite(budget.params)))
    throw InputError("--flops and --params must be fractions above 0");
  checkGroups(targets, groups, network);
  if (candidates < 1)
    throw InputError("--candidates " + std::to_string(candidates) + ": expected 1 or more");
  if (!(seconds >= 0 && std::isfinite(seconds)))
    throw InputError("--seconds: expected 0 (no limit) or more");
  if (minPrimitives < 1 || maxPrimitives < minPrimitives)
    throw InputError("--min-primitives must be at least 1 and at most --max-primitives");
  checkTuning(targets, algorithm, trials);
  if (!(minSpeedup >= 0 && std::isfinite(minSpeedup)))
    throw InputError("--min-speedup: expected 0 or more");
  checkTraining(training);
  checkMeasuring(measuring);
}

KasSearch::KasSearch(Store& store, KasSearchSettings settings)
    : m_store(store), m_settings(std::move(settings)) {
  m_settings.check();  // a bad setting is named before anything is stored or trained
  KasSearchRecord r;
  r.network = m_settings.network;
  r.settingsJson = m_settings.toJson().dump();
  m_id = m_store.createKasSearch(r);
  m_lock = std::make_unique<RunLock>(m_store.path(), LockedKind::KasSearch, m_id);
}

KasSearch::KasSearch(Store& store, std::int64_t searchId) : m_store(store), m_id(searchId) {
  const auto r = m_store.kasSearch(searchId);
  if (!r) throw InputError("no kernel search " + std::to_string(searchId) + " in " + store.path());
  m_lock = std::make_unique<RunLock>(m_store.path(), LockedKind::KasSearch, m_id);
  const auto j = nlohmann::json::parse(r->settingsJson, nullptr, false);
  if (j.is_discarded())
    throw InputError("kernel search " + std::to_string(searchId) + ": its settings are not JSON");
  m_settings = KasSearchSettings::fromJson(j);
  m_settings.check();  // the dataset may have moved, the trainer's limits changed
}

RunStatus KasSearch::run(KasSearchObserver* observer, const std::atomic<bool>* stop) {
  KasSearchObserver silent;
  KasSearchObserver& obs = observer ? *observer : silent;
  const KasSearchSettings& s = m_settings;
  const auto start = Clock::now();
  const auto stopping = [&] {
    return (stop && stop->load()) || (s.seconds > 0 && since(start) >= s.seconds);
  };
  m_store.setKasSearchStatus(m_id, RunStatus::Running);

  const std::vector<ConvTarget> netTargets = networkTargets(s.network);

  // Sampling is repeated in full on a resume: the same seed gives the same kernels in the same
  // order (the accept test, and the group order it draws, are deterministic too).
  const auto sampleStart = Clock::now();
  CandidateSampling sampling;
  sampling.seed = s.seed;
  sampling.count = s.candidates > 0 ? static_cast<std::size_t>(s.candidates) : 2000;
  sampling.options.minPrimitives = s.minPrimitives;
  sampling.options.maxPrimitives = s.maxPrimitives;
  sampling.groups = s.groups;
  sampling.budget = s.budget;
  const std::vector<SampledCandidate> kernels = sampleCandidates(netTargets, sampling);
  const double sampleSeconds = since(sampleStart);
  if (kernels.empty()) {
    obs.note(noKernelFitsText(s.network));
    m_store.setKasSearchStatus(m_id, RunStatus::Failed);
    return RunStatus::Failed;
  }

  std::vector<KasCandidateRow> done = m_store.kasCandidates(m_id);
  std::map<int, KasCandidateRow> stored;
  for (const auto& c : done) stored[c.seq] = c;

  nlohmann::json baseline =
      nlohmann::json::parse(m_store.kasSearch(m_id)->baselineJson, nullptr, false);
  if (!baseline.is_object()) baseline = nlohmann::json::object();
  if (!baseline.contains("accuracy")) {
    obs.note("training the baseline backbone");
    std::string why;
    const auto b = runTraining(s.training, &why, stop,
                               [&](const std::string& line) { obs.note("baseline " + line); });
    if (!b) {
      obs.note(why);
      const RunStatus status = stop && stop->load() ? RunStatus::Interrupted : RunStatus::Failed;
      m_store.setKasSearchStatus(m_id, status);
      return status;
    }
    baseline["accuracy"] = b->accuracy;
    baseline["curve"] = b->curve;
    baseline["seconds"] = b->seconds;
    baseline["sample_seconds"] = sampleSeconds;
    baseline["result"] = b->raw;
    m_store.setKasSearchBaseline(m_id, baseline.dump());
    obs.baselineTrained(*b);
  }
  // The convolutions are timed once, after the baseline's training (a trainer that is missing
  // fails the search at once) and before any candidate, and stored: a resume compares its
  // candidates with the same figures. A search stored before they were shared gets them now.
  std::optional<ConvBaseline> convolution;
  if (baseline.contains("convolution"))
    convolution = ConvBaseline::fromJson(baseline["convolution"]);
  if (!convolution) {
    obs.note("timing the convolutions (" + std::to_string(kConvolutionRepeats) +
             " times each, the fastest shared by every kernel)");
    std::string why;
    convolution = timeConvBaseline(netTargets, kConvolutionRepeats, s.measuring, &why, stop);
    if (!convolution) {
      obs.note(why);
      const RunStatus status = stop && stop->load() ? RunStatus::Interrupted : RunStatus::Failed;
      m_store.setKasSearchStatus(m_id, status);
      return status;
    }
    for (const auto& [seq, row] : stored)
      if (row.convMs && *row.convMs > 0) ++convolution->tunedBefore;
    if (convolution->tunedBefore > 0)
      obs.note(std::to_string(convolution->tunedBefore) +
               " kernels were tuned before this version shared the convolution's timing: they "
               "keep the one taken beside each, the rest are divided by the shared figure");
    baseline["convolution"] = convolution->toJson();
    m_store.setKasSearchBaseline(m_id, baseline.dump());
  }
  obs.convolutionTimed(*convolution);

  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const int seq = static_cast<int>(i) + 1;
    KasCandidateRow c;
    if (auto it = stored.find(seq); it != stored.end()) {
      c = it->second;
      const bool finished = c.stage == KasStage::Trained || c.stage == KasStage::Failed ||
                            (c.stage == KasStage::Tuned && c.speedup().value_or(0) < s.minSpeedup);
      if (finished) continue;
    }
    if (stopping()) break;
    const MicroDag& dag = kernels[i].dag;
    const KernelFit& fit = kernels[i].fit;
    const Solution& speed = fit.solutions[0];
    if (c.seq == 0) {
      c.searchId = m_id;
      c.seq = seq;
      c.hash = hex(dag.canonicalHash());
      c.kernelJson = kernelToJson(dag).dump();
      c.groups = fit.groups;
      c.flopsRatio = speed.convFlops > 0 ? speed.flops / speed.convFlops : 0;
      c.paramsRatio = speed.convParams > 0 ? speed.params / speed.convParams : 0;
      m_store.putKasCandidate(c);
      obs.candidateUpdated(c);
    } else {
      obs.candidateResumed(c);
    }

    if (c.stage == KasStage::Sampled) {
      const auto tuneStart = Clock::now();
      // Time spent tuning it before a kill counts: that tuning is redone, and the report's
      // tuning time read 0.0 s after ten were spent.
      const double tunedBefore = c.tuneSeconds;
      auto lastSaved = tuneStart;
      nlohmann::json layers = nlohmann::json::array();
      double kernelMs = 0, convMs = 0;
      std::string failure;
      for (std::size_t t = 0; t < netTargets.size() && failure.empty(); ++t) {
        const ConvTarget& target = netTargets[t];
        try {
          KasMeasurer measurer(kasLayer(dag, target, speed.layers[t]), s.measuring);
          KasTuneOptions o;
          o.algorithm = s.algorithm;
          o.trials = s.trials;
          o.seed = s.seed + static_cast<std::uint64_t>(seq);
          o.referenceMs = convolution->msOf(target.name);
          o.referenceLibrary = convolution->library + " convolution of " + target.name;
          o.progress = [&](int trial, double best) {
            char text[160];
            std::snprintf(text, sizeof text,
                          "%s: trial %d, best trial %.4f ms (the start schedule included)",
                          target.name.c_str(), trial, best);
            obs.stepProgress(seq, text);
            // Stored as it goes (every few seconds): a search killed now reports the time spent.
            if (since(lastSaved) >= 2) {
              c.tuneSeconds = tunedBefore + since(tuneStart);
              m_store.putKasCandidate(c);
              lastSaved = Clock::now();
            }
          };
          const KasTuneResult r = tuneKasLayer(measurer, o);
          if (r.bestMs <= 0 || r.referenceMs <= 0) {
            // Its trials' notes say why ("of 8 trials: 8 timed out" under a short --timeout).
            failure = target.name + ": no schedule of the kernel was verified" +
                      (r.notes.empty() ? "" : " (" + r.notes + ")");
            break;
          }
          const auto weight = static_cast<double>(target.count);
          kernelMs += weight * r.bestMs;
          convMs += weight * r.referenceMs;
          layers.push_back({{"layer", target.name},
                            {"count", target.count},
                            {"schedule", r.bestSchedule},
                            {"ms", r.bestMs},
                            {"best_trial_ms", r.bestTrialMs},
                            {"default_ms", r.defaultMs},
                            {"conv_ms", r.referenceMs},
                            {"conv", r.referenceLibrary},
                            {"trials", r.trials},
                            {"curve_ms", r.bestCurveMs},
                            {"notes", r.notes}});
        } catch (const std::exception& e) {
          failure = target.name + ": " + e.what();
        }
      }
      c.tuneSeconds = tunedBefore + since(tuneStart);
      c.tuningJson = layers.dump();
      if (failure.empty()) {
        c.stage = KasStage::Tuned;
        c.kernelMs = kernelMs;
        c.convMs = convMs;
      } else {
        c.stage = KasStage::Failed;
        c.message = failure;
      }
      m_store.putKasCandidate(c);
      obs.candidateUpdated(c);
      if (c.stage == KasStage::Failed) continue;
    }

    if (c.speedup().value_or(0) < s.minSpeedup) {
      c.message = "slower than --min-speedup: not trained";
      m_store.putKasCandidate(c);
      obs.candidateUpdated(c);
      continue;
    }
    if (stopping()) break;
    TrainRequest q = s.training;
    q.kernelJson = c.kernelJson;
    q.groups = c.groups;
    q.budget = s.budget;
    q.referenceCurve = referenceCurve(baseline, m_store.kasCandidates(m_id));
    std::string why;
    const auto trainStart = Clock::now();
    const auto r =
        runTraining(q, &why, stop, [&](const std::string& line) { obs.stepProgress(seq, line); });
    if (!r && stop && stop->load()) break;  // stays tuned: the resume trains it
    c.trainSeconds = since(trainStart);
    if (r) {
      c.stage = KasStage::Trained;
      c.accuracy = r->accuracy;
      c.stoppedEarly = r->stoppedEarly;
      c.trainingJson = r->raw.dump();
      if (r->diverged) c.message = "training diverged";
    } else {
      c.stage = KasStage::Failed;
      c.message = why;
    }
    m_store.putKasCandidate(c);
    obs.candidateUpdated(c);
  }
  // A time limit reached ends the search as a budget does; only a stop leaves it to resume.
  const RunStatus status = stop && stop->load() ? RunStatus::Interrupted : RunStatus::Finished;
  m_store.setKasSearchStatus(m_id, status);
  return status;
}

}  // namespace opevo::kas
