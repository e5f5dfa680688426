#include "common/run_watch.h"

#include <atomic>

namespace opevo {
namespace {

std::atomic<RunWatch*> g_watch{nullptr};

}  // namespace

RunWatch::RunWatch(GiveUp giveUp) : m_giveUp(std::move(giveUp)), m_thread([this] { loop(); }) {}

RunWatch::~RunWatch() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_changed.notify_all();
  m_thread.join();
}

void RunWatch::begin(double limitMs) {
  if (limitMs <= 0) return;
  {
    std::lock_guard lock(m_mutex);
    m_watching = true;
    m_limitMs = limitMs;
    m_deadline = std::chrono::steady_clock::now() +
                 std::chrono::microseconds(static_cast<long long>(limitMs * 1000));
  }
  m_changed.notify_all();
}

void RunWatch::end() {
  {
    std::lock_guard lock(m_mutex);
    m_watching = false;
  }
  m_changed.notify_all();
}

void RunWatch::loop() {
  std::unique_lock lock(m_mutex);
  while (!m_stop) {
    if (!m_watching) {
      m_changed.wait(lock);
      continue;
    }
    m_changed.wait_until(lock, m_deadline);
    if (m_watching && !m_stop && std::chrono::steady_clock::now() >= m_deadline) {
      m_watching = false;
      m_giveUp("still running after " + std::to_string(static_cast<long long>(m_limitMs)) +
               " ms, the limit the fastest kernel so far sets (--slow-cutoff): given up, and the "
               "worker exits to end it");
    }
  }
}

void setRunWatch(RunWatch* watch) {
  g_watch.store(watch);
}

WatchedRun::WatchedRun(double limitMs) {
  if (limitMs <= 0) return;
  m_watch = g_watch.load();
  if (m_watch) m_watch->begin(limitMs);
}

WatchedRun::~WatchedRun() {
  if (m_watch) m_watch->end();
}

}  // namespace opevo
