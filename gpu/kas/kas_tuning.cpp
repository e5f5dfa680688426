#include "kas/kas_tuning.h"

#include <array>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/trial_failures.h"
#include "space/text.h"

namespace opevo::kas {

namespace {

class CurveObserver final : public EngineObserver {
 public:
  CurveObserver(KasTuneResult& result, const KasTuneOptions& options)
      : m_result(result), m_options(options) {}
  void trialMeasured(const TrialEvent& trial, const EngineProgress&) override {
    const Measurement& m = trial.record.measurement;
    // The start schedule was timed before the first trial, and the kernel runs on it when no
    // trial beats it: "best" left it out and read 0.1489 ms where the kernel took 0.0801 ms.
    double best = m_result.bestCurveMs.empty() ? m_result.defaultMs : m_result.bestCurveMs.back();
    if (m.status == TrialStatus::Ok && m.medianMs > 0 && (best == 0 || m.medianMs < best))
      best = m.medianMs;
    m_statuses.push_back(m.status);
    if (m.status == TrialStatus::Ok) ++m_cuts[static_cast<std::size_t>(timingCutOf(m.message))];
    m_result.bestCurveMs.push_back(best);
    if (m_options.progress) m_options.progress(static_cast<int>(m_result.bestCurveMs.size()), best);
  }

  std::string notes() const {
    std::vector<std::string> parts;
    if (const int n = cut(TimingCut::OverCutoff))
      parts.push_back(std::to_string(n) + " timed by one run alone (over the slow cut-off)");
    if (const int n = cut(TimingCut::TrialLimit))
      parts.push_back(std::to_string(n) + " timed by fewer runs than asked (the trial's limit)");
    if (const TrialFailures f = countFailures(m_statuses); f.failed() > 0)
      parts.push_back(f.text());
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
    return out.empty()
               ? out
               : "of " + counted(static_cast<long long>(m_statuses.size()), "trial", "trials") +
                     ": " + out;
  }

 private:
  int cut(TimingCut c) const { return m_cuts[static_cast<std::size_t>(c)]; }

  KasTuneResult& m_result;
  const KasTuneOptions& m_options;
  std::vector<TrialStatus> m_statuses;
  std::array<int, 3> m_cuts{};  // by TimingCut
};

}  // namespace

KasTuneResult tuneKasLayer(KasMeasurer& measurer, const KasTuneOptions& options) {
  KasTuneResult result;
  result.algorithm = options.algorithm;
  const SearchSpace& space = measurer.space();
  const bool timeReference = !options.referenceMs;
  if (!timeReference) {
    result.referenceMs = *options.referenceMs;
    result.referenceLibrary = options.referenceLibrary;
  } else if (const auto ref = measurer.reference()) {
    result.referenceMs = ref->measurement.medianMs;
    result.referenceLibrary = ref->library;
  }
  if (space.startPoint()) {
    const Measurement m = measurer.measure({*space.startPoint()}).front();
    if (m.status == TrialStatus::Ok) result.defaultMs = m.medianMs;
  }
  Engine engine(space, measurer);
  RunPlan plan;
  plan.algorithm = options.algorithm;
  plan.seed = options.seed;
  plan.budget.trials = options.trials;
  const int index = engine.addRun(std::move(plan));
  CurveObserver curve(result, options);
  engine.addObserver(curve);
  engine.run();
  const RunState& run = engine.runs()[static_cast<std::size_t>(index)];
  result.trials = run.trials;
  result.notes = curve.notes();
  result.bestTrialMs = result.bestCurveMs.empty() ? result.defaultMs : result.bestCurveMs.back();
  if (run.bestConfig && run.best > 0) {
    result.bestSchedule = space.format(*run.bestConfig);
    result.bestMs = measurer.measure({*run.bestConfig}).front().medianMs;
    result.bestSource = measurer.source(*run.bestConfig);
  }
  // The convolution is timed again beside the kernel's last timing and the faster of its two
  // medians counts: a busy machine only ever slows a run, and on a shared 2-core VM one layer's
  // median moved by up to 10% between timings seconds apart. This favours the convolution.
  if (timeReference && result.referenceMs > 0)
    if (const auto again = measurer.reference(); again && again->measurement.medianMs > 0 &&
                                                 again->measurement.medianMs < result.referenceMs)
      result.referenceMs = again->measurement.medianMs;
  // The start schedule was measured too: with a small budget the tuner may not get back to it,
  // and a kernel is as fast as the best schedule known for it.
  if (result.defaultMs > 0 && (result.bestMs <= 0 || result.defaultMs < result.bestMs)) {
    result.bestSchedule = space.format(*space.startPoint());
    result.bestMs = result.defaultMs;
    result.bestSource = measurer.source(*space.startPoint());
  }
  return result;
}

}  // namespace opevo::kas
