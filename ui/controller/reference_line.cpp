#include "ui/controller/reference_line.h"

#include "engine/library_words.h"

namespace opevo::ui {

QString ReferenceLine::shortName() const {
  return QString::fromStdString(withoutHowChosen(name.toStdString()));
}

ReferenceLine referenceLineOf(const std::string& description, double speed) {
  ReferenceLine line{QString::fromStdString(description), speed, std::nullopt, {}, 1};
  if (const auto direct = everyMultiplyAddIn(description)) {
    line.everyMultiplyAddSpeed = speed / direct->slowerBy;
    line.everyMultiplyAddName = QString::fromStdString(direct->name);
    line.slowerBy = direct->slowerBy;
  }
  return line;
}

}  // namespace opevo::ui
