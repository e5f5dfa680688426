#pragma once

#include <QString>
#include <optional>
#include <string>

#include "engine/library_words.h"

namespace opevo::ui {

// The vendor library's speed on the same operator and device (cuBLAS, OpenBLAS, ...), drawn as a
// line beside the curves.
struct ReferenceLine {
  QString name;  // the library's whole description: "OpenBLAS sgemm", "cuDNN ..., the fastest of 6"
  double speed = 0;
  // Where the library's fastest algorithm skips multiply-adds (cuDNN's FFT on C2: the equivalent
  // of over 3x the GPU's peak), its fastest doing every one, as the description names it: the
  // line a direct kernel's curve is measured against.
  std::optional<EveryMultiplyAdd> everyMultiplyAdd;
  // Which timing the speed is, for the legend: the line moves when a later timing is faster and a
  // resumed run is drawn against its stored one, so a bare number misleads ("the fastest of 3
  // timings in this race", "stored with run 3"). Empty: not said.
  QString origin;

  // The legend's words for the library: its description without how its algorithm was chosen.
  QString shortName() const;
  // everyMultiplyAdd's speed, by the library's own ratio; 0 without one.
  double everyMultiplyAddSpeed() const;
};

// The line for a library as the measurer or the store describes it.
ReferenceLine referenceLineOf(const std::string& description, double speed);

}  // namespace opevo::ui
