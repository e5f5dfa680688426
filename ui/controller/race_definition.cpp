#include "ui/controller/race_definition.h"

namespace opevo::ui {

OperatorDefinition raceDefinition(const RaceSpec& spec) {
  // The target first: an operator file's own template gives way to the direct one the loop and
  // joint modes tune (as `tune --template direct`), and a joint space is built on the common one.
  return withTuningMode(withSpaceTarget(loadOperator(spec.operatorRef), spec.target), spec.mode);
}

}  // namespace opevo::ui
