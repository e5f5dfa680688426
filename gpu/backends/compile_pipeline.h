#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace opevo {

// Builds `count` kernels on `threads` threads and hands each finished build, in the order the
// builds finish, to `use` on the calling thread: compilation overlaps with timing, while the
// timing itself stays one kernel at a time so it never competes with another kernel.
//
// Exception-safe: when `use` throws (a store that cannot commit, an engine cutting the batch
// short) or `build` does, no further build starts, the builds in hand finish, every thread is
// joined, and the first exception reaches the caller. Nothing is left running behind it.
template <typename Build>
void compileThenUse(std::size_t count, int threads, const std::function<Build(std::size_t)>& build,
                    const std::function<void(std::size_t, Build&)>& use) {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<std::pair<std::size_t, Build>> finished;
  std::size_t next = 0;
  bool abandoned = false;
  std::exception_ptr buildError;
  auto buildLoop = [&] {
    while (true) {
      std::size_t i;
      {
        std::lock_guard lock(mutex);
        if (abandoned || next == count) return;
        i = next++;
      }
      try {
        Build b = build(i);
        std::lock_guard lock(mutex);
        finished.emplace_back(i, std::move(b));
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!buildError) buildError = std::current_exception();
        abandoned = true;
      }
      ready.notify_one();
    }
  };
  std::vector<std::thread> pool;
  // Declared after everything the builders touch, so it runs first when the stack unwinds.
  struct Joiner {
    std::vector<std::thread>& pool;
    std::mutex& mutex;
    bool& abandoned;
    ~Joiner() {
      {
        std::lock_guard lock(mutex);
        abandoned = true;
      }
      for (auto& t : pool)
        if (t.joinable()) t.join();
    }
  } joiner{pool, mutex, abandoned};
  const int workers = std::max(1, std::min<int>(threads, static_cast<int>(count)));
  for (int t = 0; t < workers && count > 0; ++t) pool.emplace_back(buildLoop);
  for (std::size_t handled = 0; handled < count; ++handled) {
    std::pair<std::size_t, Build> item;
    {
      std::unique_lock lock(mutex);
      ready.wait(lock, [&] { return !finished.empty() || buildError; });
      if (finished.empty()) std::rethrow_exception(buildError);
      item = std::move(finished.front());
      finished.pop_front();
    }
    use(item.first, item.second);
  }
}

}  // namespace opevo
