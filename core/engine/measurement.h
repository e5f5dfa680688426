#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/enum_names.h"
#include "space/search_space.h"

namespace opevo {

// Why a trial has no speed. Rejected means a device limit found only after compiling (a known
// constraint never gets this far: the tuner does not propose it).
enum class TrialStatus {
  Ok,
  Rejected,
  CompileError,
  LaunchError,
  RuntimeFault,
  Timeout,
  WrongResult
};

std::string_view statusName(TrialStatus status);
const EnumNames<TrialStatus, 7>& trialStatusNames();
// Inverse of statusName; false for an unknown name.
bool parseStatus(std::string_view name, TrialStatus& out);

struct Measurement {
  TrialStatus status = TrialStatus::Ok;
  double speed = 0;             // the fitness: higher is better; 0 unless status is Ok
  double medianMs = 0;          // median kernel time
  std::vector<double> timesMs;  // every timed run
  double compileMs = 0;
  // Checking the output against the reference: copying it back and comparing, or the device's
  // comparison kernel (0 where nothing was checked). A fresh GPU worker's first large output
  // also builds that kernel and uploads the reference here, once.
  double verifyMs = 0;
  // The whole measurement as the measurer saw it, compiling excluded: a fresh worker's start and
  // its operator's preparation, transfers, the checked, warm-up and timed runs, the verification,
  // the replies. What is left after the timed runs and the verification is the framework's cost.
  double measureMs = 0;
  std::string message;  // the failure's reason, empty when Ok
  // Answered from stored trials (HistoryMeasurer), not measured: it took no time here, so it
  // says nothing of the pace at which this machine measures.
  bool reused = false;
  // The cluster agent that measured it (its id in the cluster: `opevo agent --name`, by default
  // HOST-PID), so that an odd timing can be traced to its node; empty when this machine measured
  // it. A trial answered from history keeps the agent of the timing it repeats.
  std::string agent;
};

// Anything that turns configurations into measurements: a real device backend or a replay of a
// measured dataset. measure() answers one Measurement per configuration, in order.
class Measurer {
 public:
  virtual ~Measurer() = default;
  // Shown wherever results appear, e.g. "replay of RTX_2080_Ti.json.gz (NVIDIA RTX 2080 Ti)".
  virtual std::string label() const = 0;
  virtual bool isReplay() const = 0;
  // Unit of Measurement::speed, e.g. "TFLOPS" or "GFLOP/s".
  virtual std::string speedUnit() const = 0;
  virtual std::vector<Measurement> measure(const std::vector<Config>& configs) = 0;

  // As measure(), reporting each configuration as soon as it is measured (in any order), so the
  // caller can commit it at once. Device backends override this; the default waits for all.
  using TrialCallback = std::function<void(std::size_t index, const Measurement&)>;
  virtual void measureEach(const std::vector<Config>& configs, const TrialCallback& done) {
    const std::vector<Measurement> results = measure(configs);
    for (std::size_t i = 0; i < results.size(); ++i) done(i, results[i]);
  }

  // The vendor library's speed on the same operator (cuBLAS, cuDNN, OpenBLAS), when there is one.
  struct Reference {
    std::string library;
    Measurement measurement;
  };
  virtual std::optional<Reference> reference() { return std::nullopt; }
  // "device: NVIDIA H100 80GB HBM3, driver 13.0" and the like, for the store and the display.
  virtual std::string device() const { return label(); }

 protected:
  // measure() for measurers that implement measureEach(): waits for every result.
  std::vector<Measurement> collectEach(const std::vector<Config>& configs) {
    std::vector<Measurement> out(configs.size());
    measureEach(configs, [&](std::size_t i, const Measurement& m) { out[i] = m; });
    return out;
  }
};

// The best configurations of a run and the reference library timed in turns after it: in each of
// `rounds` rounds every candidate once, then the library; the median of each side's rounds, and
// the candidate with the highest median is the one reported. The best found while tuning is the
// fastest of many noisy timings (its lead over the next best may be luck) and the library is
// timed once at the end; on a machine whose speed drifts (a shared CPU: the same kernel 2x apart
// between runs) only timings taken side by side compare them. Nothing when the library fails or
// is missing in every round, or no candidate succeeds.
struct SideBySide {
  std::string library;
  int rounds = 0;  // rounds in which the library and the chosen candidate succeeded
  double bestSpeed = 0, referenceSpeed = 0;
  std::size_t chosen = 0;  // index of the fastest candidate by median (0: the run's best)
  std::size_t candidates = 0;
  std::vector<double> speeds;  // each candidate's median, 0 where it failed every round
  int roundsRun = 0;           // rounds timed: fewer than asked when stopped
  bool stopped = false;  // `stop` was set (in the last round, too): the rounds run are reported
};
// Before each round's first kernel and before the library the machine idles `settle`: a
// library's worker threads spin for a while after a call (OpenBLAS's pthreads up to about 0.1 s)
// and would otherwise take the cores from the first runs of what is timed next. A `stop` set
// (Ctrl-C) ends the timing after the round in hand; what the rounds run so far gave is reported.
std::optional<SideBySide> timeSideBySide(
    Measurer& measurer, const std::vector<Config>& candidates, int rounds,
    std::chrono::milliseconds settle = std::chrono::milliseconds(300),
    const std::atomic<bool>* stop = nullptr);

}  // namespace opevo
