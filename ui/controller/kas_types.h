#pragma once

#include <QMetaType>
#include <QString>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kas/kas_search.h"
#include "store/records.h"

namespace opevo::ui {

// A kernel search to start, copied into the search thread: new settings, or a stored search to
// continue (its settings are read back from the store).
struct KasSpec {
  kas::KasSearchSettings settings;
  std::optional<std::int64_t> resume;
  std::string storePath;
};

// Candidates are shared, never changed once made: a snapshot of a search with hundreds of them
// is copied to the GUI thread many times a second, and a candidate's JSON columns are large.
using KasCandidatePtr = std::shared_ptr<const KasCandidateRow>;

// A kernel search as the page draws it: read from the store, or live from the search thread.
struct KasSnapshot {
  std::int64_t searchId = 0;
  QString network;
  RunStatus status = RunStatus::Running;
  std::string settingsJson;
  int wanted = 0;                          // candidates the search evaluates
  std::optional<double> baselineAccuracy;  // 0..1, once the baseline was trained
  std::vector<double> baselineCurve;       // test accuracy after each epoch
  // The convolution figures every candidate is compared with (core/kas/conv_baseline.h), in
  // words; empty for a search stored before they were shared, or before they are timed.
  QString convolutionBasis;
  QString convolutionBrief;                 // the same, short, for the page's status line
  std::vector<KasCandidatePtr> candidates;  // in seq order
  QString activity;                         // what the search thread is doing now (live only)
};
using KasSnapshotPtr = std::shared_ptr<const KasSnapshot>;

// The snapshot's candidates as core/kas/candidate_front.h judges them (plotted, diverged, front).
std::vector<const KasCandidateRow*> kasCandidates(const KasSnapshot& s);

// The snapshot of a stored search (throws what the store throws).
KasSnapshot readKasSnapshot(const Store& store, std::int64_t searchId);
// The baseline's accuracy, curve and convolution figures from a search record's baselineJson.
void readKasBaseline(const std::string& baselineJson, KasSnapshot& into);

struct KasOutcome {
  enum class End { Finished, Stopped, Failed } end = End::Finished;
  std::int64_t searchId = 0;  // 0: the search was never stored
  QString message;
};

}  // namespace opevo::ui

Q_DECLARE_METATYPE(opevo::ui::KasSnapshotPtr)
Q_DECLARE_METATYPE(opevo::ui::KasOutcome)
