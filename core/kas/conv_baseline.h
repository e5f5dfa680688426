#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace opevo::kas {

// The standard convolution every candidate of a search is compared with: each replaced layer's
// convolution timed `repeats` times before the first candidate, one layer after another in turn
// (a burst of load slows one timing of each layer, not every timing of one), and the fastest of
// its timings kept. Every candidate is divided by these same figures: timed beside each candidate
// instead, the network's convolutions read 12.0 ms for one kernel and 9.2 ms for the next (31%
// apart) on a shared 2-core VM, and the faster kernel's headline speed-up was divided by the
// slower figure. The fastest rather than the median: load only ever slows a timing, and on that
// VM under a build one layer's five timings were 1.9, 32, 3.9, 32 and 1.9 ms (median 3.9). It
// favours the convolution, as a kernel's time is a median of its own.
struct ConvBaselineLayer {
  std::string layer;
  std::int64_t count = 1;       // layers of this shape in the network
  double ms = 0;                // the fastest of `timings`
  std::vector<double> timings;  // each one a worker's median over its own repeats
};

struct ConvBaseline {
  std::string library;  // "oneDNN 2.6.3 ...", or the plain loop nest
  int repeats = 0;
  std::vector<ConvBaselineLayer> layers;
  // Kernels tuned before these figures existed (a search stored before they were shared, and
  // resumed since) keep the convolution timed beside each: 0 when there were none.
  int tunedBefore = 0;

  // Over the network: each layer's figure times its count.
  double totalMs() const;
  // The same sum over the slowest timing of each layer: how far load moved them.
  double slowestMs() const;
  // The layer's figure, or nullopt when it was not timed.
  std::optional<double> msOf(const std::string& layer) const;
  // "oneDNN convolution: fastest of 5 timings per layer before the first kernel, shared by every
  // kernel: 9.188 ms over the network (the slowest timings: 12.046 ms)".
  std::string describe() const;
  // "oneDNN convolution 9.188 ms for every kernel (fastest of 5 timings)": for a status line.
  std::string brief() const;

  nlohmann::json toJson() const;
  // nullopt when `j` holds none (a search stored before they were shared).
  static std::optional<ConvBaseline> fromJson(const nlohmann::json& j);
};

}  // namespace opevo::kas
