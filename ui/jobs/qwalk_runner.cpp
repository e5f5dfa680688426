#include "ui/jobs/qwalk_runner.h"

#include <algorithm>
#include <exception>
#include <numeric>

#include "space/graph_limit.h"
#include "ui/widgets/display_format.h"

namespace opevo::ui {

QString walkTooLargeNote(const Parameter& param) {
  if (graphTooLarge(param).empty()) return {};
  return QObject::tr(
             "%1 has %2 vertices: the exact distribution is computed for at most %3 (as "
             "by opevo qwalk). Choose a smaller parameter.")
      .arg(QString::fromStdString(param.spec()), groupDigits(param.size().toString()),
           groupDigits(std::to_string(kMaxGraphVertices)));
}

QwalkRunner::QwalkRunner(QObject* parent) : QObject(parent) {}

QwalkRunner::~QwalkRunner() = default;

void QwalkRunner::request(QwalkRequest request) {
  m_job.start(
      [request = std::move(request)] { return compute(request); },
      [this](std::shared_ptr<const QwalkResult> result) { emit finished(std::move(result)); });
}

void QwalkRunner::cancel() {
  m_job.cancel();
}

bool QwalkRunner::busy() const {
  return m_job.busy();
}

std::shared_ptr<const QwalkResult> QwalkRunner::compute(const QwalkRequest& request) {
  auto result = std::make_shared<QwalkResult>();
  result->request = request;
  try {
    result->distribution = exactDistribution(*request.param, request.start, request.q);
  } catch (const std::exception& e) {
    // The panel validates first, so this is a limit of core's (or memory) and not a crash.
    result->error = QString::fromStdString(e.what());
    return result;
  }
  const ParamGraph& g = result->distribution.graph;
  const std::vector<double>& p = result->distribution.probability;
  result->order.resize(g.size());
  std::iota(result->order.begin(), result->order.end(), std::size_t{0});
  std::stable_sort(result->order.begin(), result->order.end(), [&](std::size_t a, std::size_t b) {
    if (g.distance[a] != g.distance[b]) return g.distance[a] < g.distance[b];
    return p[a] > p[b];
  });
  result->total = std::accumulate(p.begin(), p.end(), 0.0);
  return result;
}

}  // namespace opevo::ui
