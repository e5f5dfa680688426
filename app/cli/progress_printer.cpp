#include "cli/progress_printer.h"

#include <cmath>

#include "engine/run_status.h"
#include "engine/speed_unit.h"

namespace opevo::cli {

ProgressPrinter::ProgressPrinter(std::string speedUnit, Lines lines, bool terminal)
    : m_unit(std::move(speedUnit)), m_lines(lines), m_terminal(terminal) {}

std::string ProgressPrinter::eta(double seconds) {
  if (seconds < 0) return {};
  const long s = std::lround(seconds);
  char text[48];
  if (s >= 3600)
    std::snprintf(text, sizeof text, "ETA %ldh%02ldm", s / 3600, (s % 3600) / 60);
  else if (s >= 60)
    std::snprintf(text, sizeof text, "ETA %ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "ETA %lds", s);
  return text;
}

void ProgressPrinter::finish() {
  if (m_live) std::fputc('\n', stderr);
  m_live = false;
}

void ProgressPrinter::trialMeasured(const TrialEvent& e, const EngineProgress& p) {
  const TrialRecord& t = e.record;
  const std::string total = p.trialsPlanned > 0 ? std::to_string(p.trialsPlanned) : "?";
  const std::string left = eta(p.etaSeconds);
  const std::string run =
      p.runs > 1 ? t.algorithm + " #" + std::to_string(t.repeat + 1) + "  " : "";
  if (m_terminal) {
    const auto now = std::chrono::steady_clock::now();
    const bool last = p.trialsPlanned > 0 && p.trialsDone >= p.trialsPlanned;
    if (m_live && !last && now - m_lastDrawn < std::chrono::milliseconds(100)) return;
    m_lastDrawn = now;
    std::fprintf(stderr, "\r\033[Ktrial %lld/%s  %s%-13s %10s  best %s %s  %s", p.trialsDone,
                 total.c_str(), run.c_str(), std::string(statusName(t.measurement.status)).c_str(),
                 speedNumber(t.measurement.speed).c_str(), speedNumber(t.bestSoFar).c_str(),
                 m_unit.c_str(), left.c_str());
    std::fflush(stderr);
    m_live = true;
  } else if (m_lines == Lines::PerTrial) {
    std::fprintf(stderr, "trial %lld/%s  %s%-13s %10s  best %s %s  %s\n", p.trialsDone,
                 total.c_str(), run.c_str(), std::string(statusName(t.measurement.status)).c_str(),
                 speedNumber(t.measurement.speed).c_str(), speedNumber(t.bestSoFar).c_str(),
                 m_unit.c_str(), left.c_str());
  }
}

void ProgressPrinter::runEnded(const RunState& run, const EngineProgress& p) {
  if (m_lines != Lines::PerRun) return;
  finish();
  std::fprintf(stderr, "%-10s repeat %d  %d trials  best %s %s  (%s)  [%d/%d runs]\n",
               run.plan.algorithm.c_str(), run.plan.repeat + 1, run.trials,
               speedNumber(run.best, 6).c_str(), m_unit.c_str(),
               endReasonText(run.end, run.clock).c_str(), p.runsEnded, p.runs);
}

}  // namespace opevo::cli
