#pragma once

#include <QObject>
#include <QString>
#include <cstdint>
#include <memory>

#include "ui/jobs/latest_job.h"

class QWidget;

namespace opevo::ui {

// File > Import measured file…: what `opevo import FILE` does, in the window. A measured file (T4
// results, a Kernel Tuner cache) is stored as a finished run of measurements; a T4 file that opevo
// exported itself can instead go back as the tuning run it was (`opevo import --restore`), which
// the user is asked about. The file is read and checked, and the run stored, off the GUI thread
// with core's functions, the CLI's own: a bad file stores nothing and is reported with its name
// and what is wrong with it.
class MeasuredFileImport : public QObject {
  Q_OBJECT

 public:
  enum class StoreAs {
    Ask,           // opevo's own export: ask; any other file: measurements
    Measurements,  // `opevo import FILE`
    Run,           // `opevo import --restore FILE`
  };

  // What the background steps hand back (defined where they are made).
  struct Read;
  struct Stored;

  // dialogParent: where the file dialog, the question and an error's box open.
  MeasuredFileImport(const QString& storePath, QWidget* dialogParent);
  ~MeasuredFileImport() override;

  // Asks for a file, then imports it as importFile(path) does.
  void chooseFile();
  // Reads path and stores it; the outcome arrives as imported() or failed().
  void importFile(const QString& path, StoreAs as = StoreAs::Ask);
  bool busy() const;

 signals:
  // summary: one line for the status bar ("Imported A100_T4.json.gz as run 7: ...").
  void imported(qint64 runId, const QString& summary);
  // message names the file and what is wrong with it; it is also shown in a box.
  void failed(const QString& message);

 private:
  void readDone(const Read& read, StoreAs as);
  void askHowToStore();
  void store(StoreAs as);
  void fail(const QString& message);

  QString m_storePath;
  QWidget* m_dialogParent;
  std::shared_ptr<const Read> m_pending;  // the file read, while the user is asked
  LatestJob<Read> m_read;
  LatestJob<Stored> m_store;
};

}  // namespace opevo::ui
