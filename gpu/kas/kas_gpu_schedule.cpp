#include "kas/kas_gpu_schedule.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "kas/interpreter.h"
#include "kas/kas_gpu_layout.h"
#include "space/discrete_param.h"

namespace opevo::kas {

std::string kasGpuScheduleError(const MicroDag& dag,
                                const std::vector<std::vector<std::int64_t>>& dims,
                                const KasGpuSchedule& schedule) {
  const FlatShape in = flatShape(dag.shapes()[0], dims[0]);
  if (schedule.tileH < 1 || schedule.tileW < 1 || in.h % schedule.tileH != 0 ||
      in.w % schedule.tileW != 0)
    return "kas GPU schedule: tile " + std::to_string(schedule.tileH) + "x" +
           std::to_string(schedule.tileW) + " does not divide the " + std::to_string(in.h) + "x" +
           std::to_string(in.w) + " image";
  if (schedule.threads < 1 || schedule.threads > 1024)
    return "kas GPU schedule: " + std::to_string(schedule.threads) +
           " threads per block (expected 1 to 1024)";
  return "";
}

KasGpuFootprint kasGpuFootprint(const MicroDag& dag,
                                const std::vector<std::vector<std::int64_t>>& dims,
                                const KasGpuSchedule& schedule, std::int64_t sharedLimitBytes) {
  const KasGpuLayout l = kasGpuLayout(dag, dims, schedule.tileH, schedule.tileW, sharedLimitBytes);
  return {l.sharedFloats * 4, l.scratchFloats, l.workingSetFloats * 4};
}

KasGpuLaunch kasGpuLaunch(const MicroDag& dag, const std::vector<std::vector<std::int64_t>>& dims,
                          const KasGpuSchedule& schedule, std::int64_t sharedLimitBytes) {
  if (const std::string error = kasGpuScheduleError(dag, dims, schedule); !error.empty())
    throw std::invalid_argument(error);
  const KasGpuFootprint f = kasGpuFootprint(dag, dims, schedule, sharedLimitBytes);
  const FlatShape in = flatShape(dag.shapes()[0], dims[0]);
  KasGpuLaunch l;
  l.tiles = (in.h / schedule.tileH) * (in.w / schedule.tileW);
  l.grid = l.tiles;
  if (f.scratchFloats > 0)
    l.grid = std::clamp<std::int64_t>(kKasGpuScratchBudgetFloats / f.scratchFloats, 1, l.tiles);
  l.block = schedule.threads;
  l.sharedBytes = f.sharedBytes;
  l.scratchFloats = f.scratchFloats * l.grid;
  return l;
}

namespace {

std::vector<double> divisors(std::int64_t n) {
  std::vector<double> out;
  for (std::int64_t d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(static_cast<double>(d));
  return out;
}

// Index of the largest value not above `want`.
std::int64_t indexAtMost(const std::vector<double>& values, std::int64_t want) {
  std::int64_t best = 0;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] <= static_cast<double>(want)) best = static_cast<std::int64_t>(i);
  return best;
}

const std::vector<double> kThreads{64, 128, 256, 512};

}  // namespace

SearchSpace kasGpuScheduleSpace(std::int64_t height, std::int64_t width) {
  SearchSpace space;
  space.add(std::make_shared<DiscreteParam>("tile_h", divisors(height)));
  space.add(std::make_shared<DiscreteParam>("tile_w", divisors(width)));
  space.add(std::make_shared<DiscreteParam>("threads", kThreads));
  space.setStartPoint({{indexAtMost(divisors(height), 8)}, {indexAtMost(divisors(width), 8)}, {1}});
  return space;
}

KasGpuSchedule kasGpuSchedule(const SearchSpace& space, const Config& config) {
  auto value = [&](const char* name) {
    const auto i = static_cast<std::size_t>(space.indexOf(name));
    return static_cast<std::int64_t>(
        static_cast<const DiscreteParam&>(space.param(i)).value(config[i]));
  };
  return {value("tile_h"), value("tile_w"), value("threads")};
}

SearchSpace kasGpuScheduleSpace(const MicroDag& dag,
                                const std::vector<std::vector<std::int64_t>>& dims,
                                std::int64_t sharedLimitBytes) {
  const FlatShape in = flatShape(dag.shapes()[0], dims[0]);
  SearchSpace space = kasGpuScheduleSpace(in.h, in.w);
  // The working set does not depend on the thread count: decided per tile, once.
  const std::vector<double> hs = divisors(in.h), ws = divisors(in.w);
  auto fits = std::make_shared<std::vector<bool>>(hs.size() * ws.size());
  std::int64_t best = -1, bestArea = 0;
  for (std::size_t a = 0; a < hs.size(); ++a)
    for (std::size_t b = 0; b < ws.size(); ++b) {
      const KasGpuSchedule s{static_cast<std::int64_t>(hs[a]), static_cast<std::int64_t>(ws[b])};
      const bool ok =
          kasGpuFootprint(dag, dims, s, sharedLimitBytes).workingSetBytes <= sharedLimitBytes;
      (*fits)[a * ws.size() + b] = ok;
      const std::int64_t area = s.tileH * s.tileW;
      if (ok && s.tileH <= 8 && s.tileW <= 8 && area > bestArea) {
        best = static_cast<std::int64_t>(a * ws.size() + b);
        bestArea = area;
      }
    }
  if (std::find(fits->begin(), fits->end(), true) == fits->end()) return space;
  const std::size_t columns = ws.size();
  space.addConstraint(
      "a tile's intermediates fit in " + std::to_string(sharedLimitBytes) +
          " bytes of shared memory",
      [fits, columns](const Config& c) {
        return (
            *fits)[static_cast<std::size_t>(c[0][0]) * columns + static_cast<std::size_t>(c[1][0])];
      });
  // A smaller tile never needs more, so 1 x 1 fits whenever any tile does; this is a safeguard.
  if (best < 0)
    best = static_cast<std::int64_t>(std::find(fits->begin(), fits->end(), true) - fits->begin());
  space.setStartPoint({{best / static_cast<std::int64_t>(columns)},
                       {best % static_cast<std::int64_t>(columns)},
                       {1}});
  return space;
}

}  // namespace opevo::kas
