#include "ui/widgets/measured_file_import.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QWidget>
#include <exception>
#include <string>

#include "engine/run_status.h"
#include "io/run_import.h"
#include "io/run_restore.h"
#include "store/store.h"

namespace opevo::ui {

// The file read both ways: as measurements, and as the run opevo exported it from (only our own
// exports read so). What could not be read carries core's reason, which names the file.
struct MeasuredFileImport::Read {
  QString path;
  std::shared_ptr<ImportFile> measured;
  std::string measuredError;
  std::shared_ptr<RunWithTrials> run;
  std::string runError;
};

struct MeasuredFileImport::Stored {
  std::int64_t runId = 0;
  QString summary;
  QString error;
};

namespace {

QString fileName(const QString& path) {
  return QFileInfo(path).fileName();
}

MeasuredFileImport::Stored storeMeasurements(const QString& storePath, const QString& path,
                                             const ImportFile& file) {
  Store store(storePath.toStdString());
  const ImportedRun r = storeImport(store, file);
  QString summary = QObject::tr("Imported %1 as run %2: %3 trials (%4, %5, %6)")
                        .arg(fileName(path))
                        .arg(r.runId)
                        .arg(r.trials)
                        .arg(QString::fromStdString(r.format),
                             r.device.empty() ? QObject::tr("device not named in the file")
                                              : QString::fromStdString(r.device),
                             QString::fromStdString(speedText(r)));
  for (const std::string& note : r.notes)
    summary += QStringLiteral("; ") + QString::fromStdString(note);
  return {r.runId, summary, {}};
}

MeasuredFileImport::Stored storeRun(const QString& storePath, const QString& path,
                                    RunWithTrials run) {
  Store store(storePath.toStdString());
  const RestoredRun r = storeRestoredRun(store, std::move(run));
  return {
      r.runId,
      QObject::tr("Restored %1 as run %2: %3, %4, seed %5, %6 trials, %7")
          .arg(fileName(path))
          .arg(r.runId)
          .arg(QString::fromStdString(r.run.operatorName), QString::fromStdString(r.run.algorithm))
          .arg(r.run.seed)
          .arg(r.trials)
          .arg(QString::fromStdString(runStatusText(r.run))),
      {}};
}

}  // namespace

MeasuredFileImport::MeasuredFileImport(const QString& storePath, QWidget* dialogParent)
    : QObject(dialogParent), m_storePath(storePath), m_dialogParent(dialogParent) {}

MeasuredFileImport::~MeasuredFileImport() = default;

bool MeasuredFileImport::busy() const {
  return m_read.busy() || m_store.busy() || m_pending != nullptr;
}

void MeasuredFileImport::chooseFile() {
  const QString path = QFileDialog::getOpenFileName(
      m_dialogParent, tr("Import a measured file"), QString(),
      tr("Measured files: T4 results, Kernel Tuner caches (*.json *.json.gz *.gz);;All files (*)"));
  if (!path.isEmpty()) importFile(path);
}

void MeasuredFileImport::importFile(const QString& path, StoreAs as) {
  // A newer file replaces one still being read or asked about, which stores nothing; one being
  // stored is committed whatever comes next, and its run must still reach History.
  if (m_store.busy()) {
    fail(tr("%1 was not imported: the file before it is still being stored. Import it again once "
            "that run shows on History.")
             .arg(QDir::toNativeSeparators(path)));
    return;
  }
  m_pending.reset();
  m_read.start(
      [path]() -> Read {
        Read read{path, nullptr, {}, nullptr, {}};
        const std::string file = path.toStdString();
        try {
          read.measured = std::make_shared<ImportFile>(readImportFile(file));
        } catch (const std::exception& e) {
          read.measuredError = e.what();
        }
        try {
          read.run = std::make_shared<RunWithTrials>(readRestoreFile(file));
        } catch (const std::exception& e) {
          read.runError = e.what();  // not one of ours, or one without its operator or seed
        }
        return read;
      },
      [this, as](const Read& read) { readDone(read, as); });
}

void MeasuredFileImport::readDone(const Read& read, StoreAs as) {
  m_pending = std::make_shared<const Read>(read);
  if (as == StoreAs::Ask) {
    if (read.run && read.measured) return askHowToStore();
    as = read.run ? StoreAs::Run : StoreAs::Measurements;
  }
  store(as);
}

void MeasuredFileImport::askHowToStore() {
  const RunRecord& run = m_pending->run->run;
  auto* box = new QMessageBox(
      QMessageBox::Question, tr("Import %1").arg(fileName(m_pending->path)),
      tr("%1 is OpEvo Studio's own export of a run of %2 (%3, seed %4).\n\nRestore it as that "
         "run, with its operator, settings and times (its best kernel can then be exported), or "
         "import its measurements as a replay, as any measured file is?")
          .arg(QDir::toNativeSeparators(m_pending->path), QString::fromStdString(run.operatorName),
               QString::fromStdString(run.algorithm))
          .arg(run.seed),
      QMessageBox::Cancel, m_dialogParent);
  box->setObjectName(QStringLiteral("importQuestion"));
  QPushButton* restore = box->addButton(tr("Restore the run"), QMessageBox::AcceptRole);
  restore->setObjectName(QStringLiteral("restoreRun"));
  QPushButton* measurements = box->addButton(tr("Import measurements"), QMessageBox::AcceptRole);
  measurements->setObjectName(QStringLiteral("importMeasurements"));
  box->setDefaultButton(restore);
  box->setAttribute(Qt::WA_DeleteOnClose);
  connect(box, &QMessageBox::buttonClicked, this, [this, restore, measurements](auto* button) {
    if (button == restore)
      store(StoreAs::Run);
    else if (button == measurements)
      store(StoreAs::Measurements);
    else
      m_pending.reset();
  });
  box->open();  // not exec(): a race's signals keep flowing while the question is up
}

void MeasuredFileImport::store(StoreAs as) {
  const std::shared_ptr<const Read> read = std::move(m_pending);
  m_pending.reset();
  if (!read) return;
  const bool asRun = as == StoreAs::Run;
  if (asRun ? !read->run : !read->measured) {
    fail(QString::fromStdString(asRun ? read->runError : read->measuredError));
    return;
  }
  m_store.start(
      [storePath = m_storePath, read, asRun]() -> Stored {
        try {
          return asRun ? storeRun(storePath, read->path, *read->run)
                       : storeMeasurements(storePath, read->path, *read->measured);
        } catch (const std::exception& e) {
          return {0,
                  {},
                  QObject::tr("%1 could not be stored in %2: %3")
                      .arg(QDir::toNativeSeparators(read->path),
                           QDir::toNativeSeparators(storePath), QString::fromUtf8(e.what()))};
        }
      },
      [this](const Stored& stored) {
        if (!stored.error.isEmpty()) return fail(stored.error);
        emit imported(stored.runId, stored.summary);
      });
}

void MeasuredFileImport::fail(const QString& message) {
  // core's reason names the file ("A100.json: T4 result 0 lacks the required field ...").
  auto* box = new QMessageBox(QMessageBox::Warning, tr("Import failed"),
                              tr("Nothing was imported.\n\n%1").arg(message), QMessageBox::Close,
                              m_dialogParent);
  box->setObjectName(QStringLiteral("importError"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
  emit failed(message);
}

}  // namespace opevo::ui
