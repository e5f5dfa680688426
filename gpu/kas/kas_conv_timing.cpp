#include "kas/kas_conv_timing.h"

#include <algorithm>

#include "kas/kas_measurer.h"

namespace opevo::kas {

std::optional<ConvBaseline> timeConvBaseline(const std::vector<ConvTarget>& targets, int repeats,
                                             const KasMeasurerOptions& measuring, std::string* why,
                                             const std::atomic<bool>* stop) {
  WorkerClient worker(measuring.workerPath);
  ConvBaseline b;
  b.repeats = repeats;
  for (const ConvTarget& t : targets) b.layers.push_back({t.name, t.count, 0, {}});
  for (int r = 0; r < repeats; ++r)
    for (std::size_t i = 0; i < targets.size(); ++i) {
      if (stop && stop->load()) {
        if (why) *why = "stopped";
        return std::nullopt;
      }
      const auto ref =
          timeConvolution(worker, targets[i], measuring.timing, measuring.timeoutSeconds);
      if (!ref || ref->measurement.medianMs <= 0) {
        if (why) *why = targets[i].name + ": its convolution could not be timed";
        return std::nullopt;
      }
      if (b.library.empty()) {
        const std::string suffix = " convolution of " + targets[i].name;
        b.library = ref->library.substr(0, ref->library.rfind(suffix));
      }
      b.layers[i].timings.push_back(ref->measurement.medianMs);
    }
  for (ConvBaselineLayer& l : b.layers)
    l.ms = *std::min_element(l.timings.begin(), l.timings.end());
  return b;
}

}  // namespace opevo::kas
