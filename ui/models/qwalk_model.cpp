#include "ui/models/qwalk_model.h"

#include <QFont>

#include "ui/widgets/display_format.h"

namespace opevo::ui {

QwalkTableModel::QwalkTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void QwalkTableModel::setResult(std::shared_ptr<const QwalkResult> result) {
  beginResetModel();
  m_result = result && result->error.isEmpty() ? std::move(result) : nullptr;
  endResetModel();
}

void QwalkTableModel::clear() {
  setResult(nullptr);
}

int QwalkTableModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !m_result) return 0;
  return static_cast<int>(m_result->order.size());
}

int QwalkTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant QwalkTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
      !m_result)
    return {};
  const std::size_t v = m_result->order[static_cast<std::size_t>(index.row())];
  const ParamGraph& g = m_result->distribution.graph;
  const double p = m_result->distribution.probability[v];
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case VertexColumn:
          return QString::fromStdString(m_result->request.param->format(g.vertices[v]));
        case DistanceColumn:
          return g.distance[v];
        case DegreeColumn:
          return static_cast<qulonglong>(g.degree(v));
        case ProbabilityColumn:
          return formatProbability(p);
      }
      break;
    case RawRole:
      switch (index.column()) {
        case VertexColumn:
          return QString::fromStdString(m_result->request.param->format(g.vertices[v]));
        case DistanceColumn:
          return g.distance[v];
        case DegreeColumn:
          return static_cast<qulonglong>(g.degree(v));
        case ProbabilityColumn:
          return p;
      }
      break;
    case Qt::ToolTipRole:
      if (index.column() == ProbabilityColumn) return QString::number(p, 'g', 17);
      break;
    case Qt::TextAlignmentRole:
      if (index.column() != VertexColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      break;
    case Qt::FontRole:
      // The start vertex is where every walk begins; bold makes it easy to find.
      if (g.distance[v] == 0) {
        QFont font;
        font.setBold(true);
        return font;
      }
      break;
  }
  return {};
}

QVariant QwalkTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case VertexColumn:
      return tr("Vertex");
    case DistanceColumn:
      return tr("Distance");
    case DegreeColumn:
      return tr("Degree");
    case ProbabilityColumn:
      return tr("Probability");
  }
  return {};
}

}  // namespace opevo::ui
