#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace opevo {

// What a run's time budget (Budget::seconds) counts.
enum class BudgetClock {
  Tuning,  // the run's tuning time on this machine, pauses excluded
  Device,  // what its trials cost the device that measured them, by the replayed file
};

// When a run stops: after a number of trials, an amount of time, or on reaching a speed; the
// first that is met ends it. At least one is set.
struct Budget {
  std::optional<int> trials;
  std::optional<double> seconds;  // on `clock`; pauses do not count
  std::optional<double> targetSpeed;
  // What `seconds` counts. Stored with it, so that a run goes on counting what it counted when it
  // was started, whatever the rule of the day: unset until the engine adds the run (the clock of
  // its measurer, budgetClock below). A stored time budget without a clock is read as tuning
  // time: what every run counted before replays counted device time. (Replay runs stored by the
  // builds of 30 November 2026 between 9f4be7c and 6046eab counted device time without storing
  // it, and read as tuning time too: nothing in the store tells them apart.) Read only beside
  // `seconds`: a clock without a time budget means nothing.
  std::optional<BudgetClock> clock;

  // Throws InputError for no budget at all, a trial budget below 1 or a time that is not positive.
  void check() const;
  std::string toJson() const;
  static Budget fromJson(const std::string& json);
};

// The one rule for which clock a time budget counts, for the engine, the commands and the window
// alike. A replay answers each trial from its file at once, or at whatever pace the window sets,
// so its tuning time says nothing of the tuning it replays and differs from one machine to the
// next: its budget counts the device time the file charges for its trials (device_time.h), as
// Kernel Tuner's simulation mode charges its time limit, the same on every machine and at every
// pace. Every other run is measured here, and its budget counts its tuning time.
BudgetClock budgetClock(bool replay);

// "device time" or "tuning time": what a run's time budget counts, and its "time" end reason.
std::string_view budgetClockName(BudgetClock clock);
// "device" or "tuning": the clock in a stored budget and in `--json` outputs.
std::string_view budgetClockToken(BudgetClock clock);

}  // namespace opevo
