#pragma once

#include <QDialog>
#include <QStringList>
#include <vector>

#include "store/records.h"
#include "ui/jobs/latest_job.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;

namespace opevo::ui {

class LayoutView;

// The best kernel of a stored run: its source as it will be written, for the run's backend or
// another one, and an export into a folder (kernel, config.h, record.json, a self-checking host
// program, build.sh, trials.csv), as `opevo export` does. The folder last typed, browsed to or
// exported into is proposed again, in this session and the next. A folder that holds an earlier
// export is not overwritten unasked: the dialog says which files are there and offers Replace.
class KernelExportDialog : public QDialog {
  Q_OBJECT

 public:
  KernelExportDialog(const QString& storePath, const RunRecord& run, QWidget* parent = nullptr);

  QPlainTextEdit* sourceView() const { return m_source; }
  // Kernel source and, for a run that tuned layouts (ALT's joint mode), its best layouts.
  QTabWidget* tabs() const { return m_tabs; }
  // The input, weight and output layouts of the best configuration (empty for other runs).
  const std::vector<LayoutView*>& layoutViews() const { return m_layoutViews; }
  QComboBox* backendBox() const { return m_backend; }
  // Export, or Replace after an export refused for a folder holding an earlier export's files.
  QPushButton* exportButton() const { return m_exportButton; }
  QLineEdit* folderEdit() const { return m_folder; }
  // Shows the tab named "source" or "layouts" (when the run has one); false otherwise.
  bool showTab(const QString& name);
  // Writes the files off the GUI thread (a slow or full disk does not freeze the window), all or
  // none; the outcome arrives as exported() or failed() and is shown in the dialog.
  void exportNow();
  // True while an export is being written.
  bool busy() const { return m_exportJob.busy(); }
  // What the dialog says after an export or a failure.
  QString message() const;
  // Close and Esc while an export is being written close the dialog once it is written, or keep
  // it open on a failure: closed at once, the dialog's job would drop the outcome unseen.
  void reject() override;

 signals:
  void exported(const QString& folder);
  void failed(const QString& message);

 private:
  // What an export on the pool hands back to the GUI thread.
  struct Outcome {
    QString folder;
    QStringList files;  // names within the folder; empty when it failed
    QString buildCommand;
    QString note;
    QString error;
    bool earlierExport = false;  // refused: the folder holds an earlier export's files
  };

  void showPreview();
  void showLayouts(const std::string& configuration);
  // Keeps the folder the user typed, browsed to or exported into for the next export
  // (ui/widgets/session_memory.h).
  void rememberFolder();
  // After an export refused for a folder holding an earlier one, the button replaces it;
  // another folder or backend asks again.
  void offerReplace(bool replace);

  QString m_storePath;
  RunRecord m_run;
  QLabel* m_heading;
  QComboBox* m_backend;
  QPlainTextEdit* m_source;
  QTabWidget* m_tabs;
  QWidget* m_layoutsPage;
  std::vector<LayoutView*> m_layoutViews;
  QLabel* m_summary;
  QLineEdit* m_folder;
  QPushButton* m_exportButton;
  QLabel* m_error;
  QLabel* m_done;
  bool m_folderChosen = false;      // typed or browsed to, rather than proposed
  bool m_closeWhenWritten = false;  // closed while an export was being written
  bool m_replace = false;           // the next export replaces the folder's earlier one
  LatestJob<Outcome> m_exportJob;
};

}  // namespace opevo::ui
