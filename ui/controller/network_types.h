#pragma once

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "layout/tuning_mode.h"
#include "net/network_json.h"
#include "net/network_tuning.h"
#include "net/stored_network_run.h"
#include "net/task_scheduler.h"
#include "net/task_templates.h"
#include "net/tasks.h"
#include "net/torch_script.h"

namespace opevo::ui {

// Everything one network race needs, copied into the network thread when it starts: each
// algorithm with each scheduler and mode is one stored network run, their units interleaved so a
// drift of the machine falls on all of them alike.
struct NetworkSpec {
  std::string network;  // a preset name or a network file
  net::ParamOverrides params;
  std::string backend = "cpu";
  std::vector<std::string> algorithms;
  std::vector<net::SchedulerKind> schedulers;
  // What the tasks tune (net::NetworkTuningPlan::mode); each mode is one more contender.
  std::vector<layout::TuningMode> modes{layout::TuningMode::Loop};
  // One more contender per algorithm and scheduler, the stride-1 convolutions on Winograd's
  // template (net::TaskTemplates::winograd), the other tasks in joint mode on the CPU, in
  // loop mode on the GPUs.
  bool winograd = false;
  // Every contender's dense layers with few rows on the matrix-vector template
  // (net::TaskTemplates::matvec); none said, as the backend has it by default
  // (net::defaultTaskTemplates: on the GPUs, not on the CPU).
  std::optional<bool> matvec;
  // What the race's contenders take: matvec as asked, else as the backend has it by default.
  bool matvecTemplate() const { return matvec.value_or(net::defaultTaskTemplates(backend).matvec); }
  // Each contender's mode and templates (before the algorithms and schedulers multiply them):
  // each mode, and the Winograd one. Their templates are what `opevo net tune --template` makes
  // of the words the boxes spell (net::chosenTaskTemplates): the matrix-vector box is every
  // contender's, so the Winograd contender is `--template winograd+matvec` while it is checked
  // (on cuda and hip by default) and `--template winograd` where it is cleared. A race's
  // contenders then differ in one thing, Winograd's convolutions against the same dense layers.
  std::vector<std::pair<layout::TuningMode, net::TaskTemplates>> tunings() const;
  bool coldWeights = true;      // net::NetworkTuningPlan::coldWeights
  bool coldActivations = true;  // net::NetworkTuningPlan::coldActivations
  int trials = 0;
  std::size_t unit = 4;
  std::uint64_t seed = 1;
  bool reference = true;  // time libtorch's forward first (the line the curves aim at)
  net::TorchForm torchForm = net::TorchForm::Eager;  // how libtorch runs it (CPU only)
  std::optional<std::int64_t> resume;                // continue this stored network run instead
  std::string storePath;
};

// One contender's state after a unit, as the window sees it. Plain values only: it crosses
// threads by copy.
struct ContenderState {
  QString label;  // "opevo-m / gradient"
  QString tunes;  // what its tasks tune, in words (contenderTunes)
  std::int64_t networkId = 0;
  std::vector<double> curveTrials;      // network trials after each unit
  std::vector<double> curveEstimateMs;  // sum of weight x best after each unit (NaN: not yet)
  std::vector<int> taskTrials;          // per task, so far
  std::vector<double> taskBestMs;       // per task, NaN until one configuration worked
  std::vector<int> unitTask;            // the task of each unit, in order
  std::vector<int> unitTrials;          // the trials of each unit
  // Per unit, the twins a unit of the closing round measured the best configurations of (one
  // name per trial: net::StoredNetworkUnit::closingFrom); empty for the scheduler's units. May
  // be shorter than unitTask (a state made without it): the units past its end are the
  // scheduler's.
  std::vector<std::vector<std::string>> unitClosingFrom;
  int trials = 0, budget = 0;
  bool done = false;
  // Once run end to end, on this CPU or the CUDA device (NaN before or when not run).
  double endToEndMs = std::numeric_limits<double>::quiet_NaN();
  bool verified = false;
  QString device;  // the GPU it ran on (empty: this CPU, checked against libtorch)
  // Whether its end-to-end output was checked (outputChecked): verified is its verdict only then.
  bool checked = false;
  // On this CPU, why there was no libtorch to check its output against, when it says (a run
  // stored before the reason was kept does not); empty where libtorch ran.
  QString referenceMissing;
  QString endToEndError;                           // why the run on the device failed
  std::vector<std::pair<QString, double>> stepMs;  // each step's median time, by layer
  // After tuning on a GPU: sum of weight x each task's library (cuBLAS / cuDNN), and that plus
  // the same fixed kernels as the end-to-end run (what a framework's network would take).
  double sumOfLibrariesMs = std::numeric_limits<double>::quiet_NaN();
  double libraryNetworkMs = std::numeric_limits<double>::quiet_NaN();
  // On this CPU after the tuned network: the untuned one and each task's faster configuration
  // end to end, and the network kept (what `opevo net export` writes), as `opevo net tune` runs
  // them.
  net::NetworkComparison comparison;
};

// Whether a network's end-to-end output was checked: on a GPU always (against the network on
// its tasks' plain reference kernels), on this CPU where libtorch ran. Without it a verified
// false is no verdict: a stored CPU run with no libtorch time read "output DIFFERS".
inline bool outputChecked(const QString& device, bool libtorchRan) {
  return !device.isEmpty() || libtorchRan;
}

// libtorch's line in the latency chart's legend: "libtorch", or "libtorch frozen" (a run's
// libtorch timed as deployed), live and reopened alike; a form this version does not know (a
// later version's stored run), named as stored.
QString torchLegend(net::TorchForm form, const std::string& unknownForm = {});

// "opevo-m / gradient / joint + winograd": how a contender is named in the box and the legend.
QString contenderLabel(const net::NetworkTuningPlan& plan);

// What a contender's tasks tune, in words, with the `opevo net tune` options that tune the same:
// "Tunes the stride-1 convolutions on Winograd's template, the dense layers on the matrix-vector
// one and the other tasks' loops over plain layouts, as net tune --mode loop --template
// winograd+matvec". A label's "+ winograd+matvec" alone left the page's Winograd contender and
// `net tune --template winograd` (dense layers direct) looking like one thing. A stored run's
// planNote (net::storedPlanNote) follows as a sentence.
QString contenderTunes(const net::NetworkTuningPlan& plan, const std::string& planNote = {});

// A mode as the form's Tune boxes name it ("loops", "layouts+loops", "no propagation"), for the
// stored runs' list, where "joint" would need the docs.
QString tuningModeWords(layout::TuningMode mode);

// What a live unit records in ContenderState::unitClosingFrom: the twins its configurations came
// from when it is one of the closing round, else none (a scheduler's unit that began with its
// twins' bests is not the round).
std::vector<std::string> closingFrom(const net::NetworkUnit& unit, const net::TaskGraph& graph);

// The contender's closing round in words, its tasks named by `taskNames` (in task order), as
// `opevo net runs ID` says it: "a 1 from twin b; b 1 from twin a". Empty when it had none.
QString closingRoundText(const ContenderState& c, const QStringList& taskNames);

// The tasks every contender of the race tunes (one network, so one task list).
struct NetworkTaskInfo {
  QString name;
  QString kind;   // conv2d, dense, ...
  QString shape;  // of its output
  double weight = 1;
  double gflops = 0;
  QStringList layers;  // the complex layer and the layers fused into it, of every occurrence
};

// The tasks' descriptions, in the task graph's order.
std::vector<NetworkTaskInfo> networkTaskInfo(const net::Network& net, const net::TaskGraph& graph);

struct NetworkSnapshot {
  QString network;
  QString networkText;  // the file's JSON text, for the picture
  std::string source;   // as given (a preset name or a path)
  net::ParamOverrides params;
  std::vector<ContenderState> contenders;
  // The tasks' names in task order, where the snapshot has them (a stored run's): the page's
  // table may still show another network's tasks while the run's picture loads. Empty: the
  // race's own, as the page shows them.
  QStringList taskNames;
  // The line the curves are held against: libtorch's forward on the CPU (best median of its
  // processes, timed before the tuning), or on a GPU the tasks' libraries + the same fixed
  // kernels (timed after it).
  std::optional<double> referenceMs;
  QString referenceName;    // "libtorch 1.13.1, 2 threads", ..., or why there is none
  QString referenceLegend;  // the chart's short name for it: "libtorch", "libraries"
  QString activity;         // what the thread is doing now
};
using NetworkSnapshotPtr = std::shared_ptr<const NetworkSnapshot>;

// A stored network run as the page shows a race's contender (nothing runs): its curve, its
// tasks' trials and bests, and once it ended its end-to-end figures and the line they are held
// against.
NetworkSnapshot storedSnapshot(const net::StoredNetworkRun& run);

struct NetworkOutcome {
  enum class End { Finished, Stopped, Failed } end = End::Finished;
  QString message;
};

}  // namespace opevo::ui

Q_DECLARE_METATYPE(opevo::ui::NetworkSnapshotPtr)
Q_DECLARE_METATYPE(opevo::ui::NetworkOutcome)
