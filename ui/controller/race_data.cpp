#include "ui/controller/race_data.h"

#include <QDateTime>
#include <algorithm>
#include <cassert>

#include "engine/device_time.h"
#include "io/run_import.h"
#include "store/history.h"

namespace opevo::ui {
namespace {

double secondsBetween(const std::string& from, const std::string& to) {
  const QDateTime a = QDateTime::fromString(QString::fromStdString(from), Qt::ISODateWithMs);
  const QDateTime b = QDateTime::fromString(QString::fromStdString(to), Qt::ISODateWithMs);
  return a.isValid() && b.isValid() ? std::max<qint64>(0, a.msecsTo(b)) / 1000.0 : 0.0;
}

}  // namespace

RaceData::RaceData(QObject* parent) : QObject(parent) {}

void RaceData::reset(Info info) {
  emit aboutToReset();
  m_info = std::move(info);
  m_info.repeats = std::max(1, m_info.repeats);
  m_startedRepeats = m_info.repeats;
  m_trials.clear();
  m_trialCount = 0;
  m_deviceSeconds.clear();
  m_tuningTimed = false;
  m_curves.assign(static_cast<std::size_t>(m_info.algorithms.size() * m_info.repeats), RunCurve{});
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

std::optional<double> RaceData::deviceSeconds(int algorithm, int repeat) const {
  const auto it = m_deviceSeconds.find({algorithm, repeat});
  if (it == m_deviceSeconds.end()) return std::nullopt;
  return it->second;
}

RaceData::Clock RaceData::clock() const {
  if (m_trialCount == 0) return m_info.plannedClock;
  if (hasDeviceTime() && m_tuningTimed) return Clock::Both;
  return hasDeviceTime() ? Clock::DeviceByFile : Clock::Tuning;
}

std::vector<const RunCurve*> RaceData::runsOf(int algorithm) const {
  std::vector<const RunCurve*> runs;
  for (int r = 0; r < m_info.repeats; ++r) {
    const RunCurve& c = curve(algorithm, r);
    if (c.trials > 0) runs.push_back(&c);
  }
  return runs;
}

void RaceData::append(const std::vector<TrialPoint>& trials) {
  if (trials.empty()) return;
  const int first = static_cast<int>(m_trials.size());
  const int repeatsBefore = m_info.repeats;
  const Clock clockBefore = clock();
  for (const TrialPoint& t : trials) {
    if (t.algorithm < 0 || t.algorithm >= m_info.algorithms.size() || t.repeat < 0)
      continue;  // not of this race (a stale update): never index out of the curves
    // A resumed run keeps its own repeat number (its race's third repeat stays the third), though
    // it is the only run shown: its curve gets a place, the places before it stay empty.
    if (t.repeat >= m_info.repeats) {
      m_info.repeats = t.repeat + 1;
      m_curves.resize(static_cast<std::size_t>(m_info.algorithms.size() * m_info.repeats));
    }
    RunCurve& c = curveAt(t.algorithm, t.repeat);
    c.run = t.run;
    c.add(t.deviceSeconds.value_or(t.seconds), t.best);
    if (t.deviceSeconds) m_deviceSeconds[{t.algorithm, t.repeat}] = *t.deviceSeconds;
    if (!t.deviceSeconds) m_tuningTimed = true;
    m_trials.push_back(t);
    ++m_trialCount;
  }
  const int last = static_cast<int>(m_trials.size()) - 1;
  ++m_revision;
  // The charts draw the new places, or name the new clock.
  if (m_info.repeats != repeatsBefore || clock() != clockBefore) emit infoChanged();
  if (last >= first) emit trialsAppended(first, last);
  if (!m_info.storePath.isEmpty() && m_trials.size() > kRecentTrials) {
    const auto count = static_cast<int>(m_trials.size() - kRecentTrials);
    emit aboutToDropTrials(count);
    m_trials.erase(m_trials.begin(), m_trials.begin() + count);
    emit trialsDropped(count);
  }
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

void RaceData::finishRun(int algorithm, int repeat) {
  if (algorithm < 0 || algorithm >= m_info.algorithms.size() || repeat < 0 ||
      repeat >= m_info.repeats)
    return;
  curveAt(algorithm, repeat).finished = true;
  ++m_revision;
}

void RaceData::setNotStored() {
  m_info.storePath.clear();
}

void RaceData::finishAll() {
  for (RunCurve& c : m_curves) c.finished = true;
  ++m_revision;
}

QString clockName(RaceData::Clock clock) {
  switch (clock) {
    case RaceData::Clock::Tuning:
      return QObject::tr("tuning time");
    case RaceData::Clock::DeviceByFile:
      return QObject::tr("device time by the file");
    case RaceData::Clock::Both:
      break;
  }
  return QObject::tr("time");
}

RaceData::Clock plannedClockOf(const std::vector<RunRecord>& runs) {
  const auto elsewhere = static_cast<std::size_t>(std::count_if(
      runs.begin(), runs.end(), [](const RunRecord& r) { return measuredElsewhere(r); }));
  if (elsewhere == 0) return RaceData::Clock::Tuning;
  return elsewhere == runs.size() ? RaceData::Clock::DeviceByFile : RaceData::Clock::Both;
}

std::vector<TrialPoint> storedTrialPoints(const RunRecord& run, const std::vector<TrialRow>& rows,
                                          int algorithm, int repeat) {
  std::vector<TrialPoint> points;
  points.reserve(rows.size());
  double best = 0;
  const bool device = measuredElsewhere(run);
  double deviceMsSoFar = 0;
  for (const TrialRow& t : rows) {
    TrialPoint p;
    p.algorithm = algorithm;
    p.repeat = repeat;
    p.seq = t.seq;
    p.order = t.order;
    p.run = run.id;
    p.seed = run.seed;
    p.config = QString::fromStdString(t.config);
    p.status = t.status;
    p.message = QString::fromStdString(t.message);
    p.agent = QString::fromStdString(t.agent);
    p.speed = t.speed;
    if (t.status == TrialStatus::Ok) best = std::max(best, t.speed);
    p.best = best;
    p.seconds = t.seconds > 0 ? t.seconds : secondsBetween(run.started, t.finished);
    p.medianMs = t.medianMs;
    p.compileMs = t.compileMs;
    const Measurement m = measurementOf(t);
    p.measureMs = m.measureMs;
    p.verifyMs = m.verifyMs;
    p.reused = m.reused;
    if (device) {
      deviceMsSoFar += deviceMs(m);
      p.deviceSeconds = deviceMsSoFar / 1e3;
    }
    points.push_back(std::move(p));
  }
  return points;
}

TrialRecord trialRecordOf(const TrialPoint& p, const QString& algorithm, const QString& space) {
  TrialRecord t;
  t.space = space.toStdString();
  t.order = p.order;
  t.run = p.run;
  t.algorithm = algorithm.toStdString();
  t.repeat = p.repeat;
  t.seed = p.seed;
  t.trial = p.seq;
  t.config = p.config.toStdString();
  t.measurement.status = p.status;
  t.measurement.agent = p.agent.toStdString();
  t.measurement.speed = p.speed;
  t.measurement.medianMs = p.medianMs;
  t.measurement.compileMs = p.compileMs;
  t.measurement.measureMs = p.measureMs;
  t.measurement.verifyMs = p.verifyMs;
  t.measurement.reused = p.reused;
  t.measurement.message = p.message.toStdString();
  t.bestSoFar = p.best;
  t.seconds = p.seconds;
  t.tunerSeconds = p.tunerSeconds;
  return t;
}

}  // namespace opevo::ui
