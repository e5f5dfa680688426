#include "cli/interrupt_notice.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>

namespace opevo::cli {
namespace {

// Written by the handler with write(2) alone: nothing else is safe in a signal handler.
char g_message[512];
std::size_t g_length = 0;

void onSignal(int) {
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, g_message, g_length);
  ::_exit(130);
}

}  // namespace

InterruptNotice::InterruptNotice(const std::string& message) {
  const std::string text = "\nopevo: interrupted: " + message + "\n";
  g_length = std::min(text.size(), sizeof g_message);
  std::memcpy(g_message, text.data(), g_length);
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
}

InterruptNotice::~InterruptNotice() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

}  // namespace opevo::cli
