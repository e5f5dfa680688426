#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "space/parameter.h"
#include "space/qwalk.h"
#include "ui/jobs/latest_job.h"

namespace opevo::ui {

struct QwalkRequest {
  ParameterPtr param;
  Vertex start;
  double q = 0.5;
};

// One exact distribution, with the display order worked out once, off the GUI thread.
struct QwalkResult {
  QwalkRequest request;
  WalkDistribution distribution;
  std::vector<std::size_t> order;  // nearest first; likeliest first at equal distance
  double total = 0;
  QString error;  // set instead of the rest when core refused the request
};

// Why the window does not compute param's exact distribution (past core's kMaxGraphVertices, the
// limit `opevo qwalk` has), with digits grouped for reading; empty when it does. The Spaces table
// and the Topology page both say it in these words.
QString walkTooLargeNote(const Parameter& param);

// Runs exactDistribution on the global thread pool so the window never freezes, even for a
// parameter near the table's vertex limit with q near 1. Core's solver cannot be interrupted, so
// requests coalesce instead: while one runs, only the newest request waits, and a result that an
// input changed after is dropped rather than shown.
class QwalkRunner : public QObject {
  Q_OBJECT

 public:
  explicit QwalkRunner(QObject* parent = nullptr);
  ~QwalkRunner() override;

  void request(QwalkRequest request);
  // Forgets the waiting request and drops the running one's result (the inputs became invalid).
  void cancel();
  // True until the newest request has been answered or cancelled.
  bool busy() const;

  // The computation itself, synchronous; public so tests can check it without a thread.
  static std::shared_ptr<const QwalkResult> compute(const QwalkRequest& request);

 signals:
  void finished(std::shared_ptr<const QwalkResult> result);

 private:
  LatestJob<std::shared_ptr<const QwalkResult>> m_job{
      LatestJob<std::shared_ptr<const QwalkResult>>::Overlap::NewestWaits};
};

}  // namespace opevo::ui
