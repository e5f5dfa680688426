#include "ui/models/preset_model.h"

#include "ops/presets.h"
#include "ui/widgets/display_format.h"

namespace opevo::ui {

PresetTableModel::PresetTableModel(QObject* parent) : QAbstractTableModel(parent) {
  for (const std::string& name : presetNames()) m_presets.push_back(opevo::preset(name));
}

int PresetTableModel::rowOf(const QString& name) const {
  for (std::size_t i = 0; i < m_presets.size(); ++i)
    if (QString::fromStdString(m_presets[i].name) == name) return static_cast<int>(i);
  return -1;
}

int PresetTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_presets.size());
}

int PresetTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant PresetTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const OperatorSpec& op = preset(index.row());
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case NameColumn:
        return QString::fromStdString(op.name);
      case DescriptionColumn:
        return QString::fromStdString(op.describe());
      case FlopColumn:
        // With its prefix: a MobileNetV2 depthwise layer's 1.4 MFLOP read "0.00" in GFLOP.
        return formatWithPrefix(op.flops());
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() == FlopColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole)
    return tr("%1: %2, %3 FLOP per run")
        .arg(QString::fromStdString(op.name), QString::fromStdString(op.describe()))
        .arg(op.flops(), 0, 'g', 6);
  return {};
}

QVariant PresetTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case NameColumn:
      return tr("Preset");
    case DescriptionColumn:
      return tr("Operator");
    case FlopColumn:
      return tr("FLOP");
  }
  return {};
}

}  // namespace opevo::ui
