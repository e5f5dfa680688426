#pragma once

#include <QString>
#include <optional>
#include <string>

namespace opevo::ui {

// The vendor library's speed on the same operator and device (cuBLAS, OpenBLAS, ...), drawn as a
// line beside the curves.
struct ReferenceLine {
  QString name;  // the library's whole description: "OpenBLAS sgemm", "cuDNN ..., the fastest of 6"
  double speed = 0;
  // Where the library's fastest algorithm skips multiply-adds (cuDNN's FFT on C2: the equivalent
  // of over 3x the GPU's peak), its fastest doing every one, at the speed the library's own ratio
  // gives: the line a direct kernel's curve is measured against. Its name: "algorithm 1
  // (implicit precomputed GEMM)"; slowerBy: that ratio.
  std::optional<double> everyMultiplyAddSpeed;
  QString everyMultiplyAddName;
  double slowerBy = 1;

  // The legend's words for the library: its description without how its algorithm was chosen.
  QString shortName() const;
};

// The line for a library as the measurer or the store describes it.
ReferenceLine referenceLineOf(const std::string& description, double speed);

}  // namespace opevo::ui
