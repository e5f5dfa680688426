#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace opevo::cli {

// How every long command (tune, compare, sweep, net tune, kas search) is stopped: Ctrl-C
// (SIGINT), SIGTERM, and SIGHUP (the terminal or ssh session closed) alike. The first stops the
// step in hand as it says; a second one ends the program. The exit status is 128 + the signal,
// as the shell reports a program a signal killed: 130 after Ctrl-C, 143 after SIGTERM, 129 after
// SIGHUP (docs/engine.md, "Stopping a run").
//
// A notice is installed for the stretch of a command that a signal may stop. With `message` only
// (nothing measured can be lost, e.g. the reference timing after a run) a signal prints it and
// exits at once.
class InterruptNotice {
 public:
  explicit InterruptNotice(const std::string& message);
  ~InterruptNotice();
  InterruptNotice(const InterruptNotice&) = delete;
  InterruptNotice& operator=(const InterruptNotice&) = delete;

  // For the next step, with no moment where a signal would take the default action. With `stop`
  // (a step that can end early, which must outlive this notice), the first signal sets it and
  // prints `first` (what happens now); a second one ends the program with `message`.
  void rearm(const std::string& message, std::atomic<bool>* stop = nullptr,
             const std::string& first = {});

  // For a step whose work in hand can take long (a trial: its kernels' builds, its timing): the
  // first signal calls `stop` (in the handler: it may only set flags) and prints `first` at once;
  // a second one runs `abandon` on a thread of this notice's, where it may use a database and end
  // child processes (the worker measuring the trial in hand), then prints `message` and exits
  // (without `abandon`, at once). A third one exits at once, `abandon` done or not. With `first`
  // empty, `stop` says what happens itself (sayFromSignal), as when that depends on the stretch.
  void rearm(const std::string& message, void (*stop)(), const std::string& first,
             std::function<void()> abandon = {});

 private:
  struct Abandoner;
  std::unique_ptr<Abandoner> m_abandoner;
};

// For a stop function, in the signal handler: "opevo: TEXT" on a line of its own on standard
// error (write(2) alone).
void sayFromSignal(const char* text);

// A second signal's work on stored runs, on the notice's thread: the children measuring the work
// in hand are killed (nothing of it is stored), and each of `runs` in the database `db` that still
// reads running is stored stopped (interrupted, resumable) with the trials it committed, as a
// first signal leaves it. A connection of its own: the tuning thread's may be in a commit, which
// this one waits for.
void storeAbandonedRunsStopped(const std::string& db, const std::vector<std::int64_t>& runs);

// The first stop signal this program received (SIGINT, SIGTERM or SIGHUP); 0 when none.
int stopSignal();
// 128 + stopSignal(): what a command that a signal stopped exits with (130 when none was
// received, as for Ctrl-C).
int interruptedExitStatus();

// A step the user interrupted after what it had done was reported: the message is printed and
// the program exits with interruptedExitStatus().
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(const std::string& message)
      : std::runtime_error(message), m_status(interruptedExitStatus()) {}
  int exitStatus() const { return m_status; }

 private:
  int m_status;
};

}  // namespace opevo::cli
