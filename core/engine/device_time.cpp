#include "engine/device_time.h"

namespace opevo {

double deviceMs(const Measurement& m) {
  return m.reused ? 0.0 : m.compileMs + m.measureMs;
}

double DeviceClock::add(const TrialRecord& trial) {
  double& ms = m_ms[trial.run];
  ms += deviceMs(trial.measurement);
  return ms / 1e3;
}

}  // namespace opevo
