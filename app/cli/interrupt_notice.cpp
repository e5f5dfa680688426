#include "cli/interrupt_notice.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>

namespace opevo::cli {
namespace {

// Written by the handler with write(2) and a lock-free atomic alone: nothing else is safe in a
// signal handler.
char g_message[512];
std::size_t g_length = 0;
char g_first[256];
std::size_t g_firstLength = 0;
std::atomic<bool>* g_stop = nullptr;

void onSignal(int) {
  if (g_stop && !g_stop->exchange(true)) {
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, g_first, g_firstLength);
    return;
  }
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, g_message, g_length);
  ::_exit(130);
}

std::size_t copy(const std::string& text, char* into, std::size_t size) {
  const std::size_t length = std::min(text.size(), size);
  std::memcpy(into, text.data(), length);
  return length;
}

void install() {
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
}

}  // namespace

InterruptNotice::InterruptNotice(const std::string& message) {
  g_stop = nullptr;
  g_length = copy("\nopevo: interrupted: " + message + "\n", g_message, sizeof g_message);
  install();
}

InterruptNotice::InterruptNotice(const std::string& message, std::atomic<bool>& stop,
                                 const std::string& first) {
  static_assert(std::atomic<bool>::is_always_lock_free);
  g_stop = &stop;
  g_length = copy("\nopevo: interrupted: " + message + "\n", g_message, sizeof g_message);
  g_firstLength =
      copy("\nopevo: " + first + " (Ctrl-C again to end now)\n", g_first, sizeof g_first);
  install();
}

InterruptNotice::~InterruptNotice() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  g_stop = nullptr;
}

}  // namespace opevo::cli
