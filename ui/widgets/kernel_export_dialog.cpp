#include "ui/widgets/kernel_export_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QVBoxLayout>
#include <exception>
#include <utility>

#include "export/kernel_export.h"
#include "io/run_import.h"
#include "layout/operand_layouts.h"
#include "ops/operator_json.h"
#include "store/store.h"
#include "ui/widgets/layout_view.h"
#include "ui/widgets/message_label.h"
#include "ui/widgets/screen_fit.h"
#include "ui/widgets/session_memory.h"

namespace opevo::ui {
namespace {

const QString kFolderKey = QStringLiteral("kernelExport/folder");
const QString kFolderRunKey = QStringLiteral("kernelExport/folderRun");

QString runFolderName(std::int64_t runId) {
  return QStringLiteral("run-%1").arg(runId);
}

// The folder last typed or browsed to, for its run. For another run never the same folder (an
// export's files have fixed names: run 7's would overwrite run 3's): its sibling when it was named
// after its run as the default is ("run-3" -> "run-7"), else a run folder inside it
// ("kernels/mm1" -> "kernels/mm1/run-7"). Without one: Documents/opevo-exports/run-N.
QString proposedFolder(std::int64_t runId) {
  const QString last = recall(kFolderKey).toString();
  if (last.isEmpty()) {
    QString base = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (base.isEmpty()) base = QDir::homePath();
    return QDir(base).filePath(QStringLiteral("opevo-exports/") + runFolderName(runId));
  }
  const std::int64_t lastRun = recall(kFolderRunKey).toLongLong();
  const QFileInfo folder(last);
  if (lastRun == runId) return last;
  if (folder.fileName() == runFolderName(lastRun))
    return QDir(folder.path()).filePath(runFolderName(runId));
  return QDir(last).filePath(runFolderName(runId));
}

}  // namespace

KernelExportDialog::KernelExportDialog(const QString& storePath, const RunRecord& run,
                                       QWidget* parent)
    : QDialog(parent),
      m_storePath(storePath),
      m_run(run),
      m_heading(new QLabel(this)),
      m_backend(new QComboBox(this)),
      m_source(new QPlainTextEdit(this)),
      m_tabs(new QTabWidget(this)),
      m_layoutsPage(new QWidget(this)),
      m_summary(new QLabel(this)),
      m_folder(new QLineEdit(this)),
      m_exportButton(new QPushButton(tr("&Export"), this)),
      m_error(makeMessageLabel(QStringLiteral("exportError"), MessageKind::Error, this)),
      m_done(makeMessageLabel(QStringLiteral("exportDone"), MessageKind::Note, this)) {
  setObjectName(QStringLiteral("kernelExportDialog"));
  setWindowTitle(tr("Export the best kernel of run %1").arg(run.id));
  // Never wider or taller than the window it opens over: at 1024x700 a 1040 px dialog hid the
  // window entirely and reached past it.
  QSize wanted(1040, 700);
  if (parent) wanted = wanted.boundedTo(parent->window()->size() * 0.92);
  resizeToFit(this, wanted.expandedTo(QSize(480, 360)));
  m_heading->setObjectName(QStringLiteral("exportHeading"));
  m_heading->setWordWrap(true);
  m_heading->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summary->setObjectName(QStringLiteral("kernelSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_source->setObjectName(QStringLiteral("kernelSource"));
  m_source->setReadOnly(true);
  m_source->setLineWrapMode(QPlainTextEdit::NoWrap);
  m_source->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_backend->setObjectName(QStringLiteral("exportBackend"));
  // One template serves all three: a configuration tuned on one backend can be written for
  // another (the header says it was not measured there).
  for (const char* b : {"cpu", "cuda", "hip"})
    m_backend->addItem(QString::fromLatin1(b), QString::fromLatin1(b));
  m_backend->setCurrentIndex(std::max(0, m_backend->findData(QString::fromStdString(run.backend))));
  // A replay (of a dataset, or an imported file) has no kernel of ours to write for any
  // backend: a greyed "cpu" looked like a choice withheld. The row is hidden, and the source
  // pane says what is written instead.
  const bool replay = measuredElsewhere(run);
  m_folder->setObjectName(QStringLiteral("exportFolder"));
  m_folder->setText(QDir::toNativeSeparators(proposedFolder(run.id)));
  auto* browse = new QPushButton(tr("Browse…"), this);
  auto* folderRow = new QHBoxLayout;
  folderRow->addWidget(m_folder, 1);
  folderRow->addWidget(browse);
  auto* form = new QFormLayout;
  form->addRow(tr("Backend:"), m_backend);
  form->setRowVisible(m_backend, !replay);
  form->addRow(tr("Folder:"), folderRow);
  m_exportButton->setObjectName(QStringLiteral("exportButton"));
  m_exportButton->setDefault(true);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  buttons->addButton(m_exportButton, QDialogButtonBox::ActionRole);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_heading);
  layout->addLayout(form);
  layout->addWidget(m_summary);
  m_tabs->setObjectName(QStringLiteral("exportTabs"));
  m_tabs->addTab(m_source, tr("Kernel source"));
  auto* views = new QHBoxLayout(m_layoutsPage);
  for (int i = 0; i < 3; ++i) {
    m_layoutViews.push_back(new LayoutView(m_layoutsPage));
    views->addWidget(m_layoutViews.back(), 1);
  }
  m_tabs->addTab(m_layoutsPage, tr("Layouts"));
  m_tabs->setTabVisible(1, false);
  layout->addWidget(m_tabs, 1);
  layout->addWidget(m_error);
  layout->addWidget(m_done);
  layout->addWidget(buttons);

  connect(m_backend, &QComboBox::currentIndexChanged, this, &KernelExportDialog::showPreview);
  connect(m_backend, &QComboBox::currentIndexChanged, this, [this] { offerReplace(false); });
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString dir =
        QFileDialog::getExistingDirectory(this, tr("Export into"), m_folder->text());
    if (dir.isEmpty()) return;
    m_folder->setText(dir);
    m_folderChosen = true;
    offerReplace(false);
  });
  // A folder typed, not only browsed to, is the one proposed next time (it was forgotten).
  connect(m_folder, &QLineEdit::textEdited, this, [this] {
    m_folderChosen = true;
    offerReplace(false);
  });
  connect(this, &QDialog::finished, this, &KernelExportDialog::rememberFolder);
  connect(m_exportButton, &QPushButton::clicked, this, &KernelExportDialog::exportNow);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  showPreview();
}

void KernelExportDialog::showPreview() {
  showMessage(m_error, QString());
  try {
    const Store store(m_storePath.toStdString(), Store::Opening::ExistingOnly);
    const KernelPreview p = previewBestKernel(
        store, m_run.id,
        measuredElsewhere(m_run) ? std::string()
                                 : m_backend->currentData().toString().toStdString());
    // Which trial, in core's words as `opevo export` prints them: where the side-by-side timing
    // chose another than the fastest trial, "Best" named a figure History did not list.
    m_heading->setText(tr("<b>Run %1</b>: %2 on %3 (%4). Exports: <b>%5</b>, configuration "
                          "<tt>%6</tt>")
                           .arg(m_run.id)
                           .arg(QString::fromStdString(m_run.algorithm),
                                QString::fromStdString(m_run.operatorName),
                                QString::fromStdString(m_run.device).toHtmlEscaped(),
                                QString::fromStdString(p.exported).toHtmlEscaped(),
                                QString::fromStdString(p.configuration).toHtmlEscaped()));
    QString summary = p.fileName.empty()
                          ? QString()
                          : QStringLiteral("%1: %2").arg(QString::fromStdString(p.fileName),
                                                         QString::fromStdString(p.summary));
    // Without source the note takes the source's place, said once and wrapped to be read.
    if (!p.note.empty() && !p.source.empty())
      summary +=
          (summary.isEmpty() ? QString() : QStringLiteral("\n")) + QString::fromStdString(p.note);
    m_summary->setText(summary);
    m_source->setLineWrapMode(p.source.empty() ? QPlainTextEdit::WidgetWidth
                                               : QPlainTextEdit::NoWrap);
    m_source->setPlainText(p.source.empty()
                               ? tr("(no kernel source: %1)").arg(QString::fromStdString(p.note))
                               : QString::fromStdString(p.source));
    showLayouts(p.configuration);
    m_exportButton->setEnabled(!busy());
  } catch (const std::exception& e) {
    m_heading->setText(tr("<b>Run %1</b>").arg(m_run.id));
    m_source->clear();
    m_summary->clear();
    showMessage(m_error, tr("No kernel to export: %1").arg(QString::fromUtf8(e.what())));
    m_exportButton->setEnabled(false);
  }
}

// A run that tuned layouts stores them in its configuration: the best one's input, weight and
// output layouts are drawn on their own tab (spatial tiles and windows of the activations, channel
// blocks of the weights).
void KernelExportDialog::showLayouts(const std::string& configuration) {
  const int index = m_tabs->indexOf(m_layoutsPage);
  m_tabs->setTabVisible(index, false);
  if (measuredElsewhere(m_run)) return;
  const OperatorDefinition def =
      operatorDefinitionFromJson(nlohmann::json::parse(m_run.operatorJson), "stored run");
  if (!layout::isLayoutSpace(def.space)) return;
  const layout::OperandLayouts l =
      layout::operandLayouts(def.op, def.space, def.space.parse(configuration));
  if (def.op.kind == OpKind::Conv2D) {
    m_layoutViews[0]->showLayout(tr("Input"), l.a, "h", "w");
    m_layoutViews[1]->showLayout(tr("Weights"), l.b, "f", "c");
    m_layoutViews[2]->showLayout(tr("Output"), l.c, "h", "w");
  } else {
    // Rows and columns of each matrix as the product uses them (n x k, k x m, n x m).
    m_layoutViews[0]->showLayout(tr("A"), l.a, "n", "k");
    m_layoutViews[1]->showLayout(tr("B"), l.b, "k", "m");
    m_layoutViews[2]->showLayout(tr("C"), l.c, "n", "m");
  }
  m_tabs->setTabVisible(index, true);
}

bool KernelExportDialog::showTab(const QString& name) {
  const int index = name.compare(QStringLiteral("layouts"), Qt::CaseInsensitive) == 0  ? 1
                    : name.compare(QStringLiteral("source"), Qt::CaseInsensitive) == 0 ? 0
                                                                                       : -1;
  if (index < 0 || !m_tabs->isTabVisible(index)) return false;
  m_tabs->setCurrentIndex(index);
  return true;
}

void KernelExportDialog::reject() {
  if (!busy()) {
    QDialog::reject();
    return;
  }
  m_closeWhenWritten = true;
  showMessage(m_done, tr("Closing once the export is written…"));
}

void KernelExportDialog::exportNow() {
  if (busy()) return;  // one export at a time: two into one folder would overwrite each other
  showMessage(m_done, QString());
  const QString folder = m_folder->text().trimmed();
  if (folder.isEmpty()) {
    showMessage(m_error, tr("Choose a folder to export into."));
    emit failed(m_error->text());
    return;
  }
  ExportOptions options;
  options.outDir = QFile::encodeName(folder).toStdString();
  if (!measuredElsewhere(m_run))
    options.backend = m_backend->currentData().toString().toStdString();
  // Replaces an earlier export only once the user was told of it and clicked Replace.
  options.overwrite = m_replace;
  m_exportButton->setEnabled(false);
  showMessage(m_error, QString());
  showMessage(m_done, tr("Exporting into %1…").arg(QDir::toNativeSeparators(folder)));
  // The job owns copies of what it reads: it may finish after the dialog is gone.
  m_exportJob.start(
      [storePath = m_storePath, runId = m_run.id, options, folder]() -> Outcome {
        Outcome o;
        o.folder = folder;
        try {
          const Store store(storePath.toStdString(), Store::Opening::ExistingOnly);
          const ExportResult r = exportRun(store, runId, options);
          for (const std::string& f : r.files)
            o.files << QFileInfo(QString::fromStdString(f)).fileName();
          o.buildCommand = QString::fromStdString(r.buildCommand);
          o.note = QString::fromStdString(r.note);
        } catch (const ExistingExportError& e) {
          o.error = QString::fromUtf8(e.what());
          o.earlierExport = true;
        } catch (const std::exception& e) {
          o.error = QString::fromUtf8(e.what());
        }
        return o;
      },
      [this](const Outcome& o) {
        m_exportButton->setEnabled(true);
        const bool close = std::exchange(m_closeWhenWritten, false);
        if (o.earlierExport) {
          showMessage(m_done, QString());
          showMessage(m_error, tr("%1. Replace them, or choose another folder.").arg(o.error));
          offerReplace(true);
          emit failed(m_error->text());
          return;
        }
        offerReplace(false);
        if (!o.error.isEmpty()) {
          // core's reason names the file and why ("cannot write '.../config.h': No space left on
          // device"); nothing of the export was left in the folder.
          showMessage(m_done, QString());
          showMessage(m_error, tr("The export failed, no file was written: %1").arg(o.error));
          emit failed(m_error->text());
          return;
        }
        QString text =
            tr("Wrote %1 into %2.")
                .arg(o.files.join(QStringLiteral(", ")), QDir::toNativeSeparators(o.folder));
        if (!o.buildCommand.isEmpty())
          text += tr(" Check it with: sh build.sh (%1)").arg(o.buildCommand);
        if (!o.note.isEmpty()) text += QLatin1Char(' ') + o.note;
        showMessage(m_error, QString());
        showMessage(m_done, text);
        m_folderChosen = true;  // where the files went is where the next export goes
        rememberFolder();
        emit exported(o.folder);
        if (close) QDialog::reject();
      });
}

void KernelExportDialog::offerReplace(bool replace) {
  m_replace = replace;
  m_exportButton->setText(replace ? tr("&Replace") : tr("&Export"));
}

void KernelExportDialog::rememberFolder() {
  const QString folder = m_folder->text().trimmed();
  if (!m_folderChosen || folder.isEmpty()) return;
  remember(kFolderKey, QDir::cleanPath(QDir::fromNativeSeparators(folder)));
  remember(kFolderRunKey, static_cast<qlonglong>(m_run.id));
}

QString KernelExportDialog::message() const {
  return m_error->text().isEmpty() ? m_done->text() : m_error->text();
}

}  // namespace opevo::ui
