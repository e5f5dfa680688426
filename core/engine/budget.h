#pragma once

#include <optional>
#include <string>

namespace opevo {

// When a run stops: after a number of trials, an amount of tuning time, or on reaching a speed;
// the first that is met ends it. At least one is set.
struct Budget {
  std::optional<int> trials;
  std::optional<double> seconds;  // tuning time of the run; pauses do not count
  std::optional<double> targetSpeed;

  // Throws InputError for no budget at all, a trial budget below 1 or a time that is not positive.
  void check() const;
  std::string toJson() const;
  static Budget fromJson(const std::string& json);
};

}  // namespace opevo
