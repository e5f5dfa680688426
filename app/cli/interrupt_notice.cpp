#include "cli/interrupt_notice.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <thread>

#include "common/child_process.h"
#include "engine/run_status.h"
#include "store/store.h"

namespace opevo::cli {
namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// What the handler says and does. It may run on any thread (OpenBLAS's included) and reads only
// lock-free atomics and the slot they point to: rearm() fills the other slot and then switches,
// so a signal never sees a half-written one.
struct Slot {
  char message[1024];
  std::size_t length = 0;
  char first[256];
  std::size_t firstLength = 0;
  std::atomic<bool>* stop = nullptr;
  void (*stopFunction)() = nullptr;
  std::atomic<bool> stopped{false};     // stopFunction was called
  int abandonFd = -1;                   // a second signal writes its number here
  std::atomic<bool> abandoning{false};  // ...and did: a third one ends the program at once
};
Slot g_slots[2];
std::atomic<int> g_current{0};
std::atomic<int> g_signal{0};  // the first stop signal received
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

void say(const char* text, std::size_t length) {
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, text, length);
}

void onSignal(int signal) {
  int none = 0;
  g_signal.compare_exchange_strong(none, signal);
  Slot& s = g_slots[g_current.load()];
  if (s.stop && !s.stop->exchange(true)) return say(s.first, s.firstLength);
  if (s.stopFunction && !s.stopped.exchange(true)) {
    s.stopFunction();
    return say(s.first, s.firstLength);
  }
  if (s.abandonFd >= 0 && !s.abandoning.exchange(true)) {
    const char byte = static_cast<char>(signal);
    if (::write(s.abandonFd, &byte, 1) == 1) return;
  }
  say(s.message, s.length);
  ::_exit(128 + signal);
}

std::size_t copy(const std::string& text, char* into, std::size_t size) {
  const std::size_t length = std::min(text.size(), size);
  std::memcpy(into, text.data(), length);
  return length;
}

// Fills the slot not in use and switches to it.
Slot& nextSlot(const std::string& message) {
  const int next = 1 - g_current.load();
  Slot& s = g_slots[next];
  s.length = copy("\nopevo: interrupted: " + message + "\n", s.message, sizeof s.message);
  s.firstLength = 0;
  s.stop = nullptr;
  s.stopFunction = nullptr;
  s.stopped = false;
  s.abandonFd = -1;
  s.abandoning = false;
  return s;
}

}  // namespace

// The thread a second signal wakes: what abandoning a step takes (a database, killing children)
// is no work for a signal handler.
struct InterruptNotice::Abandoner {
  int fds[2] = {-1, -1};
  std::mutex mutex;
  std::function<void()> abandon;
  std::thread thread;

  Abandoner() {
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("cannot create a pipe for Ctrl-C");
    thread = std::thread([this] { wait(); });
  }
  ~Abandoner() {
    const char quit = 0;
    [[maybe_unused]] const ssize_t written = ::write(fds[1], &quit, 1);
    thread.join();
    ::close(fds[0]);
    ::close(fds[1]);
  }
  void wait() {
    char signal = 0;
    while (::read(fds[0], &signal, 1) < 0 && errno == EINTR) {
    }
    if (signal == 0) return;
    std::function<void()> work;
    {
      const std::lock_guard lock(mutex);
      work = abandon;
    }
    try {
      if (work) work();
    } catch (const std::exception& e) {
      const std::string text = std::string("\nopevo: ") + e.what();
      say(text.data(), text.size());
    }
    const Slot& s = g_slots[g_current.load()];
    say(s.message, s.length);
    ::_exit(128 + signal);
  }
};

InterruptNotice::InterruptNotice(const std::string& message) {
  rearm(message);
  for (const int signal : kStopSignals) std::signal(signal, onSignal);
}

void InterruptNotice::rearm(const std::string& message, std::atomic<bool>* stop,
                            const std::string& first) {
  Slot& s = nextSlot(message);
  s.firstLength =
      copy("\nopevo: " + first + " (interrupt again to end now)\n", s.first, sizeof s.first);
  s.stop = stop;
  if (m_abandoner) {
    const std::lock_guard lock(m_abandoner->mutex);
    m_abandoner->abandon = nullptr;
  }
  g_current.store(static_cast<int>(&s - g_slots));
}

void InterruptNotice::rearm(const std::string& message, void (*stop)(), const std::string& first,
                            std::function<void()> abandon) {
  if (abandon && !m_abandoner) m_abandoner = std::make_unique<Abandoner>();
  if (m_abandoner) {
    const std::lock_guard lock(m_abandoner->mutex);
    m_abandoner->abandon = std::move(abandon);
  }
  Slot& s = nextSlot(message);
  s.firstLength = first.empty() ? 0 : copy("\nopevo: " + first + "\n", s.first, sizeof s.first);
  s.stopFunction = stop;
  s.abandonFd = m_abandoner && m_abandoner->abandon ? m_abandoner->fds[1] : -1;
  g_current.store(static_cast<int>(&s - g_slots));
}

InterruptNotice::~InterruptNotice() {
  for (const int signal : kStopSignals) std::signal(signal, SIG_DFL);
  rearm("", nullptr);  // no step's flag is left where a later signal could reach it
  m_abandoner.reset();
}

void sayFromSignal(const char* text) {
  say("\nopevo: ", 8);
  say(text, std::strlen(text));  // strlen is async-signal-safe (POSIX.1-2016)
  say("\n", 1);
}

int stopSignal() {
  return g_signal.load();
}

int interruptedExitStatus() {
  const int signal = stopSignal();
  return 128 + (signal ? signal : SIGINT);
}

void storeAbandonedRunsStopped(const std::string& db, const std::vector<std::int64_t>& runs) {
  killChildren();
  if (db.empty()) return;
  Store store(db);
  for (const std::int64_t id : runs)
    if (const auto stored = store.run(id); stored && stored->status == RunStatus::Running)
      store.setRunStatus(id, statusAfter(EndReason::Stopped), EndReason::Stopped);
}

}  // namespace opevo::cli
