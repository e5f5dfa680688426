#include "ui/controller/reference_line.h"

namespace opevo::ui {

QString ReferenceLine::shortName() const {
  return QString::fromStdString(withoutHowChosen(name.toStdString()));
}

double ReferenceLine::everyMultiplyAddSpeed() const {
  return everyMultiplyAdd ? speed / everyMultiplyAdd->slowerBy : 0;
}

ReferenceLine referenceLineOf(const std::string& description, double speed) {
  return {QString::fromStdString(description), speed, everyMultiplyAddIn(description), {}};
}

}  // namespace opevo::ui
