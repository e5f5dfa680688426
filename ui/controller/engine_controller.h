#pragma once

#include <QObject>
#include <QThread>

#include "ui/controller/race_control.h"
#include "ui/controller/race_types.h"
#include "ui/handoff/thread_inbox.h"

namespace opevo::ui {

class EngineWorker;

// The GUI's handle on the engine. Lives in the GUI thread and owns the engine thread; every call
// returns at once. Trials arrive as `updated` signals carrying immutable snapshots, handed over
// through a ThreadInbox, so nothing the GUI touches is shared with the engine. Pause, resume and
// stop reach core's engine, which honours them between two trials.
class EngineController : public QObject {
  Q_OBJECT

 public:
  enum class State { Idle, Running, Paused, Stopping };
  Q_ENUM(State)

  explicit EngineController(QObject* parent = nullptr);
  // Stops a race in progress and waits for the engine thread: a closing window leaves nothing
  // running behind it.
  ~EngineController() override;

  // False (and nothing happens) unless idle and the spec names what to measure (a dataset, an
  // operator or a run to resume); RaceSetupPanel::spec checks the rest.
  bool start(RaceSpec spec);
  void pause();
  void resume();
  void stop();
  State state() const { return m_state; }
  bool busy() const { return m_state != State::Idle; }

 signals:
  void stateChanged(opevo::ui::EngineController::State state);
  void updated(opevo::ui::EngineUpdatePtr update);
  void finished(opevo::ui::RaceOutcome outcome);

 private:
  void setState(State state);

  QThread m_thread;
  EngineWorker* m_worker;
  ThreadInbox* m_toWorker;  // the worker's child: lives and runs calls on the engine thread
  ThreadInbox m_fromWorker;
  RaceControl m_control;
  State m_state = State::Idle;
};

}  // namespace opevo::ui
