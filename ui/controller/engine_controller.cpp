#include "ui/controller/engine_controller.h"

#include "ui/controller/engine_worker.h"

namespace opevo::ui {

EngineController::EngineController(QObject* parent)
    : QObject(parent),
      m_worker(new EngineWorker(m_control)),
      m_toWorker(new ThreadInbox(m_worker)) {
  qRegisterMetaType<EngineUpdatePtr>();
  qRegisterMetaType<RaceOutcome>();
  m_thread.setObjectName(QStringLiteral("opevo-engine"));
  m_worker->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
  // The worker emits from the engine thread; these run in the GUI thread.
  ThreadInbox::relay(m_worker, &EngineWorker::updated, m_fromWorker,
                     [this](const EngineUpdatePtr& update) { emit updated(update); });
  ThreadInbox::relay(m_worker, &EngineWorker::finished, m_fromWorker,
                     [this](const RaceOutcome& outcome) {
                       setState(State::Idle);
                       emit finished(outcome);
                     });
  m_thread.start();
}

EngineController::~EngineController() {
  m_control.stop();
  m_thread.quit();
  m_thread.wait();
}

bool EngineController::start(RaceSpec spec) {
  const bool measurable = spec.resumeRun || (spec.backend == "replay" ? spec.dataset != nullptr
                                                                      : !spec.operatorRef.empty());
  if (m_state != State::Idle || !measurable) return false;
  m_control.reset();
  setState(State::Running);
  m_toWorker->post([worker = m_worker, spec = std::move(spec)] { worker->run(spec); });
  return true;
}

void EngineController::pause() {
  if (m_state != State::Running) return;
  m_control.pause();
  setState(State::Paused);
}

void EngineController::resume() {
  if (m_state != State::Paused) return;
  m_control.resume();
  setState(State::Running);
}

void EngineController::stop() {
  if (m_state != State::Running && m_state != State::Paused) return;
  m_control.stop();
  setState(State::Stopping);
}

void EngineController::setState(State state) {
  if (m_state == state) return;
  m_state = state;
  emit stateChanged(state);
}

}  // namespace opevo::ui
