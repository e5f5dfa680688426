#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "engine/engine.h"

namespace opevo::cli {

// The engine's progress on standard error. On a terminal: one line, rewritten in place, with the
// trials done, the current run, its best and the ETA. Elsewhere (a pipe, CI's log): plain lines,
// one per trial or one per finished run.
class ProgressPrinter final : public EngineObserver {
 public:
  enum class Lines { PerTrial, PerRun };

  ProgressPrinter(std::string speedUnit, Lines lines, bool terminal);
  // Ends the live line, so what is printed next starts on a line of its own.
  void finish();

  void trialMeasured(const TrialEvent& trial, const EngineProgress& progress) override;
  void runEnded(const RunState& run, const EngineProgress& progress) override;

  // "ETA 1m05s", "ETA 2h03m"; empty when unknown.
  static std::string eta(double seconds);

 private:
  std::string m_unit;
  Lines m_lines;
  bool m_terminal;
  bool m_live = false;  // a live line is on screen
  // The live line is redrawn at most ten times a second: a replay measures thousands of trials a
  // second, and a terminal that draws each one slows the race down.
  std::chrono::steady_clock::time_point m_lastDrawn{};
};

}  // namespace opevo::cli
