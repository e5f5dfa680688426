#include "cluster/retry.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

namespace opevo::cluster {

double Backoff::next() {
  const double wait = m_next;
  m_next = std::min(m_max, m_next * 2);
  return wait;
}

bool sleepUnlessCancelled(double seconds, const std::atomic<bool>* cancel) {
  using Clock = std::chrono::steady_clock;
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(seconds));
  while (Clock::now() < end) {
    if (cancel && cancel->load()) return false;
    const Clock::duration left = end - Clock::now();
    std::this_thread::sleep_for(std::min<Clock::duration>(left, std::chrono::milliseconds(50)));
  }
  return !(cancel && cancel->load());
}

std::string retryingIn(double seconds) {
  char text[48];
  std::snprintf(text, sizeof text, "retrying in %.2g s", seconds);
  return text;
}

}  // namespace opevo::cluster
