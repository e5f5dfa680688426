#pragma once

// A kernel's checked run that goes on far longer than the fastest kernel measured so far is given
// up rather than waited for (TimingOptions::giveUpMs). Waiting cost the H200's C2 run of
// 2026-11-27 a third of its time: each of its 9 timeouts held the GPU until the trial's 20-second
// limit. A running kernel cannot be stopped from the host, but the process that runs it
// can end: opevo-worker's watch replies with a timeout and exits, which ends the kernel, and the
// engine starts a fresh worker for the next trial.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace opevo {

class RunWatch {
 public:
  // Called on the watch's thread once a watched run passes its limit, with the watch's lock held,
  // so that the run's end() waits for it: opevo-worker's replies and exits there.
  using GiveUp = std::function<void(const std::string& message)>;
  explicit RunWatch(GiveUp giveUp);
  ~RunWatch();
  RunWatch(const RunWatch&) = delete;
  RunWatch& operator=(const RunWatch&) = delete;

  void begin(double limitMs);  // limitMs <= 0: the run is not watched
  void end();

 private:
  void loop();

  GiveUp m_giveUp;
  std::mutex m_mutex;
  std::condition_variable m_changed;
  bool m_watching = false;
  bool m_stop = false;
  double m_limitMs = 0;
  std::chrono::steady_clock::time_point m_deadline;
  std::thread m_thread;
};

// The process's watch (opevo-worker sets one at start), or null: then runs are not watched.
void setRunWatch(RunWatch* watch);

// Watches one checked run for its scope, on the process's watch: given up after limitMs (0: not
// watched).
class WatchedRun {
 public:
  explicit WatchedRun(double limitMs);
  ~WatchedRun();
  WatchedRun(const WatchedRun&) = delete;
  WatchedRun& operator=(const WatchedRun&) = delete;

 private:
  RunWatch* m_watch = nullptr;
};

}  // namespace opevo
