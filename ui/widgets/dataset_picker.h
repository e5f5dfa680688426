#pragma once

#include <QString>
#include <QWidget>
#include <memory>

#include "io/replay_dataset.h"
#include "ui/jobs/latest_job.h"

class QLabel;
class QLineEdit;
class QPushButton;

namespace opevo::ui {

// Chooses the measured dataset a race replays: a file dialog, a typed path, or one of the bundled
// datasets. Files are read off the GUI thread (a large cache takes a moment); a file that is not
// a dataset leaves the one already loaded in place and says why.
class DatasetPicker : public QWidget {
  Q_OBJECT

 public:
  // Room each side of a bundled dataset's name on its button, in average character widths.
  static constexpr int kShortcutPadding = 1;

  explicit DatasetPicker(QWidget* parent = nullptr);
  ~DatasetPicker() override;

  // Starts loading; the answer comes as loaded() or failed().
  void load(const QString& path);
  std::shared_ptr<const ReplayDataset> dataset() const { return m_dataset; }
  bool loading() const { return m_load.busy(); }
  QString error() const { return m_error; }
  // The folder the shortcuts point into; empty when none was found.
  static QString datasetsDir();

 signals:
  void loaded(std::shared_ptr<const opevo::ReplayDataset> dataset);
  void failed(const QString& message);

 public slots:
  void browse();

 private:
  // What a load job hands back: the dataset, or why there is none.
  struct LoadResult {
    std::shared_ptr<const ReplayDataset> dataset;
    QString error;
  };

  QPushButton* shortcut(const QString& title, const QString& relativePath);
  void showInfo();

  QLineEdit* m_pathEdit;
  QLabel* m_infoLabel;
  QLabel* m_errorLabel;
  std::shared_ptr<const ReplayDataset> m_dataset;
  QString m_error;
  LatestJob<LoadResult> m_load;  // a newer choice replaces the file being read
};

}  // namespace opevo::ui
