#include "engine/device_time.h"

#include <cstdio>

namespace opevo {

double deviceMs(const Measurement& m) {
  return m.reused ? 0.0 : m.compileMs + m.measureMs;
}

std::string deviceTimeText(double seconds) {
  char text[64];
  if (seconds >= 36)
    std::snprintf(text, sizeof text, "%.0f s (%.2f h)", seconds, seconds / 3600);
  else
    std::snprintf(text, sizeof text, "%.3g s", seconds);
  return text;
}

double DeviceClock::add(const TrialRecord& trial) {
  double& ms = m_ms[trial.run];
  ms += deviceMs(trial.measurement);
  return ms / 1e3;
}

}  // namespace opevo
