#include "cli/interrupt_notice.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>

namespace opevo::cli {
namespace {

// What the handler says and does. It may run on any thread (OpenBLAS's included) and reads only
// lock-free atomics and the slot they point to: rearm() fills the other slot and then switches,
// so a signal never sees a half-written one.
struct Slot {
  char message[512];
  std::size_t length = 0;
  char first[256];
  std::size_t firstLength = 0;
  std::atomic<bool>* stop = nullptr;
};
Slot g_slots[2];
std::atomic<int> g_current{0};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

void onSignal(int) {
  const Slot& s = g_slots[g_current.load()];
  if (s.stop && !s.stop->exchange(true)) {
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, s.first, s.firstLength);
    return;
  }
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, s.message, s.length);
  ::_exit(130);
}

std::size_t copy(const std::string& text, char* into, std::size_t size) {
  const std::size_t length = std::min(text.size(), size);
  std::memcpy(into, text.data(), length);
  return length;
}

}  // namespace

InterruptNotice::InterruptNotice(const std::string& message) {
  rearm(message);
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
}

void InterruptNotice::rearm(const std::string& message, std::atomic<bool>* stop,
                            const std::string& first) {
  const int next = 1 - g_current.load();
  Slot& s = g_slots[next];
  s.length = copy("\nopevo: interrupted: " + message + "\n", s.message, sizeof s.message);
  s.firstLength =
      copy("\nopevo: " + first + " (interrupt again to end now)\n", s.first, sizeof s.first);
  s.stop = stop;
  g_current.store(next);
}

InterruptNotice::~InterruptNotice() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  rearm("", nullptr);  // no step's flag is left where a later signal could reach it
}

}  // namespace opevo::cli
