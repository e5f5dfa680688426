#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "engine/measurement.h"
#include "engine/trial_record.h"

namespace opevo {

// What measuring a trial cost the machine that measured it, in ms: its build and its measurement
// (compileMs + measureMs). A replay's measurements carry the file's own costs of the
// configuration (io/replay_dataset.h: compile, benchmark and verification, what Kernel Tuner's
// simulation mode charges), so a race on a file says what its trials would have cost on the
// device. A failed trial costs what the file says it spent before failing. A measurement
// answered from stored trials (reused) took nothing here. A tuner never proposes a configuration
// twice within a run (tuners/tuner.h), so every trial of a run is a first measurement, charged.
// A replay's time budget counts this (budget.h: budgetClock), summed over the run's trials, the
// stored ones of a resumed run included (compile_ms + measure_ms of each).
double deviceMs(const Measurement& m);

// A device time for a person, one spelling wherever it is printed (compare, dataset):
// "12190 s (3.39 h)"; the hours only from 0.01 h, and under 36 s three digits ("4.27 s"), so a
// small file's time does not read as 0.
std::string deviceTimeText(double seconds);

// Each run's device time so far, its trials added in the order they were measured.
class DeviceClock {
 public:
  // The trial's run's device time once it is counted, in seconds.
  double add(const TrialRecord& trial);

 private:
  std::unordered_map<std::int64_t, double> m_ms;  // by TrialRecord::run
};

}  // namespace opevo
