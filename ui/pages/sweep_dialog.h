#pragma once

#include <QDialog>
#include <memory>
#include <optional>

#include "replay/replay_sweep.h"
#include "ui/jobs/latest_job.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTimer;
class QSpinBox;

namespace opevo::ui {

class HeatMapView;

// The hyper-parameter study of `opevo sweep`, from the Runs page: one algorithm, one or two of its
// settings and the values each takes, raced on the loaded dataset off the GUI thread; the result
// is a heat map of the mean fraction of optimum, saved as SVG (the CLI's file) or PNG.
class SweepDialog : public QDialog {
  Q_OBJECT

 public:
  SweepDialog(std::shared_ptr<const ReplayDataset> dataset, const QString& datasetName,
              QWidget* parent = nullptr);
  ~SweepDialog() override;

  void setAlgorithm(const QString& name);
  // axis 0 or 1; an empty setting turns the second axis off.
  void setAxis(int axis, const QString& setting, const QString& values);
  void setRepeats(int repeats);
  void setTrials(int trials);
  void setShownAt(int trials);
  // Starts the sweep; while one runs, asks it to stop instead (the Run button reads Stop).
  void run();
  bool running() const { return m_job.busy(); }

  HeatMapView* view() const { return m_view; }
  QLabel* message() const { return m_message; }
  // Each returns an empty string on success, else the message (naming the file).
  QString saveSvg(const QString& path) const;
  QString savePng(const QString& path) const;

 signals:
  void sweepFinished();

 private:
  struct Outcome {
    std::optional<ReplaySweep> sweep;
    QString error;
  };
  void fillSettings();
  void suggestValues(int axis);
  std::optional<SweepPlan> plan(QString* error) const;
  void present(Outcome outcome);

  std::shared_ptr<const ReplayDataset> m_dataset;
  QComboBox* m_algorithm;
  QComboBox* m_setting[2];
  QLineEdit* m_values[2];
  QSpinBox* m_repeats;
  QSpinBox* m_trials;
  QSpinBox* m_at;
  QPushButton* m_run;
  QPushButton* m_saveSvg;
  QPushButton* m_savePng;
  QLabel* m_message;
  HeatMapView* m_view;
  QProgressBar* m_progress;
  QTimer* m_poll;  // reads the sweep's progress while it runs
  // Shared with the job, which may outlive the dialog (Qt's pool finishes it at exit).
  std::shared_ptr<SweepControl> m_control;
  LatestJob<Outcome> m_job{LatestJob<Outcome>::Overlap::NewestWaits};
};

}  // namespace opevo::ui
