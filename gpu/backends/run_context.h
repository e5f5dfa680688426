#pragma once

#include "backends/backend_factory.h"
#include "engine/store_recorder.h"

namespace opevo {

// What a run made on this measurement is stored as (StoreRecorder): its operator, backend, and
// the measurer's device, speed unit and label. One place for tune, compare and the window's races.
inline RunContext runContextOf(const MeasurementSetup& setup) {
  const Measurer& m = *setup.measurer;
  return {setup.operatorName, setup.operatorJson, setup.backend,
          m.device(),         m.speedUnit(),      m.label()};
}

}  // namespace opevo
