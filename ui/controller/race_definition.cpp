#include "ui/controller/race_definition.h"

namespace opevo::ui {

OperatorDefinition raceDefinition(const RaceSpec& spec) {
  OperatorDefinition def = withTuningMode(loadOperator(spec.operatorRef), spec.mode);
  return spec.target != SpaceTarget::Common ? withSpaceTarget(std::move(def), spec.target) : def;
}

}  // namespace opevo::ui
