#include "ui/models/cluster_queue_model.h"

#include <QBrush>
#include <QColor>

#include "ui/widgets/status_colors.h"

namespace opevo::ui {

ClusterQueueModel::ClusterQueueModel(const ClusterRoster& roster, QObject* parent)
    : QAbstractTableModel(parent), m_roster(roster) {}

void ClusterQueueModel::refresh(ClusterRoster::Change change) {
  if (change == ClusterRoster::Change::Rows) {
    beginResetModel();
    endResetModel();
  } else if (change == ClusterRoster::Change::Values && rowCount() > 0) {
    emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
  }
}

int ClusterQueueModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_roster.queues().size());
}

int ClusterQueueModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ClusterQueueModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const cluster::TrialQueue& q = m_roster.queues()[static_cast<std::size_t>(index.row())];
  const int devices = m_roster.devicesServing(q.kind);
  if (role == Qt::TextAlignmentRole && index.column() != KindColumn)
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  // Figures as last read, while the cluster cannot be read: greyed, as the agents are.
  if (role == Qt::ForegroundRole && m_roster.stale())
    return QBrush(statusColor(StatusColor::Muted));
  if (role == Qt::ToolTipRole && m_roster.stale())
    return tr("The cluster cannot be read now: these are its figures as last read");
  // Work waiting that nobody serves is the one thing on this table worth a colour.
  if (role == Qt::ForegroundRole && devices == 0 && q.waiting + q.inFlight > 0)
    return QBrush(statusColor(StatusColor::Error));
  if (role == Qt::ToolTipRole && devices == 0 && q.waiting + q.inFlight > 0)
    return tr("No live agent serves this kind: its trials wait until one starts");
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case KindColumn:
      return QString::fromStdString(q.kind);
    case WaitingColumn:
      return q.waiting;
    case InFlightColumn:
      return q.inFlight;
    case DevicesColumn:
      return devices;
    default:
      return {};
  }
}

QVariant ClusterQueueModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && section == InFlightColumn)
    return tr("Taken by an agent and not yet answered (held by a dead one until reclaimed)");
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case KindColumn:
      return tr("Queue (device kind)");
    case WaitingColumn:
      return tr("Waiting");
    case InFlightColumn:
      return tr("Being measured");
    case DevicesColumn:
      return tr("Live devices");
    default:
      return {};
  }
}

}  // namespace opevo::ui
