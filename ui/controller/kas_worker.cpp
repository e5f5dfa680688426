#include "ui/controller/kas_worker.h"

#include <exception>
#include <memory>

#include "store/store.h"
#include "ui/controller/engine_priority.h"

namespace opevo::ui {

void KasWorker::run(const KasSpec& spec) {
  lowerEnginePriority();
  m_snapshot = KasSnapshot{};
  m_candidates.clear();
  m_lastNote.clear();
  m_sincePublish.invalidate();
  KasOutcome outcome;
  try {
    outcome = search(spec);
  } catch (const std::exception& e) {
    outcome.end = KasOutcome::End::Failed;
    outcome.message = QString::fromUtf8(e.what());
  }
  outcome.searchId = m_snapshot.searchId;
  m_snapshot.activity.clear();
  publish(true);
  emit finished(outcome);
}

KasOutcome KasWorker::search(const KasSpec& spec) {
  Store store(spec.storePath.empty() ? Store::defaultPath() : spec.storePath);
  std::unique_ptr<kas::KasSearch> search =
      spec.resume ? std::make_unique<kas::KasSearch>(store, *spec.resume)
                  : std::make_unique<kas::KasSearch>(store, spec.settings);
  // What is stored already (a resumed search's candidates and baseline) shows at once.
  m_snapshot = readKasSnapshot(store, search->id());
  m_snapshot.status = RunStatus::Running;
  for (const KasCandidatePtr& c : m_snapshot.candidates) m_candidates[c->seq] = c;
  m_snapshot.activity = tr("Sampling kernels that fit the budget…");
  publish(true);

  const RunStatus status = search->run(this, &m_stop);
  m_snapshot.status = status;
  switch (status) {
    case RunStatus::Interrupted:
      return {KasOutcome::End::Stopped, search->id(),
              tr("Stopped: kernel search %1 kept every finished step; Resume continues it.")
                  .arg(search->id())};
    case RunStatus::Failed:
      return {KasOutcome::End::Failed, search->id(),
              m_lastNote.isEmpty() ? tr("kernel search %1 failed").arg(search->id()) : m_lastNote};
    default:
      return {KasOutcome::End::Finished, search->id(), {}};
  }
}

void KasWorker::publish(bool force) {
  if (!force && m_sincePublish.isValid() && m_sincePublish.elapsed() < kFlushIntervalMs) return;
  emit updated(std::make_shared<const KasSnapshot>(m_snapshot));
  m_sincePublish.restart();
}

void KasWorker::baselineTrained(const kas::TrainResult& result) {
  m_snapshot.baselineAccuracy = result.accuracy;
  m_snapshot.baselineCurve = result.curve;
  m_snapshot.activity = tr("Baseline trained: %1%").arg(result.accuracy * 100, 0, 'f', 2);
  publish(true);
}

void KasWorker::convolutionTimed(const kas::ConvBaseline& baseline) {
  m_snapshot.convolutionBasis = QString::fromStdString(baseline.describe());
  m_snapshot.convolutionBrief = QString::fromStdString(baseline.brief());
  publish(true);
}

void KasWorker::candidateUpdated(const KasCandidateRow& candidate) {
  m_candidates[candidate.seq] = std::make_shared<const KasCandidateRow>(candidate);
  m_snapshot.candidates.clear();
  for (const auto& [seq, c] : m_candidates) m_snapshot.candidates.push_back(c);
  const int seq = candidate.seq;
  switch (candidate.stage) {
    case KasStage::Sampled:
      m_snapshot.activity = tr("Kernel %1: tuning its schedule on each layer…").arg(seq);
      break;
    case KasStage::Tuned:
      m_snapshot.activity = tr("Kernel %1: training on Fashion-MNIST…").arg(seq);
      break;
    case KasStage::Trained:
    case KasStage::Failed:
      m_snapshot.activity = tr("Kernel %1 done").arg(seq);
      break;
  }
  publish(true);
}

void KasWorker::note(const std::string& text) {
  m_lastNote = QString::fromStdString(text);
  m_snapshot.activity = m_lastNote;
  publish(true);
}

void KasWorker::stepProgress(int seq, const std::string& what) {
  m_snapshot.activity = tr("Kernel %1: %2").arg(seq).arg(QString::fromStdString(what));
  publish(false);
}

}  // namespace opevo::ui
