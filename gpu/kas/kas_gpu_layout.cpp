#include "kas/kas_gpu_layout.h"

#include <algorithm>

namespace opevo::kas {

namespace {

struct Placed {
  std::size_t first = 0, last = 0;  // nodes between which the buffer is alive, both included
  std::int64_t offset = 0, floats = 0;
};

// The lowest offset where `floats` fit beside every buffer of `placed` alive at the same time.
std::int64_t firstFit(const std::vector<Placed>& placed, std::size_t first, std::size_t last,
                      std::int64_t floats) {
  std::vector<const Placed*> alive;
  for (const Placed& p : placed)
    if (p.first <= last && first <= p.last) alive.push_back(&p);
  std::sort(alive.begin(), alive.end(),
            [](const Placed* a, const Placed* b) { return a->offset < b->offset; });
  std::int64_t offset = 0;
  for (const Placed* p : alive) {
    if (offset + floats <= p->offset) break;
    offset = std::max(offset, p->offset + p->floats);
  }
  return offset;
}

}  // namespace

KasGpuLayout kasGpuLayout(const MicroDag& dag, const std::vector<std::vector<std::int64_t>>& dims,
                          std::int64_t tileH, std::int64_t tileW, std::int64_t sharedLimitBytes) {
  KasGpuLayout layout;
  layout.regions = kasRegions(dag, dims, tileH, tileW);
  const KasRegions& r = layout.regions;
  const std::size_t count = dag.nodes().size();
  layout.buffers.resize(count);
  layout.buffers[0].arena = KasArena::Input;
  const std::size_t last = count - 1;
  const bool lastIsView = isView(dag.nodes()[last].kind);

  // A buffer is read until the last node that reads it or one of its views; the final copy of a
  // view output (after every node) reads its root.
  std::vector<std::size_t> lastUse(count);
  for (std::size_t i = 0; i < count; ++i) lastUse[i] = i;
  for (std::size_t k = 1; k < count; ++k)
    for (int in : dag.nodes()[k].inputs) {
      const auto root = static_cast<std::size_t>(r.nodes[static_cast<std::size_t>(in)].root);
      lastUse[root] = std::max(lastUse[root], k);
    }
  if (lastIsView) lastUse[static_cast<std::size_t>(r.nodes[last].root)] = count;

  const std::int64_t sharedLimit = sharedLimitBytes / 4;
  std::vector<Placed> shared, scratch, all;
  for (std::size_t i = 1; i < count; ++i) {
    if (r.nodes[i].root != static_cast<int>(i)) continue;
    KasGpuBuffer& b = layout.buffers[i];
    if (i == last) {
      b.arena = KasArena::Output;
      continue;
    }
    // Whole 16-byte groups, so that every buffer starts aligned for wide loads.
    b.floats = (r.nodes[i].shape.channels * r.rows(i) * r.cols(i) + 3) / 4 * 4;
    const std::int64_t any = firstFit(all, i, lastUse[i], b.floats);
    all.push_back({i, lastUse[i], any, b.floats});
    layout.workingSetFloats = std::max(layout.workingSetFloats, any + b.floats);
    const std::int64_t inShared = firstFit(shared, i, lastUse[i], b.floats);
    if (inShared + b.floats <= sharedLimit) {
      b.arena = KasArena::Shared;
      b.offset = inShared;
      shared.push_back({i, lastUse[i], inShared, b.floats});
      layout.sharedFloats = std::max(layout.sharedFloats, inShared + b.floats);
    } else {
      b.arena = KasArena::Scratch;
      b.offset = firstFit(scratch, i, lastUse[i], b.floats);
      scratch.push_back({i, lastUse[i], b.offset, b.floats});
      layout.scratchFloats = std::max(layout.scratchFloats, b.offset + b.floats);
    }
  }
  return layout;
}

}  // namespace opevo::kas
