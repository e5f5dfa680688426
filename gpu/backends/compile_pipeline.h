#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace opevo {

// Builds `count` kernels on `threads` threads and hands each finished build, in the order the
// builds finish, to `use` on the calling thread: compilation overlaps with timing, while the
// timing itself stays one kernel at a time so it never competes with another kernel.
template <typename Build>
void compileThenUse(std::size_t count, int threads, const std::function<Build(std::size_t)>& build,
                    const std::function<void(std::size_t, Build&)>& use) {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<std::pair<std::size_t, Build>> finished;
  std::size_t next = 0;
  auto buildLoop = [&] {
    while (true) {
      std::size_t i;
      {
        std::lock_guard lock(mutex);
        if (next == count) return;
        i = next++;
      }
      Build b = build(i);
      {
        std::lock_guard lock(mutex);
        finished.emplace_back(i, std::move(b));
      }
      ready.notify_one();
    }
  };
  std::vector<std::thread> pool;
  const int workers = std::max(1, std::min<int>(threads, static_cast<int>(count)));
  for (int t = 0; t < workers && count > 0; ++t) pool.emplace_back(buildLoop);
  for (std::size_t handled = 0; handled < count; ++handled) {
    std::pair<std::size_t, Build> item;
    {
      std::unique_lock lock(mutex);
      ready.wait(lock, [&] { return !finished.empty(); });
      item = std::move(finished.front());
      finished.pop_front();
    }
    use(item.first, item.second);
  }
  for (auto& t : pool) t.join();
}

}  // namespace opevo
