#include "ui/models/parameter_model.h"

#include "ui/widgets/display_format.h"

namespace opevo::ui {

ParameterTableModel::ParameterTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ParameterTableModel::setSpace(const SearchSpace& space) {
  beginResetModel();
  m_params.clear();
  for (std::size_t i = 0; i < space.dims(); ++i) m_params.push_back(space.paramPtr(i));
  endResetModel();
}

int ParameterTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_params.size());
}

int ParameterTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ParameterTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const Parameter& p = *parameter(index.row());
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case NameColumn:
        return QString::fromStdString(p.name());
      case KindColumn:
        return QString::fromUtf8(kindName(p.kind()).data(),
                                 static_cast<qsizetype>(kindName(p.kind()).size()));
      case SpecColumn:
        return QString::fromStdString(p.spec());
      case SizeColumn:
        return groupDigits(p.size().toString());
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() == SizeColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant ParameterTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case NameColumn:
      return tr("Parameter");
    case KindColumn:
      return tr("Kind");
    case SpecColumn:
      return tr("Spec");
    case SizeColumn:
      return tr("Size");
  }
  return {};
}

}  // namespace opevo::ui
