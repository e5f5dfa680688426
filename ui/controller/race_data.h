#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <deque>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "engine/curve_stats.h"
#include "store/records.h"
#include "ui/controller/race_types.h"

namespace opevo::ui {

// Everything the GUI knows of one race (live or reopened from the store): each run's best-so-far
// curve, and the latest trials in arrival order. Lives in the GUI thread; the charts and the
// trials table read it, the engine's updates (or the history page) fill it.
//
// Its memory is bounded by what is shown, not by the trials raced: a curve keeps only the trials
// where its best changed, and the table's rows are the latest kRecentTrials trials. The store
// holds every trial; exports read them back from it. A race that is not stored keeps all its
// trials here instead, so its exports lose nothing.
class RaceData : public QObject {
  Q_OBJECT

 public:
  explicit RaceData(QObject* parent = nullptr);

  // The table's window: enough to scroll through the last minutes of a fast race.
  static constexpr std::size_t kRecentTrials = 10000;

  // What the curves' time is (RunCurve::Step::seconds). A replayed run's is its device time by the
  // file, the time its trials cost the device that measured them: the tuner's own time is a
  // replay's bookkeeping, seconds beside the device's minutes, and would make the faster tuner
  // look the better one. A run measured here has its tuning time. Both, when History draws runs of
  // both kinds together.
  enum class Clock { Tuning, DeviceByFile, Both };

  struct CurveRuns {
    QString algorithm;
    QString space;
  };
  struct Info {
    QStringList algorithms;
    // At least this many; a trial of a later repeat (a resumed run, which keeps its own) adds it.
    int repeats = 1;
    QString speedUnit;
    QString label;                  // "replay of A100.json.gz (NVIDIA A100, real measurements)"
    std::optional<double> optimum;  // the dataset's best, when the dataset is complete
    // The reference library's speed on a device ("cuBLAS sgemm"), drawn as a line like the optimum.
    std::optional<ReferenceLine> reference;
    // Joint layout tuning: the trial after which layouts are fixed and only loops are tuned,
    // drawn as a vertical line on the trials axis.
    std::optional<int> stageBoundary;
    // The store holding the race's runs (whose ids the curves carry); empty: not stored, and
    // every trial is kept here.
    QString storePath;
    // What each curve's runs are, as trials.csv names them: the algorithm's own name (a curve
    // may carry its space's: "opevo (joint)") and the space they tune (TrialRecord::space). The
    // store says it of the runs of a stored race.
    std::vector<CurveRuns> runs;
    // The clock of the curves until a trial says it (clock()): a replay's charts name device
    // time from Start, not "tuning time" until its first trial and then rebuild.
    Clock plannedClock = Clock::Tuning;
  };

  void reset(Info info);
  void append(const std::vector<TrialPoint>& trials);
  // The reference is timed after the race has started: it arrives on its own.
  void setReference(const ReferenceLine& reference);
  // A label known only once the measurer is ready ("cpu: 2 threads of ...").
  void setLabel(const QString& label);
  // A run ended: its curve keeps its final best beyond its last trial.
  void finishRun(int algorithm, int repeat);
  // Every run ended.
  void finishAll();
  // The store could not record the race after all: from now on every trial is kept here.
  void setNotStored();

  const Info& info() const { return m_info; }
  // The repeats the race was started with, before a resumed run added its own place: whether
  // there are repeats to take a mean over.
  int startedRepeats() const { return m_startedRepeats; }
  // The latest trials (every trial when the race is not stored), oldest first.
  const std::deque<TrialPoint>& trials() const { return m_trials; }
  // Every trial the race has had, those left out of trials() included.
  long long trialCount() const { return m_trialCount; }
  // Whether trials() holds every trial of the race.
  bool hasAllTrials() const { return m_trialCount == static_cast<long long>(m_trials.size()); }
  const RunCurve& curve(int algorithm, int repeat) const;
  // A replay's run: its device time so far by the file (its latest TrialPoint::deviceSeconds);
  // none for a run measured on a device, or one with no trial yet.
  std::optional<double> deviceSeconds(int algorithm, int repeat) const;
  // Whether any run has a device time: the race replays a file.
  bool hasDeviceTime() const { return !m_deviceSeconds.empty(); }
  // What the curves' time is (RunCurve::Step::seconds); Info::plannedClock before any trial.
  Clock clock() const;
  // The runs of one algorithm that have at least one trial.
  std::vector<const RunCurve*> runsOf(int algorithm) const;
  // Bumped by every change, so a timer-driven chart redraws only when there is something new.
  quint64 revision() const { return m_revision; }

 signals:
  void aboutToReset();
  void wasReset();
  // Rows of trials(), appended at [first, last].
  void trialsAppended(int first, int last);
  // The oldest `count` trials leave trials() (the window moves on): before and after.
  void aboutToDropTrials(int count);
  void trialsDropped(int count);
  // The reference line or the label changed: charts redraw their frame.
  void infoChanged();

 private:
  RunCurve& curveAt(int algorithm, int repeat);

  Info m_info;
  int m_startedRepeats = 1;
  std::deque<TrialPoint> m_trials;
  long long m_trialCount = 0;
  std::vector<RunCurve> m_curves;                         // [repeat * algorithms + algorithm]
  std::map<std::pair<int, int>, double> m_deviceSeconds;  // by (algorithm, repeat)
  bool m_tuningTimed = false;  // whether any trial was timed here, not charged by a file
  quint64 m_revision = 0;
};

// The clock's name as a chart's title says it: "tuning time", "device time by the file", "time".
QString clockName(RaceData::Clock clock);

// The clock stored runs are charted on before a trial says it (Info::plannedClock): device time by
// the file for runs measured elsewhere, tuning time for runs measured here, Both for a mix.
RaceData::Clock plannedClockOf(const std::vector<RunRecord>& runs);

// A stored run's trials as the charts see them: the best so far, and as time the run's tuning
// time (for runs stored before schema 2, which did not keep it, the wall-clock seconds from the
// run's start to each trial's commit, pauses and any downtime included). Those of a run measured
// elsewhere (a replay or an imported file: measuredElsewhere) also carry its device time so far
// by the file, compile_ms + measure_ms of its trials, as the engine counts it and as the live
// points do (TrialPoint::deviceSeconds), whichever clock its time budget counted.
std::vector<TrialPoint> storedTrialPoints(const RunRecord& run, const std::vector<TrialRow>& rows,
                                          int algorithm, int repeat);

}  // namespace opevo::ui
