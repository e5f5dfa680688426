// A stored run for the export dialogs' tests: MM1, finished after one trial (a valid
// configuration drawn with seed 1, timed at 1 ms), whose best kernel can be written.
#pragma once

#include <cstdint>
#include <string>

#include "common/rng.h"
#include "ops/operator_json.h"
#include "ops/presets.h"
#include "store/store.h"

namespace opevo::test {

inline std::int64_t storeOneTrialRun(Store& store, const std::string& backend) {
  const OperatorDefinition def = loadOperator("MM1");
  RunRecord run;
  run.operatorName = def.op.name;
  run.operatorJson = operatorDefinitionToJson(def).dump();
  run.algorithm = "opevo-m";
  run.settingsJson = "{}";
  run.backend = backend;
  run.device = backend == "replay" ? "replay of RTX_2080_Ti.json.gz" : "this CPU";
  run.budgetJson = R"({"trials": 1})";
  run.status = RunStatus::Finished;
  run.speedUnit = "GFLOP/s";
  TrialRow t;
  t.seq = 1;
  t.order = 1;
  Rng rng(1);
  t.config = def.space.format(*def.space.randomValid(rng, 10000));
  t.timesMs = {1.0};
  t.medianMs = 1.0;
  t.speed = 100;
  t.started = t.finished = Store::nowUtc();
  return store.createRunWithTrials(run, {t});
}

}  // namespace opevo::test
