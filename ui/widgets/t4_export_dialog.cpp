#include "ui/widgets/t4_export_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>
#include <map>
#include <vector>

#include "engine/run_status.h"
#include "io/run_import.h"
#include "io/t4_export.h"
#include "store/store.h"
#include "ui/widgets/message_label.h"

namespace opevo::ui {

struct T4ExportDialog::Runs {
  std::vector<RunRecord> runs;  // newest first, as History lists them
  std::map<std::int64_t, RunTally> tallies;
  QString error;
};

struct T4ExportDialog::Written {
  std::int64_t runId = 0;
  QString path;
  std::size_t results = 0;
  QString error;
};

namespace {

// Each listed run's trial count when the list was read, and whether it was running, beside its
// id: a run with no trial has nothing to write (yet, while it runs).
constexpr int kTrialsRole = Qt::UserRole + 1;
constexpr int kRunningRole = Qt::UserRole + 2;

QString runText(const RunRecord& run, std::size_t trials) {
  const std::string status = runStatusText(run, static_cast<long long>(trials));
  const QString head =
      QObject::tr("Run %1: %2, %3, %4")
          .arg(run.id)
          .arg(QString::fromStdString(run.operatorName), QString::fromStdString(measuredBy(run)),
               QString::fromStdString(status));
  // Where the status says it already ("finished, no trial"), "0 trials" after it repeated it.
  if (status != runStatusText(run)) return head;
  const QString count = trials == 1 ? QObject::tr("1 trial") : QObject::tr("%1 trials").arg(trials);
  return QObject::tr("%1, %2").arg(head, count);
}

}  // namespace

T4ExportDialog::T4ExportDialog(const QString& storePath, std::int64_t preselected, QWidget* parent)
    : QDialog(parent),
      m_storePath(storePath),
      m_preselected(preselected),
      m_runs(new QComboBox(this)),
      m_file(new QLineEdit(this)),
      m_exportButton(new QPushButton(tr("&Export"), this)),
      m_error(makeMessageLabel(QStringLiteral("t4ExportError"), MessageKind::Error, this)),
      m_done(makeMessageLabel(QStringLiteral("t4ExportDone"), MessageKind::Note, this)) {
  setObjectName(QStringLiteral("t4ExportDialog"));
  setWindowTitle(tr("Export a run as T4"));
  auto* intro = new QLabel(
      tr("A stored run as T4 results, the autotuning community's exchange format, with what "
         "OpEvo Studio needs to restore it as the run it was (File > Import measured file…, or "
         "<tt>opevo import --restore</tt>). A name ending in .gz is compressed."),
      this);
  intro->setWordWrap(true);
  m_runs->setObjectName(QStringLiteral("t4Run"));
  m_runs->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_runs->setMinimumContentsLength(40);
  m_runs->setEnabled(false);
  m_runs->addItem(tr("Reading the runs…"));
  m_file->setObjectName(QStringLiteral("t4File"));
  auto* browse = new QPushButton(tr("Browse…"), this);
  auto* fileRow = new QHBoxLayout;
  fileRow->addWidget(m_file, 1);
  fileRow->addWidget(browse);
  auto* form = new QFormLayout;
  form->addRow(tr("Run:"), m_runs);
  form->addRow(tr("File:"), fileRow);
  m_exportButton->setObjectName(QStringLiteral("t4ExportButton"));
  m_exportButton->setDefault(true);
  m_exportButton->setEnabled(false);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  buttons->addButton(m_exportButton, QDialogButtonBox::ActionRole);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addLayout(form);
  layout->addWidget(m_error);
  layout->addWidget(m_done);
  layout->addStretch(1);
  layout->addWidget(buttons);
  // Room below the form for a message of two lines, which appears after an export: the wrapped
  // text above it was squeezed to make room instead.
  resize(sizeHint().expandedTo(QSize(560, 0)) + QSize(0, 3 * fontMetrics().lineSpacing()));

  connect(m_runs, &QComboBox::currentIndexChanged, this, &T4ExportDialog::proposeFile);
  connect(m_runs, &QComboBox::currentIndexChanged, this, &T4ExportDialog::sayWhetherExportable);
  connect(m_file, &QLineEdit::textEdited, this, [this] { m_fileChosen = true; });
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the run as T4"),
                                                      m_file->text(), tr("T4 (*.json.gz *.json)"));
    if (path.isEmpty()) return;
    m_file->setText(path);
    m_fileChosen = true;
  });
  connect(m_exportButton, &QPushButton::clicked, this, &T4ExportDialog::exportNow);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  listRuns();
}

T4ExportDialog::~T4ExportDialog() = default;

void T4ExportDialog::listRuns() {
  m_listJob.start(
      [storePath = m_storePath]() -> Runs {
        try {
          const Store store(storePath.toStdString(), Store::Opening::ExistingOnly);
          std::vector<RunRecord> runs = store.runs();
          std::sort(runs.begin(), runs.end(),
                    [](const RunRecord& a, const RunRecord& b) { return a.id > b.id; });
          return {std::move(runs), store.runTallies(), {}};
        } catch (const std::exception& e) {
          return {{}, {}, QString::fromUtf8(e.what())};
        }
      },
      [this](const Runs& list) {
        m_runs->clear();
        for (const RunRecord& run : list.runs) {
          const auto tally = list.tallies.find(run.id);
          const std::size_t trials = tally == list.tallies.end() ? 0 : tally->second.trials;
          m_runs->addItem(runText(run, trials), static_cast<qlonglong>(run.id));
          m_runs->setItemData(m_runs->count() - 1, static_cast<qulonglong>(trials), kTrialsRole);
          m_runs->setItemData(m_runs->count() - 1, run.status == RunStatus::Running, kRunningRole);
        }
        const int chosen = m_runs->findData(static_cast<qlonglong>(m_preselected));
        m_runs->setCurrentIndex(std::max(0, chosen));
        m_runs->setEnabled(m_runs->count() > 0);
        sayWhetherExportable();
        if (!list.error.isEmpty())
          showMessage(m_error, tr("The runs of %1 could not be read: %2")
                                   .arg(QDir::toNativeSeparators(m_storePath), list.error));
        else if (list.runs.empty())
          showMessage(m_error,
                      tr("%1 holds no runs yet.").arg(QDir::toNativeSeparators(m_storePath)));
        proposeFile();
        emit runsListed();
      });
}

std::int64_t T4ExportDialog::chosenRun() const {
  return m_runs->currentData().toLongLong();
}

bool T4ExportDialog::chosenHasTrials() const {
  return m_runs->currentData(kTrialsRole).toULongLong() > 0;
}

void T4ExportDialog::sayWhetherExportable() {
  // Said when the run is chosen (History's run with no trial was offered, and the file refused
  // only once Export was clicked); the list still offers every other run.
  const bool none = chosenRun() != 0 && !chosenHasTrials();
  m_exportButton->setEnabled(chosenRun() != 0 && !none && !m_writeJob.busy());
  // What an earlier export said went with the run it was about.
  showMessage(m_done, QString());
  showMessage(m_error,
              !none ? QString()
              : m_runs->currentData(kRunningRole).toBool()
                  ? tr("Run %1 had no trial yet when the list was read: a T4 file needs at least "
                       "one result. Open this dialog again once it has some.")
                        .arg(chosenRun())
                  : tr("Run %1 has no trial: a T4 file needs at least one result. Choose a run "
                       "with trials.")
                        .arg(chosenRun()));
}

void T4ExportDialog::proposeFile() {
  if (m_fileChosen || chosenRun() == 0) return;
  // The name `opevo export-t4`'s examples use, in the user's documents (else home).
  QString base = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  if (base.isEmpty() || !QDir(base).exists()) base = QDir::homePath();
  m_file->setText(QDir(base).filePath(QStringLiteral("run%1_T4.json.gz").arg(chosenRun())));
}

void T4ExportDialog::exportNow() {
  showMessage(m_done, QString());
  showMessage(m_error, QString());
  const std::int64_t run = chosenRun();
  const QString path = m_file->text().trimmed();
  if (run == 0) return showMessage(m_error, tr("Choose a run to export."));
  if (!chosenHasTrials()) return sayWhetherExportable();
  if (path.isEmpty()) return showMessage(m_error, tr("Name the T4 file to write."));
  m_exportButton->setEnabled(false);
  m_writeJob.start(
      [storePath = m_storePath, run, path]() -> Written {
        try {
          const Store store(storePath.toStdString(), Store::Opening::ExistingOnly);
          return {run, path, exportRunT4(store, run, path.toStdString()), {}};
        } catch (const std::exception& e) {
          return {run, path, 0, QString::fromUtf8(e.what())};
        }
      },
      [this](const Written& w) {
        m_exportButton->setEnabled(chosenRun() != 0 && chosenHasTrials());
        if (!w.error.isEmpty()) {
          // core's reason names the run or the file ("cannot write '/x/run1_T4.json.gz': ...").
          showMessage(m_error, tr("Run %1 was not exported: %2").arg(w.runId).arg(w.error));
          emit failed(m_error->text());
          return;
        }
        showMessage(m_done, tr("Wrote %1 %2 of run %3 to %4.")
                                .arg(w.results)
                                .arg(w.results == 1 ? tr("result") : tr("results"))
                                .arg(w.runId)
                                .arg(QDir::toNativeSeparators(w.path)));
        emit exported(w.runId, w.path, static_cast<qint64>(w.results));
      });
}

QString T4ExportDialog::message() const {
  return m_error->text().isEmpty() ? m_done->text() : m_error->text();
}

}  // namespace opevo::ui
