#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "space/search_space.h"

namespace opevo::ui {

// The parameters of one search space: name, kind, spec and exact size.
class ParameterTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { NameColumn, KindColumn, SpecColumn, SizeColumn, ColumnCount };

  explicit ParameterTableModel(QObject* parent = nullptr);

  void setSpace(const SearchSpace& space);
  const ParameterPtr& parameter(int row) const {
    return m_params.at(static_cast<std::size_t>(row));
  }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<ParameterPtr> m_params;
};

}  // namespace opevo::ui
