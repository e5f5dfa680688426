#pragma once

#include <QWidget>
#include <optional>
#include <vector>

#include "store/records.h"
#include "ui/controller/network_types.h"
#include "ui/jobs/latest_job.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSettings;
class QSpinBox;
class QToolButton;

namespace opevo::ui {

class NetworkRunDeletion;

// The Networks page's form: which network (a preset or a file) with its params, the backend,
// the algorithms and schedulers raced, the budget; Start and Stop; and the stored network runs,
// any of which Show puts on the page and an interrupted one of which Resume continues.
class NetworkSetupPanel : public QWidget {
  Q_OBJECT

 public:
  explicit NetworkSetupPanel(QWidget* parent = nullptr);

  void setStorePath(const QString& path);
  const QString& storePath() const { return m_storePath; }
  // The race the form describes, or nullopt with *error saying what to fix.
  std::optional<NetworkSpec> spec(QString* error) const;
  // The network chosen (a preset name or a path) and its params.
  QString network() const;
  std::optional<net::ParamOverrides> params(QString* error) const;
  // The stored run chosen in the list (nullopt when none).
  std::optional<NetworkRecord> selectedRun() const;
  void setBusy(bool busy);
  // Whether the chosen network could be read: Start waits for one that can.
  void setNetworkValid(bool valid);
  void selectNetwork(const QString& presetOrPath);
  // Shows presetOrPath in the Network box again, without networkChanged, after the file refused
  // could not be read (it leaves the list).
  void showNetwork(const QString& presetOrPath, const QString& refused);
  // Checks these algorithms (and unchecks the others); false when one is unknown.
  bool setAlgorithms(const QStringList& names);
  // "gradient", "round-robin", "topological"; false when one is unknown.
  bool setSchedulers(const QStringList& names);
  void setTrials(int trials);
  // "loop", "joint"; false when one is unknown.
  bool setModes(const QStringList& names);
  bool busyReading() const { return m_runsJob.busy(); }
  // The stored runs as last read (oldest first), each with its status as `opevo net runs` says.
  const std::vector<NetworkRecord>& storedRuns() const { return m_stored; }
  // The form in the settings' [network] group, for the next session: a file that is gone by
  // then is left out, the rest as it was.
  void saveState(QSettings& settings) const;
  void restoreState(QSettings& settings);
  // No wider than the form needs: at 1024x700 every pixel more is taken from the tasks' table.
  QSize sizeHint() const override;

  QComboBox* networkBox() const { return m_network; }
  QPushButton* openButton() const { return m_open; }
  QLineEdit* paramsEdit() const { return m_params; }
  QComboBox* backendBox() const { return m_backend; }
  QListWidget* algorithmList() const { return m_algorithms; }
  QCheckBox* gradientBox() const { return m_gradient; }
  QCheckBox* roundRobinBox() const { return m_roundRobin; }
  QCheckBox* topologicalBox() const { return m_topological; }
  QCheckBox* loopModeBox() const { return m_loopMode; }
  QCheckBox* jointModeBox() const { return m_jointMode; }
  QCheckBox* jointNoPropagationBox() const { return m_jointNoPropagation; }
  QCheckBox* winogradModeBox() const { return m_winogradMode; }
  QCheckBox* matvecBox() const { return m_matvec; }
  QCheckBox* coldWeightsBox() const { return m_coldWeights; }
  QCheckBox* coldActivationsBox() const { return m_coldActivations; }
  QCheckBox* frozenTorchBox() const { return m_frozenTorch; }
  QSpinBox* trialsBox() const { return m_trials; }
  QSpinBox* unitBox() const { return m_unit; }
  QComboBox* runsBox() const { return m_runs; }
  QPushButton* startButton() const { return m_start; }
  QPushButton* stopButton() const { return m_stop; }
  QPushButton* resumeButton() const { return m_resume; }
  QPushButton* showButton() const { return m_show; }
  QPushButton* deleteButton() const { return m_delete; }
  QToolButton* reloadButton() const { return m_reload; }

 public slots:
  // Reads the stored network runs again (after a race ends), then selects the run `select` (a
  // race's, which Resume then continues), or keeps the selection where it is 0.
  void reloadRuns(std::int64_t select = 0);
  void openFile();

 protected:
  // The list is read again each time the page is shown: `opevo net tune` may have finished,
  // started or interrupted runs meanwhile.
  void showEvent(QShowEvent* event) override;

 signals:
  void networkChanged();
  void startRequested();
  void stopRequested();
  void resumeRequested(std::int64_t networkId);
  void showRequested(std::int64_t networkId);
  // Resume found the run changed since the list was read (finished, deleted, or tuned by another
  // program): what it found, the list read again.
  void resumeRefused(const QString& message);
  // The list was read again (the page checks what it says of a stored run against it).
  void runsReloaded();
  // Delete…: a refusal or a deletion, said by the page (the list is read again after one).
  void deletionRefused(const QString& message);
  void networkRunDeleted(const QString& message, std::int64_t networkId);

 private:
  void updateButtons();
  // Resume asked of a run: continued where the list just read still offers it, else said why.
  void resumeIfStillInterrupted();
  // The Network box's entry for a preset or a file, a file's added where it has none.
  int networkIndex(const QString& presetOrPath);

  QString m_storePath;
  QComboBox* m_network;
  QPushButton* m_open;
  QLineEdit* m_params;
  QComboBox* m_backend;
  QListWidget* m_algorithms;
  QCheckBox* m_gradient;
  QCheckBox* m_roundRobin;
  QCheckBox* m_topological;
  QCheckBox* m_loopMode;
  QCheckBox* m_jointMode;
  QCheckBox* m_jointNoPropagation;
  QCheckBox* m_winogradMode;
  QCheckBox* m_matvec;
  QCheckBox* m_coldWeights;
  QCheckBox* m_coldActivations;
  QCheckBox* m_frozenTorch;
  QSpinBox* m_trials;
  QSpinBox* m_unit;
  QSpinBox* m_seed;
  QPushButton* m_start;
  QPushButton* m_stop;
  QComboBox* m_runs;
  QPushButton* m_resume;
  QPushButton* m_show;
  QPushButton* m_delete;
  QToolButton* m_reload;
  NetworkRunDeletion* m_deletion;
  QWidget* m_form;  // the fields that describe a new race, locked while one runs
  std::vector<NetworkRecord> m_stored;
  bool m_readOnly = false;  // the database is read-only to this user: nothing stored changes
  bool m_busy = false;
  bool m_networkValid = true;      // the chosen network read and its tasks found
  std::int64_t m_resumeAsked = 0;  // Resume's run, until the list read for it arrives
  int m_indexJustChosen = -1;      // the Network box's index while its change is being handled
  // The matrix-vector box was clicked: it stays as the user set it, rather than following the
  // backend's default (net::defaultTaskTemplates) when the backend changes.
  bool m_matvecChosen = false;
  // The stored network runs as read, and whether the database was read-only to this user.
  struct StoredRunsJob {
    std::vector<NetworkRecord> runs;
    bool readOnly = false;
  };
  LatestJob<StoredRunsJob> m_runsJob;
};

}  // namespace opevo::ui
