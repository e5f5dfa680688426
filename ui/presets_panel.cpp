#include "ui/presets_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>
#include <exception>

#include "ops/presets.h"
#include "ui/display_format.h"
#include "ui/parameter_model.h"
#include "ui/preset_model.h"
#include "ui/table_view.h"

namespace opevo::ui {
PresetsPanel::PresetsPanel(QWidget* parent)
    : QWidget(parent),
      m_presetModel(new PresetTableModel(this)),
      m_parameterModel(new ParameterTableModel(this)),
      m_presetView(makeTableView(m_presetModel, QStringLiteral("presetTable"), this)),
      m_parameterView(makeTableView(m_parameterModel, QStringLiteral("parameterTable"), this)),
      m_titleLabel(new QLabel(tr("Select a preset to see its search space."), this)),
      m_sizeLabel(new QLabel(this)) {
  m_titleLabel->setObjectName(QStringLiteral("presetTitle"));
  m_titleLabel->setWordWrap(true);
  m_sizeLabel->setObjectName(QStringLiteral("spaceSizeLabel"));
  m_sizeLabel->setWordWrap(true);
  m_sizeLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

  // Eight presets: all of them, no scroll bar. The description stretches (and elides, with the
  // full text in the tooltip) so the table never scrolls sideways.
  m_presetView->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  m_presetView->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  m_presetView->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_presetView->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_presetView->horizontalHeader()->setSectionResizeMode(PresetTableModel::DescriptionColumn,
                                                         QHeaderView::Stretch);
  m_parameterView->horizontalHeader()->setStretchLastSection(true);
  // The parameters take the rows they need; room below is left for what later pages add here.
  m_parameterView->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  m_parameterView->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
  m_parameterView->setToolTip(
      tr("Click a parameter to see its q-random walk; double-click to see its graph"));

  auto* heading = new QLabel(tr("<b>Preset operators</b>"), this);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(heading);
  layout->addWidget(m_presetView);
  layout->addSpacing(8);
  layout->addWidget(m_titleLabel);
  layout->addWidget(m_parameterView);
  layout->addWidget(m_sizeLabel);
  layout->addStretch(1);

  connect(m_presetView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) { onCurrentRowChanged(current.row()); });
  connect(m_parameterView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (m_showingParameter || !current.isValid()) return;
            emit parameterChosen(
                QString::fromStdString(m_parameterModel->parameter(current.row())->name()));
          });
}

void PresetsPanel::showParameter(const QString& name) {
  // Reflects a choice made elsewhere; it is not a new choice, so parameterChosen stays quiet.
  m_showingParameter = true;
  QItemSelectionModel* selection = m_parameterView->selectionModel();
  selection->clear();
  for (int r = 0; r < m_parameterModel->rowCount(); ++r) {
    if (QString::fromStdString(m_parameterModel->parameter(r)->name()) == name) {
      selection->setCurrentIndex(m_parameterModel->index(r, 0),
                                 QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
      break;
    }
  }
  m_showingParameter = false;
}

bool PresetsPanel::selectPreset(const QString& name) {
  const int row = m_presetModel->rowOf(name);
  if (row < 0) return false;
  m_presetView->selectionModel()->setCurrentIndex(
      m_presetModel->index(row, 0),
      QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  return true;
}

QString PresetsPanel::selectedPreset() const {
  return m_op ? QString::fromStdString(m_op->name) : QString();
}

void PresetsPanel::onCurrentRowChanged(int row) {
  if (row < 0) return;
  const OperatorSpec& op = m_presetModel->preset(row);
  try {
    SearchSpace space = defaultSpace(op);
    m_op = op;
    m_space = std::move(space);
  } catch (const std::exception& e) {
    // Presets are core's own data, so this means a core bug; say so rather than crash.
    m_op.reset();
    m_space.reset();
    m_parameterModel->setSpace(SearchSpace{});
    m_sizeLabel->clear();
    m_titleLabel->setText(tr("%1: cannot build its space: %2")
                              .arg(QString::fromStdString(op.name), QString::fromUtf8(e.what())));
    return;
  }
  m_parameterModel->setSpace(*m_space);
  m_titleLabel->setText(tr("<b>%1</b>: %2 &mdash; %3 GFLOP per run")
                            .arg(QString::fromStdString(op.name),
                                 QString::fromStdString(op.describe()).toHtmlEscaped())
                            .arg(op.flops() / 1e9, 0, 'f', 2));
  QStringList constraints;
  for (const Constraint& c : m_space->constraints())
    constraints << QString::fromStdString(c.description);
  QString size =
      tr("Total space: <b>%1</b> configurations").arg(groupDigits(m_space->size().toString()));
  if (!constraints.isEmpty())
    size +=
        tr(" before constraints (%1)").arg(constraints.join(QStringLiteral("; ")).toHtmlEscaped());
  m_sizeLabel->setText(size);
  emit presetSelected(QString::fromStdString(op.name), *m_space);
}

}  // namespace opevo::ui
