#include "ui/race_data.h"

#include <algorithm>
#include <cassert>

namespace opevo::ui {

RaceData::RaceData(QObject* parent) : QObject(parent) {}

void RaceData::reset(Info info) {
  emit aboutToReset();
  m_info = std::move(info);
  m_info.repeats = std::max(1, m_info.repeats);
  m_trials.clear();
  m_curves.assign(static_cast<std::size_t>(m_info.algorithms.size() * m_info.repeats), RunCurve{});
  m_lastRun = -1;
  ++m_revision;
  emit wasReset();
}

RunCurve& RaceData::curveAt(int algorithm, int repeat) {
  const auto index = static_cast<std::size_t>(repeat * m_info.algorithms.size() + algorithm);
  assert(index < m_curves.size());
  return m_curves[index];
}

const RunCurve& RaceData::curve(int algorithm, int repeat) const {
  return m_curves.at(static_cast<std::size_t>(repeat * m_info.algorithms.size() + algorithm));
}

std::vector<const RunCurve*> RaceData::runsOf(int algorithm) const {
  std::vector<const RunCurve*> runs;
  for (int r = 0; r < m_info.repeats; ++r) {
    const RunCurve& c = curve(algorithm, r);
    if (!c.bestByTrial.empty()) runs.push_back(&c);
  }
  return runs;
}

void RaceData::append(const std::vector<TrialPoint>& trials) {
  if (trials.empty()) return;
  const int first = static_cast<int>(m_trials.size());
  for (const TrialPoint& t : trials) {
    if (t.algorithm < 0 || t.algorithm >= m_info.algorithms.size() || t.repeat < 0 ||
        t.repeat >= m_info.repeats)
      continue;  // not of this race (a stale update): never index out of the curves
    const int run = t.repeat * static_cast<int>(m_info.algorithms.size()) + t.algorithm;
    if (run > m_lastRun) {
      for (int r = std::max(0, m_lastRun); r < run; ++r)
        m_curves[static_cast<std::size_t>(r)].finished = true;
      m_lastRun = run;
    }
    RunCurve& c = curveAt(t.algorithm, t.repeat);
    c.bestByTrial.push_back(t.best);
    c.bestByTime.emplace_back(t.seconds, t.best);
    m_trials.push_back(t);
  }
  const int last = static_cast<int>(m_trials.size()) - 1;
  ++m_revision;
  if (last >= first) emit trialsAppended(first, last);
}

void RaceData::setReference(const ReferenceLine& reference) {
  m_info.reference = reference;
  ++m_revision;
  emit infoChanged();
}

void RaceData::setLabel(const QString& label) {
  m_info.label = label;
  ++m_revision;
  emit infoChanged();
}

void RaceData::finishAll() {
  for (RunCurve& c : m_curves) c.finished = true;
  ++m_revision;
}

}  // namespace opevo::ui
