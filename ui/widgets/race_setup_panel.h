#pragma once

#include <QWidget>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "probe/backend_probe.h"
#include "store/records.h"
#include "ui/controller/race_types.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QSettings;
class QSpinBox;

namespace opevo::ui {

class AlgorithmPanel;
class ClusterRaceOption;
class DatasetPicker;

// The form of a race: what to measure on (a replay of a dataset, or an operator on the CPU, CUDA
// or HIP; here or through a cluster's agents), the algorithms and their settings, repeats, seed,
// budget and pace. It turns itself into a RaceSpec, or into the message saying what is missing.
class RaceSetupPanel : public QWidget {
  Q_OBJECT

 public:
  explicit RaceSetupPanel(QWidget* parent = nullptr);

  // The spec for the current inputs; nullopt with *problem set when they cannot race.
  std::optional<RaceSpec> spec(QString* problem) const;
  // Why the dataset cannot be replayed (still being read, none, or the one chosen last did not
  // load); empty when the loaded one is the one the form names.
  QString datasetProblem() const;

  DatasetPicker* datasetPicker() const { return m_dataset; }
  QComboBox* backendBox() const { return m_backend; }
  QComboBox* operatorBox() const { return m_operator; }
  // Measuring through the cluster connected on the Cluster page instead of on this machine.
  ClusterRaceOption* clusterOption() const { return m_cluster; }
  // "replay", "cpu", "cuda" or "hip".
  QString backend() const;
  // Selects a backend as the user would; false when there is no such entry.
  bool setBackend(const QString& name);
  // What the device probe found; until it answers, device races wait for it.
  void setBackends(const std::vector<BackendInfo>& backends);
  // Adds an operator file (or selects it when listed already) as the operator to measure.
  void addOperatorFile(const QString& path);
  // Selects a preset or a listed file; false when it is not listed.
  bool setOperator(const QString& presetOrPath);
  // "loop" or "joint"; false for another name.
  bool setMode(const QString& mode);
  QComboBox* modeBox() const { return m_mode; }
  AlgorithmPanel* algorithmPanel() const { return m_algorithms; }
  // Both are kept when the backend changes afterwards (a field still at the replay's default is
  // otherwise set to the device's, and back).
  void setRepeats(int repeats);
  void setTrials(int trials);  // enables the trial budget
  void setSeconds(std::optional<double> seconds);
  void setTarget(std::optional<double> target);
  void setPaceMs(int ms);
  void setSeed(int seed);

  // The form as the stored runs a resume continues were raced (History's Resume): what measured
  // them, their operator and mode, algorithms, repeats, seed and budget. The greyed form showed
  // the last race typed while another ran, and Start would then have raced that one.
  void showResumed(const std::vector<RunRecord>& runs);

  void saveState(QSettings& settings) const;

 signals:
  // The device probe has answered (setBackends): device races can start.
  void backendsKnown();

 public:
  void restoreState(QSettings& settings);

 private:
  void showBackend();
  // The target box for what measures (a backend, or a dataset's path) in its unit; a change of
  // source resets it to `value`, unticked.
  void setTargetFor(const std::string& source, const std::string& unit, double value);
  void browseOperator();
  // Why a race cannot run on this device backend; empty when it can.
  QString deviceProblem(const std::string& backend) const;

  QComboBox* m_backend;
  ClusterRaceOption* m_cluster;
  QComboBox* m_operator;
  QComboBox* m_mode;
  QGroupBox* m_datasetBox;
  QGroupBox* m_operatorBox;
  DatasetPicker* m_dataset;
  AlgorithmPanel* m_algorithms;
  QSpinBox* m_repeats;
  QSpinBox* m_seed;
  QComboBox* m_schedule;
  QCheckBox* m_useTrials;
  QSpinBox* m_trials;
  QCheckBox* m_useSeconds;
  QDoubleSpinBox* m_seconds;
  QCheckBox* m_useTarget;
  QDoubleSpinBox* m_target;
  std::string m_targetSource;  // what the target box's value is for
  QSpinBox* m_pace;
  QWidget* m_paceLabel = nullptr;
  std::optional<std::vector<BackendInfo>> m_backends;  // nullopt until probed
  // Repeats and trials per run as a fresh form has them for a replay (which answers at once) and
  // for a device (every trial compiled and timed: 5 x 200 on a CPU is 1000 real measurements).
  // Switching between the two swaps a field still at the other's default; a value typed stays.
  static constexpr int kReplayRepeats = 5, kReplayTrials = 200;
  static constexpr int kDeviceRepeats = 1, kDeviceTrials = 40;
  bool m_replayShown = true;  // what showBackend last laid the form out for
  bool m_keepBudget = false;  // restoring a saved form: its values stand as saved
  // Set through setRepeats/setTrials (opevo-studio's --repeats 5 before --backend cpu): kept.
  bool m_repeatsGiven = false, m_trialsGiven = false;
};

}  // namespace opevo::ui
