#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "ops/operator.h"

namespace opevo::ui {

// The paper's preset operators (MM1..C2), one row each, in core's order.
class PresetTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { NameColumn, DescriptionColumn, FlopColumn, ColumnCount };

  explicit PresetTableModel(QObject* parent = nullptr);

  const OperatorSpec& preset(int row) const { return m_presets.at(static_cast<std::size_t>(row)); }
  // Row of the preset with that name, or -1.
  int rowOf(const QString& name) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<OperatorSpec> m_presets;
};

}  // namespace opevo::ui
