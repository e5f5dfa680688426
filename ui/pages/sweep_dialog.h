#pragma once

#include <QDialog>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

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
// settings and the values each takes, raced on the loaded dataset off the GUI thread, repeat by
// repeat; the result is a heat map of the mean fraction of optimum, saved as SVG (the CLI's file)
// or PNG. Nothing typed or computed is lost while the window is open: a refused sweep keeps the
// map shown, and the Runs page keeps the dialog (closed, it is only hidden).
class SweepDialog : public QDialog {
  Q_OBJECT

 public:
  SweepDialog(std::shared_ptr<const ReplayDataset> dataset, const QString& datasetName,
              QWidget* parent = nullptr);
  ~SweepDialog() override;

  // Another dataset loaded on the Runs page: the next sweep runs on it. The fields stay, and so
  // does the map shown, which then says which dataset it is of.
  void setDataset(std::shared_ptr<const ReplayDataset> dataset, const QString& datasetName);
  // The Runs form's settings of an algorithm that differ from its defaults: fixed in every cell of
  // a sweep of it (the swept ones excepted) and named in the map's title, as the CLI's
  // --set name=value is. Read when the algorithm changes and when a sweep starts.
  using FixedSettings =
      std::function<std::map<std::string, std::string>(const std::string& algorithm)>;
  void setFixedSettings(FixedSettings fixed);
  // The Runs form changed: shows its settings again.
  void refreshFixed();

  void setAlgorithm(const QString& name);
  // axis 0 or 1; an empty setting turns the second axis off.
  void setAxis(int axis, const QString& setting, const QString& values);
  void setRepeats(int repeats);
  void setTrials(int trials);
  void setShownAt(int trials);
  void setSeed(int seed);
  // Starts the sweep; while one runs, asks it to stop instead (the Run button reads Stop).
  void run();
  bool running() const { return m_job.busy(); }

  HeatMapView* view() const { return m_view; }
  QLabel* message() const { return m_message; }
  // What the map shown covers when it is not what the fields ask (stopped early, a small space, a
  // trial past the last sweep's, another dataset's); hidden when none.
  QLabel* note() const { return m_note; }
  QLabel* fixedLabel() const { return m_fixedLabel; }
  // Each returns an empty string on success, else the message (naming the file).
  QString saveSvg(const QString& path) const;
  QString savePng(const QString& path) const;

 signals:
  void sweepFinished();

 private:
  // The last sweep that gave a map: enough to draw it again at another trial.
  struct Shown {
    SweepPlan plan;
    SweepTrials trials;
    SweepFacts facts;
    QString dataset;
  };
  struct Outcome {
    std::optional<Shown> shown;
    QString error;
  };
  // What the job and the progress bar share: the running repeat's engine and which repeat it is.
  struct Progress {
    SweepControl control;
    std::atomic<int> repeat{0};
  };
  void fillSettings();
  void suggestValues(int axis);
  std::map<std::string, std::string> fixedSettings() const;
  std::optional<SweepPlan> plan(QString* error) const;
  void present(Outcome outcome);
  // The map of the last sweep at the trial the field names, with what it covers.
  void redraw();

  std::shared_ptr<const ReplayDataset> m_dataset;
  QString m_datasetName;
  FixedSettings m_fixed;
  QComboBox* m_algorithm;
  QLabel* m_fixedLabel;
  QComboBox* m_setting[2];
  QLineEdit* m_values[2];
  QSpinBox* m_repeats;
  QSpinBox* m_trials;
  QSpinBox* m_at;
  QSpinBox* m_seed;
  QPushButton* m_run;
  QPushButton* m_saveSvg;
  QPushButton* m_savePng;
  QLabel* m_message;
  QLabel* m_note;
  HeatMapView* m_view;
  QProgressBar* m_progress;
  QTimer* m_poll;  // reads the sweep's progress while it runs
  std::optional<Shown> m_shown;
  int m_repeatsPlanned = 0;  // of the sweep running
  // Shared with the job, which may outlive the dialog (Qt's pool finishes it at exit).
  std::shared_ptr<Progress> m_control;
  LatestJob<Outcome> m_job{LatestJob<Outcome>::Overlap::NewestWaits};
};

}  // namespace opevo::ui
