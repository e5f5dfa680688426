#include "ui/qwalk_runner.h"

#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <exception>
#include <numeric>

namespace opevo::ui {

QwalkRunner::QwalkRunner(QObject* parent) : QObject(parent) {}

QwalkRunner::~QwalkRunner() {
  // The job owns copies of everything it reads, but waiting keeps a closing window from leaving
  // a solver running behind it.
  if (m_running) m_running->waitForFinished();
}

void QwalkRunner::request(QwalkRequest request) {
  ++m_generation;
  if (m_running) {
    m_pending = std::move(request);
    return;
  }
  start(std::move(request));
}

void QwalkRunner::cancel() {
  ++m_generation;
  m_pending.reset();
}

bool QwalkRunner::busy() const {
  return m_pending.has_value() || (m_running && m_runningGeneration == m_generation);
}

void QwalkRunner::start(QwalkRequest request) {
  m_runningGeneration = m_generation;
  auto* watcher = new Watcher(this);
  m_running = watcher;
  connect(watcher, &Watcher::finished, this, [this, watcher] { onJobFinished(watcher); });
  watcher->setFuture(
      QtConcurrent::run([request = std::move(request)] { return compute(request); }));
}

void QwalkRunner::onJobFinished(Watcher* watcher) {
  watcher->deleteLater();
  m_running = nullptr;
  if (m_pending) {
    QwalkRequest next = std::move(*m_pending);
    m_pending.reset();
    start(std::move(next));
    return;
  }
  if (m_runningGeneration == m_generation) emit finished(watcher->result());
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
