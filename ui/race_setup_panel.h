#pragma once

#include <QWidget>
#include <optional>

#include "ui/race_types.h"

class QCheckBox;
class QDoubleSpinBox;
class QSettings;
class QSpinBox;

namespace opevo::ui {

class AlgorithmPanel;
class DatasetPicker;

// The form of a race: the dataset to replay, the algorithms and their settings, repeats, seed,
// budget and pace. It turns itself into a RaceSpec, or into the message saying what is missing.
class RaceSetupPanel : public QWidget {
  Q_OBJECT

 public:
  explicit RaceSetupPanel(QWidget* parent = nullptr);

  // The spec for the current inputs; nullopt with *problem set when they cannot race.
  std::optional<RaceSpec> spec(QString* problem) const;

  DatasetPicker* datasetPicker() const { return m_dataset; }
  AlgorithmPanel* algorithmPanel() const { return m_algorithms; }
  void setRepeats(int repeats);
  void setTrials(int trials);  // enables the trial budget
  void setSeconds(std::optional<double> seconds);
  void setTarget(std::optional<double> target);
  void setPaceMs(int ms);
  void setSeed(int seed);

  void saveState(QSettings& settings) const;
  void restoreState(QSettings& settings);

 private:
  DatasetPicker* m_dataset;
  AlgorithmPanel* m_algorithms;
  QSpinBox* m_repeats;
  QSpinBox* m_seed;
  QCheckBox* m_useTrials;
  QSpinBox* m_trials;
  QCheckBox* m_useSeconds;
  QDoubleSpinBox* m_seconds;
  QCheckBox* m_useTarget;
  QDoubleSpinBox* m_target;
  QSpinBox* m_pace;
};

}  // namespace opevo::ui
