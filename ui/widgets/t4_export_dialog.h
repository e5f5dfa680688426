#pragma once

#include <QDialog>
#include <cstdint>

#include "ui/jobs/latest_job.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace opevo::ui {

// File > Export run as T4…: a stored run written as a T4 results file, as `opevo export-t4 RUN
// --out FILE` does (gzip-compressed when FILE ends in .gz), which `opevo import --restore` and
// File > Import measured file… read back as the run it was. The runs are listed, and the file
// written, off the GUI thread.
class T4ExportDialog : public QDialog {
  Q_OBJECT

 public:
  // What the background steps hand back (defined where they are made).
  struct Runs;
  struct Written;

  // preselected: the run chosen first (History's selection); 0 for the newest.
  T4ExportDialog(const QString& storePath, std::int64_t preselected, QWidget* parent = nullptr);
  ~T4ExportDialog() override;

  QComboBox* runBox() const { return m_runs; }
  QLineEdit* fileEdit() const { return m_file; }
  QPushButton* exportButton() const { return m_exportButton; }
  // The run chosen; 0 while the list is read or when the store has none.
  std::int64_t chosenRun() const;
  // Whether the chosen run has a trial to write: Export is off, and the dialog says why, when not.
  bool chosenHasTrials() const;
  // Writes the chosen run to the file named; the outcome arrives as exported() or in the
  // dialog's error line.
  void exportNow();
  bool busy() const { return m_listJob.busy() || m_writeJob.busy(); }
  // What the dialog says after an export or a failure.
  QString message() const;

 signals:
  void runsListed();
  void exported(qint64 runId, const QString& path, qint64 results);
  void failed(const QString& message);

 private:
  void listRuns();
  // The file proposed for the chosen run, unless the user has typed or browsed one.
  void proposeFile();
  // Export on or off for the chosen run, and why off.
  void sayWhetherExportable();

  QString m_storePath;
  std::int64_t m_preselected;
  QComboBox* m_runs;
  QLineEdit* m_file;
  QPushButton* m_exportButton;
  QLabel* m_error;
  QLabel* m_done;
  bool m_fileChosen = false;
  LatestJob<Runs> m_listJob;
  LatestJob<Written> m_writeJob;
};

}  // namespace opevo::ui
