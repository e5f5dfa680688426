#include "ui/controller/reference_line.h"

#include <QObject>
#include <nlohmann/json.hpp>

#include "ui/widgets/display_format.h"

namespace opevo::ui {

QString ReferenceLine::shortName() const {
  return QString::fromStdString(withoutHowChosen(name.toStdString()));
}

double ReferenceLine::everyMultiplyAddSpeed() const {
  return everyMultiplyAdd ? speed / everyMultiplyAdd->slowerBy : 0;
}

ReferenceLine referenceLineOf(const std::string& description, double speed) {
  return {QString::fromStdString(description), speed, everyMultiplyAddIn(description), {}, {}};
}

std::optional<SideBySideFigure> sideBySideOf(const std::string& json, const QString& algorithm) {
  const auto j = nlohmann::json::parse(json, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  const auto number = [&](const char* key) {
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
  };
  SideBySideFigure f;
  f.bestSpeed = number("best_speed");
  f.referenceSpeed = number("reference_speed");
  if (!(f.bestSpeed > 0) || !(f.referenceSpeed > 0)) return std::nullopt;
  if (j.contains("library") && j["library"].is_string())
    f.library = QString::fromStdString(withoutHowChosen(j["library"].get<std::string>()));
  f.bestAlgorithm = algorithm;
  f.rounds = static_cast<int>(number("rounds"));
  f.roundsRun = static_cast<int>(number("rounds_run"));
  f.roundsAsked = static_cast<int>(number("rounds_asked"));
  return f;
}

QString sideBySideText(const SideBySideFigure& f, const QString& unit) {
  const QString rounds =
      f.rounds == 1 ? QObject::tr("1 round") : QObject::tr("%1 rounds").arg(f.rounds);
  const QString stopped =
      f.roundsRun > 0 && f.roundsRun < f.roundsAsked
          ? QObject::tr(" (stopped after %1 of %2)").arg(f.roundsRun).arg(f.roundsAsked)
          : QString();
  return QObject::tr("side by side after the trials, %1 in turn%2: %3's best %4 %5, %6 %7 %5 (%8x)")
      .arg(rounds, stopped, f.bestAlgorithm, formatSpeed(f.bestSpeed), unit, f.library,
           formatSpeed(f.referenceSpeed), QString::number(f.ratio(), 'f', 2));
}

QString referenceNoteText(const ReferenceLine& line, const QString& unit) {
  const QString what =
      line.origin.isEmpty()
          ? QObject::tr("The dashed line is %1 timed apart from the kernels").arg(line.shortName())
          : QObject::tr("The dashed line is %1 timed apart from the kernels (%2)")
                .arg(line.shortName(), line.origin);
  QString text = what + QObject::tr("; on a busy machine it may differ from them by 2x.");
  if (line.sideBySide) {
    QString side = sideBySideText(*line.sideBySide, unit);
    side[0] = side[0].toUpper();
    text = side + QLatin1String(". ") + text;
  }
  return text;
}

}  // namespace opevo::ui
