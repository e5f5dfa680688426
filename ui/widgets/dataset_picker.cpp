#include "ui/widgets/dataset_picker.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>

#include "ui/widgets/display_format.h"
#include "ui/widgets/message_label.h"
#include "ui/widgets/shipped_files.h"

namespace opevo::ui {
DatasetPicker::DatasetPicker(QWidget* parent)
    : QWidget(parent),
      m_pathEdit(new QLineEdit(this)),
      m_infoLabel(new QLabel(this)),
      m_errorLabel(makeMessageLabel(QStringLiteral("datasetError"), MessageKind::Error, this)) {
  m_pathEdit->setObjectName(QStringLiteral("datasetPath"));
  m_pathEdit->setPlaceholderText(tr("Kernel Tuner cache or T4 file (.json, .json.gz)"));
  m_infoLabel->setObjectName(QStringLiteral("datasetInfo"));
  m_infoLabel->setWordWrap(true);
  m_infoLabel->setText(tr("No dataset loaded."));

  auto* browseButton = new QPushButton(tr("&Browse…"), this);
  browseButton->setObjectName(QStringLiteral("browseDataset"));
  auto* pathRow = new QHBoxLayout;
  pathRow->addWidget(m_pathEdit, 1);
  pathRow->addWidget(browseButton);

  // Two buttons a row: three in one made the Runs page's form too wide for an 800x600 screen.
  auto* shortcuts = new QGridLayout;
  shortcuts->addWidget(new QLabel(tr("Bundled:"), this), 0, 0);
  QPushButton* const buttons[] = {
      shortcut(tr("Conv A100"), QStringLiteral("convolution_milo/A100.json.gz")),
      shortcut(tr("GEMM 2080 Ti"), QStringLiteral("gemm/RTX_2080_Ti.json.gz")),
      shortcut(tr("Dedisp MI250X"), QStringLiteral("dedispersion_milo/MI250X.json.gz"))};
  // One width for all, with room around the longest name: at its own size hint "GEMM 2080 Ti"
  // had 4 pixels a side at 1024x700 and read as clipped ("Ti" against the frame).
  int width = 0;
  for (const QPushButton* b : buttons)
    width = std::max(width, b->fontMetrics().horizontalAdvance(b->text()) +
                                2 * kShortcutPadding * b->fontMetrics().averageCharWidth());
  for (int i = 0; i < 3; ++i) {
    buttons[i]->setMinimumWidth(std::max(width, buttons[i]->sizeHint().width()));
    shortcuts->addWidget(buttons[i], i / 2, 1 + i % 2);
  }
  shortcuts->setColumnStretch(3, 1);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(pathRow);
  layout->addLayout(shortcuts);
  layout->addWidget(m_infoLabel);
  layout->addWidget(m_errorLabel);

  connect(browseButton, &QPushButton::clicked, this, &DatasetPicker::browse);
  connect(m_pathEdit, &QLineEdit::returnPressed, this, [this] { load(m_pathEdit->text()); });
}

DatasetPicker::~DatasetPicker() = default;

QString DatasetPicker::datasetsDir() {
#ifdef OPEVO_DATASETS_DIR
  const QString source = QStringLiteral(OPEVO_DATASETS_DIR);
#else
  const QString source;
#endif
  return shippedDir("OPEVO_DATASETS", QStringLiteral("datasets"), source);
}

QPushButton* DatasetPicker::shortcut(const QString& title, const QString& relativePath) {
  auto* button = new QPushButton(title, this);
  button->setObjectName(QStringLiteral("shortcut_") + QFileInfo(relativePath).path());
  const QString dir = datasetsDir();
  const QString path = dir.isEmpty() ? QString() : dir + QLatin1Char('/') + relativePath;
  const bool present = !path.isEmpty() && QFileInfo::exists(path);
  button->setEnabled(present);
  button->setToolTip(
      present ? path
              : tr("%1 not found (set OPEVO_DATASETS to the datasets folder)").arg(relativePath));
  connect(button, &QPushButton::clicked, this, [this, path] { load(path); });
  return button;
}

void DatasetPicker::browse() {
  const QString start =
      m_dataset ? QFileInfo(QString::fromStdString(m_dataset->path)).path() : datasetsDir();
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open a measured dataset"), start,
                                   tr("Datasets (*.json *.json.gz *.gz);;All files (*)"));
  if (!path.isEmpty()) load(path);
}

void DatasetPicker::load(const QString& path) {
  m_pathEdit->setText(path);
  m_infoLabel->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
  m_load.start(
      [p = path.toStdString()]() -> LoadResult {
        try {
          return {std::make_shared<const ReplayDataset>(loadReplayDataset(p)), {}};
        } catch (const std::exception& e) {
          return {nullptr, QString::fromUtf8(e.what())};
        }
      },
      [this](const LoadResult& result) {
        if (result.dataset) {
          m_dataset = result.dataset;
          m_error.clear();
          m_errorLabel->hide();
          showInfo();
          emit loaded(m_dataset);
        } else {
          m_error = result.error;
          m_errorLabel->setText(tr("Not loaded: %1").arg(m_error));
          m_errorLabel->show();
          showInfo();  // the previous dataset, if any, is still the one in use
          emit failed(m_error);
        }
      });
}

void DatasetPicker::showInfo() {
  if (!m_dataset) {
    m_infoLabel->setText(tr("No dataset loaded."));
    return;
  }
  const ReplayDataset& d = *m_dataset;
  const QString unit = QString::fromStdString(d.speedUnit);
  QString text =
      tr("<b>Replay of real measurements</b> on %1 (%2): %3 configurations, "
         "%4 failed; best %5 %6%7")
          .arg(d.deviceName.empty() ? tr("an unnamed device")
                                    : QString::fromStdString(d.deviceName).toHtmlEscaped(),
               // With its folder: the bundled gemm/, pnpoly/ and convolution/ files are all
               // RTX_2080_Ti.json.gz.
               (QFileInfo(QString::fromStdString(d.path)).dir().dirName() + QLatin1Char('/') +
                QFileInfo(QString::fromStdString(d.path)).fileName())
                   .toHtmlEscaped(),
               groupDigits(std::to_string(d.table.size())),
               groupDigits(std::to_string(d.failedCount())), formatSpeed(d.bestSpeed),
               unit.toHtmlEscaped(),
               // What the best rests on: checked, assumed (said so), or not complete.
               tr(" (%1)").arg(QString::fromStdString(completenessLabel(d.completeness))));
  if (!d.completenessNote.empty())
    text += QStringLiteral("<br><i>%1</i>")
                .arg(QString::fromStdString(d.completenessNote).toHtmlEscaped());
  for (const std::string& note : d.notes)
    text += QStringLiteral("<br><i>%1</i>").arg(QString::fromStdString(note).toHtmlEscaped());
  m_infoLabel->setText(text);
}

}  // namespace opevo::ui
