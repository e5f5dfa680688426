#include "ui/engine_worker.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <climits>
#include <exception>
#include <nlohmann/json.hpp>

#include "engine/tuning_session.h"
#include "replay/replay_measurer.h"
#include "store/store.h"
#include "tuners/registry.h"
#include "ui/race_gate.h"

namespace opevo::ui {
namespace {

// What the store keeps of one run of a race. Core's RunRecord has no notion of a race, so the
// race's key and the repeat ride in operatorJson, where the history page finds them.
RunRecord runRecord(const RaceSpec& spec, const Tuner& tuner, const std::string& raceKey,
                    int repeat, std::uint64_t seed, const std::string& label) {
  const ReplayDataset& d = *spec.dataset;
  RunRecord r;
  r.operatorName = d.kernelName.empty() ? label : d.kernelName;
  r.operatorJson = nlohmann::json{{"replay", d.path}, {"label", label}, {"race", raceKey},
                                  {"repeat", repeat}}
                       .dump();
  r.algorithm = tuner.name();
  nlohmann::json settings = nlohmann::json::object();
  for (const SettingInfo& s : tuner.settings().all()) settings[s.name] = s.value;
  r.settingsJson = settings.dump();
  r.seed = seed;
  r.backend = "replay";
  r.device = d.deviceName;
  Budget b;
  b.trials = spec.trials;
  b.seconds = spec.seconds;
  b.targetSpeed = spec.targetSpeed;
  r.budgetJson = b.toJson();
  r.status = "running";
  r.speedUnit = d.speedUnit;
  return r;
}

// The engine (and the OpenMP threads XGBoost starts from it, which inherit its niceness) yields
// the CPU to the GUI thread: on a two-core machine a busy model fit otherwise starves the window
// for a few hundred milliseconds. Linux's nice is per thread; elsewhere this does nothing.
void lowerEnginePriority() {
#ifdef __linux__
  static thread_local bool done = false;
  if (done) return;
  done = true;
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
#endif
}

}  // namespace

void EngineWorker::flush(bool force) {
  if (!force && m_sinceFlush.isValid() && m_sinceFlush.elapsed() < kFlushIntervalMs) return;
  emit updated(std::make_shared<const EngineUpdate>(m_pending));
  m_pending.trials.clear();
  m_sinceFlush.restart();
}

void EngineWorker::run(const RaceSpec& spec) {
  lowerEnginePriority();
  m_pending = EngineUpdate{};
  m_sinceFlush.start();
  RaceOutcome outcome{QStringLiteral("finished"), QString()};
  try {
    const ReplayDataset& dataset = *spec.dataset;
    std::unique_ptr<Store> store;
    if (!spec.storePath.empty()) {
      try {
        store = std::make_unique<Store>(spec.storePath);
      } catch (const std::exception& e) {
        // The race is still worth running; the message says why history will not show it.
        outcome.message = QObject::tr("Not recorded in the history: %1").arg(e.what());
      }
    }
    ReplayMeasurer replay(spec.dataset);
    GatedMeasurer gated(replay, m_gate, spec.paceMs);
    const std::string label = replay.label();
    const std::string raceKey = Store::nowUtc();
    const int algorithms = static_cast<int>(spec.algorithms.size());
    RaceProgress& progress = m_pending.progress;
    progress.runs = algorithms * spec.repeats;
    progress.trialsPlanned = spec.trials ? static_cast<long long>(*spec.trials) * progress.runs : 0;
    double finishedSeconds = 0;  // tuning time of the runs already done

    for (int repeat = 0; repeat < spec.repeats && !m_gate.stopped(); ++repeat) {
      for (int a = 0; a < algorithms && !m_gate.stopped(); ++a) {
        const AlgorithmChoice& choice = spec.algorithms[static_cast<std::size_t>(a)];
        const std::uint64_t seed = spec.seed + static_cast<std::uint64_t>(repeat);
        auto tuner = makeTuner(choice.name, dataset.space, seed, choice.settings);
        std::int64_t runId = 0;
        if (store) runId = store->createRun(runRecord(spec, *tuner, raceKey, repeat, seed, label));
        // The time budget is kept here, not by core, so that a pause does not spend it.
        Budget budget;
        budget.trials = spec.trials ? *spec.trials : INT_MAX;
        budget.targetSpeed = spec.targetSpeed;
        TuningSession session(dataset.space, std::move(tuner), gated, budget, store.get(), runId);
        progress.current = QObject::tr("%1, repeat %2 of %3")
                               .arg(QString::fromStdString(choice.name))
                               .arg(repeat + 1)
                               .arg(spec.repeats);
        gated.setStopHook([&session] { session.stop(); });
        const double pausedAtStart = m_gate.pausedSeconds();
        double runSeconds = 0;
        bool timeUp = false;
        session.onTrial([&](const TrialEvent& e) {
          runSeconds = std::max(0.0, e.elapsedSeconds - (m_gate.pausedSeconds() - pausedAtStart));
          TrialPoint p;
          p.algorithm = a;
          p.repeat = repeat;
          p.seq = e.seq;
          p.config = QString::fromStdString(dataset.space.format(e.config));
          p.status = e.measurement.status;
          p.message = QString::fromStdString(e.measurement.message);
          p.speed = e.measurement.speed;
          p.best = e.best;
          p.seconds = runSeconds;
          m_pending.trials.push_back(std::move(p));
          ++progress.trialsDone;
          const double spent = finishedSeconds + runSeconds;
          double eta = -1;
          if (progress.trialsPlanned > 0)
            eta = spent / double(progress.trialsDone) *
                  double(progress.trialsPlanned - progress.trialsDone);
          if (spec.seconds) {
            const double byTime =
                *spec.seconds * (progress.runs - progress.runsDone) - runSeconds;
            eta = eta < 0 ? byTime : std::min(eta, byTime);
          }
          progress.etaSeconds = eta;
          if (spec.seconds && runSeconds >= *spec.seconds && !timeUp) {
            timeUp = true;
            session.stop();
          }
          flush(false);
        });
        std::string reason = session.run();
        if (timeUp) reason = "time";
        if (m_gate.stopped()) reason = "stopped";
        if (store) store->setRunStatus(runId, reason == "stopped" ? "interrupted" : "finished", true);
        finishedSeconds += runSeconds;
        ++progress.runsDone;
        gated.setStopHook({});
        flush(true);
      }
    }
    if (m_gate.stopped()) outcome.reason = QStringLiteral("stopped");
  } catch (const std::exception& e) {
    outcome.reason = QStringLiteral("failed");
    outcome.message = QString::fromUtf8(e.what());
    flush(true);
  }
  emit finished(outcome);
}

}  // namespace opevo::ui
