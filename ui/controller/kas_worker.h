#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <atomic>
#include <map>

#include "ui/controller/kas_types.h"

namespace opevo::ui {

// Lives in the kernel-search thread and runs one Canvas search at a time (kas::KasSearch, which
// commits every step of every candidate): it observes the search and sends the whole search as an
// immutable snapshot whenever a candidate moves on, and its progress inside a step (a tuning
// trial) at most every kFlushIntervalMs.
class KasWorker : public QObject, private kas::KasSearchObserver {
  Q_OBJECT

 public:
  static constexpr int kFlushIntervalMs = 50;

  explicit KasWorker(const std::atomic<bool>& stop) : m_stop(stop) {}

  // Blocks the thread until the search ends, fails, or the stop flag is set.
  void run(const KasSpec& spec);

 signals:
  void updated(opevo::ui::KasSnapshotPtr snapshot);
  void finished(opevo::ui::KasOutcome outcome);

 private:
  void baselineTrained(const kas::TrainResult& result) override;
  void convolutionTimed(const kas::ConvBaseline& baseline) override;
  void candidateUpdated(const KasCandidateRow& candidate) override;
  void note(const std::string& text) override;
  void stepProgress(int seq, const std::string& what) override;

  KasOutcome search(const KasSpec& spec);
  void publish(bool force);

  const std::atomic<bool>& m_stop;
  KasSnapshot m_snapshot;
  std::map<int, KasCandidatePtr> m_candidates;  // by seq
  QString m_lastNote;                           // why a failed search failed
  QElapsedTimer m_sincePublish;
};

}  // namespace opevo::ui
