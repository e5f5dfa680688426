#include "ui/controller/race_definition.h"

namespace opevo::ui {

OperatorDefinition raceDefinition(const RaceSpec& spec) {
  OperatorDefinition def = withTuningMode(loadOperator(spec.operatorRef), spec.mode);
  return spec.winograd ? withSpaceTarget(std::move(def), SpaceTarget::Winograd) : def;
}

}  // namespace opevo::ui
