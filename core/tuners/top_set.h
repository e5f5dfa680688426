#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <utility>
#include <vector>

#include "space/search_space.h"

namespace opevo {

// The best-scored distinct configurations offered so far, at most `capacity` of them: the
// "top set" that simulated annealing and evolutionary search fill from the model's predictions.
// Ties keep the configuration offered first, so the result depends only on the offer order.
class TopSet {
 public:
  explicit TopSet(std::size_t capacity) : m_capacity(capacity) {}

  // True when c was kept (it may later be pushed out by better ones).
  bool offer(float score, const Config& c) {
    if (m_capacity == 0 || m_members.count(c)) return false;
    if (m_heap.size() == m_capacity) {
      if (!(score > m_heap.front().score)) return false;
      std::pop_heap(m_heap.begin(), m_heap.end(), better);
      m_members.erase(m_heap.back().config);
      m_heap.pop_back();
    }
    m_heap.push_back({score, m_next++, c});
    std::push_heap(m_heap.begin(), m_heap.end(), better);
    m_members.insert(c);
    return true;
  }

  bool contains(const Config& c) const { return m_members.count(c) > 0; }
  std::size_t size() const { return m_heap.size(); }

  // Best first.
  std::vector<std::pair<float, Config>> sorted() const {
    std::vector<Entry> entries = m_heap;
    std::sort(entries.begin(), entries.end(), better);
    std::vector<std::pair<float, Config>> out;
    out.reserve(entries.size());
    for (Entry& e : entries) out.emplace_back(e.score, std::move(e.config));
    return out;
  }

 private:
  struct Entry {
    float score;
    std::uint64_t order;
    Config config;
  };
  // With this order std's heap keeps the worst entry (lowest score, latest among equals) in front.
  static bool better(const Entry& a, const Entry& b) {
    return a.score > b.score || (a.score == b.score && a.order < b.order);
  }

  std::size_t m_capacity;
  std::uint64_t m_next = 0;
  std::vector<Entry> m_heap;
  std::unordered_set<Config, ConfigHash> m_members;
};

}  // namespace opevo
