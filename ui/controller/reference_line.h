#pragma once

#include <QString>
#include <optional>
#include <string>

#include "engine/library_words.h"

namespace opevo::ui {

// The race's best kernels and the library timed in turns once a race on a device has finished
// (core's timeSideBySide, as `opevo tune` does after a run): a ratio taken in one window. The
// line itself is timed apart from the kernels, and on a busy machine (a shared CPU) the same
// library reads 2x apart between two timings, so only this figure compares them.
struct SideBySideFigure {
  QString library;
  QString bestAlgorithm;  // whose kernel was fastest side by side
  int rounds = 0;         // rounds in which that kernel and the library both succeeded
  int roundsRun = 0;      // fewer than asked when Stop ended the timing
  int roundsAsked = 0;
  double bestSpeed = 0;       // the kernel's median over those rounds
  double referenceSpeed = 0;  // the library's median over the same rounds
  double ratio() const { return referenceSpeed > 0 ? bestSpeed / referenceSpeed : 0; }
};

// The vendor library's speed on the same operator and device (cuBLAS, OpenBLAS, ...), drawn as a
// line beside the curves.
struct ReferenceLine {
  QString name;  // the library's whole description: "OpenBLAS sgemm", "cuDNN ..., the fastest of 6"
  double speed = 0;
  // Where the library's fastest algorithm skips multiply-adds (cuDNN's FFT on C2: the equivalent
  // of over 3x the GPU's peak), its fastest doing every one, as the description names it: the
  // line a direct kernel's curve is measured against.
  std::optional<EveryMultiplyAdd> everyMultiplyAdd;
  // Which timing the speed is, for the note under the chart: the line moves when a later timing
  // is faster and a resumed run is drawn against its stored one, so a bare number misleads ("the
  // fastest of 3 timings", "stored with run 3"). Empty: not said.
  QString origin;
  // Set once the race has finished and its best kernels were timed beside the library.
  std::optional<SideBySideFigure> sideBySide;

  // The legend's words for the library: its description without how its algorithm was chosen.
  QString shortName() const;
  // everyMultiplyAdd's speed, by the library's own ratio; 0 without one.
  double everyMultiplyAddSpeed() const;
};

// The line for a library as the measurer or the store describes it.
ReferenceLine referenceLineOf(const std::string& description, double speed);

// The figure `opevo tune` stores with a run (RunRecord::sideBySideJson) for its algorithm;
// nullopt when there is none or it lacks a speed.
std::optional<SideBySideFigure> sideBySideOf(const std::string& json, const QString& algorithm);

// "side by side after the trials, 5 rounds in turn: autotvm's best 239 GFLOP/s, oneDNN 265 GFLOP/s
// (0.90x)", as `opevo tune` prints its side-by-side line.
QString sideBySideText(const SideBySideFigure& figure, const QString& unit);

// The note under a chart with a library line: the side-by-side figure when there is one, and what
// the line is (which timing, taken apart from the kernels, so on a busy machine it may differ).
QString referenceNoteText(const ReferenceLine& line, const QString& unit);

}  // namespace opevo::ui
