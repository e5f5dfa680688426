#pragma once

// ALT's two-stage tuning of a joint layout space (seed 003, sec. 5.2) driven by any of our
// algorithms. Joint stage: an instance of the algorithm over the layout parameters proposes a
// layout; a fresh instance over the loop parameters, rebuilt for that layout (the space's
// constraints evaluated with the layout fixed), spends a few trials on it; the layout is scored
// by the best of them. Loop-only stage: the best layout found is fixed and one instance tunes
// its loops with the rest of the budget, knowing what the joint stage measured there.
//
// Resuming: trials restored through observe() count toward the stages; the joint stage goes on
// with new layouts and the loop-only stage starts from everything measured, so nothing is
// proposed twice (the exact proposals of an uninterrupted run are not replayed).

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "tuners/settings.h"
#include "tuners/tuner.h"

namespace opevo {

// The settings of the joint mode, beside the algorithm's own: "joint.share" (of the trial budget
// and of the time budget, default 0.3), "joint.layout_trials" (default 2), "joint.cross" (default
// 1). Declared here so that the CLI and the window list and check them like any algorithm setting.
TunerSettings jointSettings();
// The name under which the joint mode's settings are checked and listed ("joint layout tuning").
inline constexpr const char* kJointSettingsOwner = "joint layout tuning";

// Members added at the end: plans are written as {jointTrials, trialsPerLayout, cross}.
struct JointStagePlan {
  // Trials of the joint stage (ALT: a share of the budget); the rest is loop-only.
  int jointTrials = 64;
  // Trials of loop tuning each layout gets in the joint stage.
  int trialsPerLayout = 2;
  // true: ALT's cross exploration (a layout search, loops tuned per layout); false: the joint
  // stage is one search over layouts and loops together.
  bool crossExploration = true;
  // Tuning time of the joint stage (a share of a time budget), or none; with both, the joint stage
  // ends at whichever is reached first. The engine tells the tuner its tuning time
  // (JointLayoutTuner::setTuningSeconds).
  std::optional<double> jointSeconds;
  // The joint settings the plan was made from: the run stores them beside the algorithm's, and a
  // resume makes the same plan from them.
  TunerSettings settings = jointSettings();
};

// Splits settings into the joint mode's ("joint.*") and the algorithm's.
std::map<std::string, std::string> jointPart(const std::map<std::string, std::string>& settings);
std::map<std::string, std::string> algorithmPart(
    const std::map<std::string, std::string>& settings);
// The stage plan for a budget: the joint stage gets the share of the trials, of the tuning time,
// or of both (it ends at the first reached). Neither (a target speed alone): the joint stage gets
// what share * 200 trials would give it.
JointStagePlan jointStagePlan(const TunerSettings& joint, std::optional<int> budgetTrials,
                              std::optional<double> budgetSeconds = std::nullopt);

class JointLayoutTuner final : public Tuner {
 public:
  // space: a joint space (layout parameters named "layout.*", see layout/operand_layouts.h).
  // algorithm + settings: what drives both stages. Throws InputError as makeTuner does.
  JointLayoutTuner(const SearchSpace& space, const std::string& algorithm,
                   std::map<std::string, std::string> settings, std::uint64_t seed,
                   JointStagePlan plan);
  ~JointLayoutTuner() override;

  std::string name() const override;
  std::size_t preferredBatch() const override;
  // settings(): the algorithm's, then the joint mode's ("joint.*"), with their values: what a run
  // stores, and what gives the same tuner back on resume.

  // The run's tuning time so far, before each propose: a share of a time budget ends the joint
  // stage (JointStagePlan::jointSeconds).
  void setTuningSeconds(double seconds) { m_seconds = seconds; }

  enum class Stage { Joint, LoopOnly };
  Stage stage() const { return m_stage; }
  // Trials proposed when the loop-only stage began (nullopt while in the joint stage).
  std::optional<int> stageBoundary() const { return m_boundary; }
  const JointStagePlan& plan() const { return m_plan; }
  // Layouts the joint stage has tried.
  std::size_t layoutsTried() const { return m_layouts.size(); }
  // The layout parameters of a configuration of the joint space, in the space's order.
  Config layoutOf(const Config& full) const;

 protected:
  std::vector<Config> doPropose(std::size_t n) override;
  void doObserve(const std::vector<Observation>& results) override;

 private:
  struct LayoutTrial;
  LayoutTrial& startLayout(const Config& layout);
  LayoutTrial* findLayout(const Config& layout);
  // trials: proposed so far, those of the batch being built included.
  void beginLoopOnly(int trials);
  std::vector<Config> proposeFrom(LayoutTrial& t, std::size_t n);
  void reportDone();

  std::string m_algorithm;
  std::map<std::string, std::string> m_algorithmSettings;
  JointStagePlan m_plan;
  std::vector<std::size_t> m_layoutParams, m_loopParams;
  std::unique_ptr<SearchSpace> m_layoutSpace;
  std::unique_ptr<Tuner> m_layoutTuner;
  std::unique_ptr<Tuner> m_jointTuner;  // the whole space, without cross exploration
  std::vector<std::unique_ptr<LayoutTrial>> m_layouts;
  std::deque<Config> m_layoutQueue;  // proposed by the layout tuner, not tried yet
  LayoutTrial* m_current = nullptr;
  Stage m_stage = Stage::Joint;
  std::optional<int> m_boundary;
  int m_proposedTrials = 0;
  double m_seconds = 0;
  std::uint64_t m_seed;
};

}  // namespace opevo
