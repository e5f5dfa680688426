#include "ui/controller/network_worker.h"

#include <cmath>
#include <exception>

#include "net/network_session.h"
#include "store/store.h"
#include "ui/controller/engine_priority.h"

namespace opevo::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Forward passes of libtorch and of each tuned network: fewer than the CLI's, since the window
// waits for them, and each pass is one median sample among many.
constexpr int kWarmup = 3, kRuns = 10;

// The contender as the window draws it, from its session.
void describe(const net::NetworkSession& s, ContenderState& c) {
  const net::NetworkTuning& t = s.tuning();
  c.networkId = s.id();
  c.trials = t.trials();
  c.curveTrials.clear();
  c.curveEstimateMs.clear();
  c.unitTask.clear();
  c.unitTrials.clear();
  c.unitClosingFrom.clear();
  int before = 0;
  for (const net::NetworkUnit& u : t.units()) {
    c.curveTrials.push_back(u.trials);
    c.curveEstimateMs.push_back(std::isfinite(u.objectiveSeconds) ? u.objectiveSeconds * 1e3
                                                                  : kNaN);
    c.unitTask.push_back(static_cast<int>(u.task));
    c.unitTrials.push_back(u.trials - before);
    c.unitClosingFrom.push_back(closingFrom(u, s.graph()));
    before = u.trials;
  }
  c.taskTrials.clear();
  c.taskBestMs.clear();
  for (std::size_t i = 0; i < s.graph().tasks.size(); ++i) {
    c.taskTrials.push_back(t.engine(i).runs().front().trials);
    const std::optional<double> best = t.bestSeconds(i);
    c.taskBestMs.push_back(best ? *best * 1e3 : kNaN);
  }
}

}  // namespace

void NetworkControl::stop() {
  std::lock_guard lock(m_mutex);
  m_stopped = true;
  for (net::NetworkSession* s : m_sessions) s->stopFromSignal();
}

void NetworkControl::reset() {
  std::lock_guard lock(m_mutex);
  m_stopped = false;
  m_sessions.clear();
}

bool NetworkControl::stopped() const {
  std::lock_guard lock(m_mutex);
  return m_stopped;
}

void NetworkControl::attach(std::vector<net::NetworkSession*> sessions) {
  std::lock_guard lock(m_mutex);
  m_sessions = std::move(sessions);
  if (m_stopped)
    for (net::NetworkSession* s : m_sessions) s->stopFromSignal();
}

void NetworkWorker::publish() {
  emit updated(std::make_shared<const NetworkSnapshot>(m_snapshot));
}

void NetworkWorker::run(const NetworkSpec& spec) {
  lowerEnginePriority();
  m_snapshot = NetworkSnapshot{};
  NetworkOutcome outcome;
  try {
    outcome = race(spec);
  } catch (const std::exception& e) {
    outcome.end = NetworkOutcome::End::Failed;
    outcome.message = QString::fromUtf8(e.what());
  }
  m_control.attach({});
  m_snapshot.activity.clear();
  publish();
  emit finished(outcome);
}

NetworkOutcome NetworkWorker::race(const NetworkSpec& spec) {
  Store store(spec.storePath.empty() ? Store::defaultPath() : spec.storePath);
  std::vector<std::unique_ptr<net::NetworkSession>> sessions;
  if (spec.resume) {
    sessions.push_back(std::make_unique<net::NetworkSession>(store, *spec.resume));
  } else {
    const std::string text = net::networkText(spec.network);
    // Each mode is a contender, and the Winograd template one more; the matrix-vector
    // template, asked or the backend's default, is every contender's (NetworkSpec::tunings).
    const auto tunings = spec.tunings();
    for (const auto& [mode, templates] : tunings)
      for (net::SchedulerKind scheduler : spec.schedulers)
        for (const std::string& algorithm : spec.algorithms) {
          net::NetworkSource src;
          src.source = spec.network;
          src.text = text;
          src.params = spec.params;
          src.backend = spec.backend;
          src.plan.algorithm = algorithm;
          src.plan.seed = spec.seed;
          src.plan.trials = spec.trials;
          src.plan.unit = spec.unit;
          src.plan.scheduler = scheduler;
          src.plan.mode = mode;
          src.plan.templates = templates;
          src.plan.coldWeights = spec.coldWeights;
          src.plan.coldActivations = spec.coldActivations;
          sessions.push_back(std::make_unique<net::NetworkSession>(store, std::move(src)));
        }
  }
  std::vector<net::NetworkSession*> running;
  for (const auto& s : sessions) running.push_back(s.get());
  m_control.attach(running);

  const net::NetworkSession& first = *sessions.front();
  m_snapshot.network = QString::fromStdString(first.network().name);
  m_snapshot.networkText = QString::fromStdString(first.source().text);
  m_snapshot.source = first.source().source;
  m_snapshot.params = first.source().params;
  for (const auto& s : sessions) {
    ContenderState c;
    c.label = contenderLabel(s->source().plan);
    c.tunes = contenderTunes(s->source().plan, s->tuning().planNote(false));
    c.budget = s->source().plan.trials;
    describe(*s, c);
    m_snapshot.contenders.push_back(std::move(c));
  }
  const bool onCpu = first.source().backend == "cpu";
  const std::uint64_t seed = first.source().plan.seed;
  std::optional<net::ReferenceTimes> reference;
  if (onCpu && spec.reference && !m_control.stopped()) {
    m_snapshot.activity =
        tr("Timing libtorch's forward pass (%1 processes)…").arg(net::kReferenceProcesses);
    publish();
    reference = first.timeReference({seed, kWarmup, kRuns, true, spec.torchForm});
    if (const auto& r = reference->best) {
      m_snapshot.referenceMs = r->ms;
      m_snapshot.referenceLegend = torchLegend(r->form);
      // "libtorch 1.13.1 frozen, 2 threads"
      m_snapshot.referenceName = tr("%1, %2 threads")
                                     .arg(QString::fromStdString(net::torchReferenceName(*r)))
                                     .arg(r->threads);
    } else {
      m_snapshot.referenceName = QString::fromStdString(reference->missing);
    }
  } else if (!onCpu) {
    m_snapshot.referenceName =
        tr("on %1 each task's library is timed after the tuning (libtorch runs on the CPU only)")
            .arg(QString::fromStdString(first.source().backend));
  }
  m_snapshot.activity = tr("Tuning");
  publish();

  // One unit of each contender in turn, as `opevo net compare` does.
  for (bool any = true; any && !m_control.stopped();) {
    any = false;
    for (std::size_t i = 0; i < sessions.size(); ++i) {
      ContenderState& c = m_snapshot.contenders[i];
      if (c.done) continue;
      if (!sessions[i]->step()) {
        c.done = !sessions[i]->interrupted();
        continue;
      }
      any = true;
      describe(*sessions[i], c);
      publish();
    }
  }
  // The runs from `from` on are left interrupted, to be resumed (a run whose trials are all
  // measured resumes straight to its end-to-end runs).
  auto stopAt = [&](std::size_t from) {
    QStringList ids;
    for (std::size_t i = from; i < sessions.size(); ++i) {
      sessions[i]->markInterrupted();
      ids << QString::number(sessions[i]->id());
    }
    // Resume continues one run at a time: with several, the list below selects the first.
    NetworkOutcome out{
        NetworkOutcome::End::Stopped,
        ids.size() == 1
            // The store's word for the run, as `opevo net runs` and the list below say it.
            ? tr("Stopped: network run %1 is interrupted, every measured trial kept; Resume "
                 "continues it.")
                  .arg(ids.front())
            : tr("Stopped: network runs %1 are interrupted, every measured trial kept; Resume "
                 "continues each.")
                  .arg(ids.join(QStringLiteral(", ")))};
    return out;
  };
  if (m_control.stopped()) return stopAt(0);
  std::vector<net::UntunedRun> untunedRuns;  // one per mode and template set, not per contender
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    // Each CPU contender runs up to three networks end to end: Stop is heeded before each
    // contender, not between its networks (a run cut there would store half a comparison).
    if (m_control.stopped()) return stopAt(i);
    net::NetworkSession& s = *sessions[i];
    ContenderState& c = m_snapshot.contenders[i];
    net::ConcludeOptions options;
    options.endToEnd = {seed, kWarmup, kRuns, spec.reference, spec.torchForm};
    options.reference = reference;
    // As `opevo net tune` does on the CPU: a network of tuned kernels can lose to the untuned one
    // in the chain (their layouts' conversions), and the window says which ran faster.
    options.untunedToo = true;
    options.untunedRuns = &untunedRuns;
    options.onStep = [&](net::ConcludeStep step) {
      switch (step) {
        case net::ConcludeStep::TaskReferences:
          m_snapshot.activity = tr("Timing each task's library (%1)…").arg(c.label);
          break;
        case net::ConcludeStep::EndToEndOnCpu:
          m_snapshot.activity =
              tr("Running %1 (%2) end to end against libtorch…").arg(m_snapshot.network, c.label);
          break;
        case net::ConcludeStep::UntunedOnCpu:
          m_snapshot.activity = tr("Running %1 untuned end to end, to compare with %2…")
                                    .arg(m_snapshot.network, c.label);
          break;
        case net::ConcludeStep::MixedOnCpu:
          m_snapshot.activity =
              tr("Running %1 with each task's faster configuration (tuned or untuned) for %2…")
                  .arg(m_snapshot.network, c.label);
          break;
        case net::ConcludeStep::EndToEndOnDevice:
          m_snapshot.activity =
              tr("Running %1 (%2) end to end on the device…").arg(m_snapshot.network, c.label);
          break;
      }
      publish();
    };
    const net::Conclusion done = s.conclude(options);
    const nlohmann::json& j = done.result;
    auto msOf = [&](const char* key) {
      return j.contains(key) && j[key].is_number() ? j[key].get<double>() : kNaN;
    };
    c.sumOfLibrariesMs = msOf("sum_of_references_ms");
    c.libraryNetworkMs = msOf("library_network_ms");
    c.endToEndError = QString::fromStdString(done.endToEndError);
    c.comparison = net::comparisonFromResult(j, "network run " + std::to_string(s.id()));
    if (const auto& e = done.endToEnd) {
      c.endToEndMs = e->ms;
      c.verified = e->verified;
      c.device = QString::fromStdString(e->device);
      c.checked = outputChecked(c.device, e->reference.best.has_value());
      if (!c.checked) c.referenceMissing = QString::fromStdString(e->reference.missing);
      for (const auto& step : e->steps)
        c.stepMs.emplace_back(QString::fromStdString(step.name), step.ms);
    }
    publish();
  }
  // On a GPU the line the curves are held against comes only now: the tasks' libraries plus
  // the same fixed kernels, the lowest any contender measured.
  for (const ContenderState& c : m_snapshot.contenders)
    if (std::isfinite(c.libraryNetworkMs) &&
        (!m_snapshot.referenceMs || c.libraryNetworkMs < *m_snapshot.referenceMs)) {
      m_snapshot.referenceMs = c.libraryNetworkMs;
      m_snapshot.referenceName = tr("the tasks' libraries (each timed alone) + fixed kernels");
      m_snapshot.referenceLegend = tr("libraries");
    }
  publish();
  return {};
}

}  // namespace opevo::ui
