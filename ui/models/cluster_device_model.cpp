#include "ui/models/cluster_device_model.h"

#include <QBrush>
#include <QColor>
#include <QLocale>

#include "ui/models/cluster_agent_model.h"  // ageText
#include "ui/widgets/status_colors.h"

namespace opevo::ui {

ClusterDeviceModel::ClusterDeviceModel(const ClusterRoster& roster, QObject* parent)
    : QAbstractTableModel(parent), m_roster(roster) {}

void ClusterDeviceModel::rebuildRows() {
  m_rows.clear();
  const auto& agents = m_roster.agents();
  for (std::size_t a = 0; a < agents.size(); ++a)
    for (std::size_t d = 0; d < agents[a].record.devices.size(); ++d) m_rows.emplace_back(a, d);
}

void ClusterDeviceModel::refresh(ClusterRoster::Change change) {
  if (change == ClusterRoster::Change::Rows) {
    beginResetModel();
    rebuildRows();
    endResetModel();
  } else if (change == ClusterRoster::Change::Values && rowCount() > 0) {
    emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
  }
}

int ClusterDeviceModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ClusterDeviceModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ClusterDeviceModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const auto [agentIndex, deviceIndex] = m_rows[static_cast<std::size_t>(index.row())];
  const RosterAgent& a = m_roster.agents()[agentIndex];
  const cluster::ClusterDevice& d = a.record.devices[deviceIndex];
  // The cluster cannot be read now: what the device measured when last read may be done.
  const bool unknown = a.live && m_roster.stale();
  if (role == Qt::ForegroundRole && (!a.live || unknown))
    return QBrush(statusColor(StatusColor::Muted));
  if (role == Qt::TextAlignmentRole) {
    if (index.column() == CapacityColumn || index.column() == TrialsColumn)
      return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  }
  if (role == Qt::ToolTipRole) {
    if (index.column() == KindColumn)
      return tr("Trials of this kind go to the stream opevo:trials:%1; every device serving it "
                "measures them interchangeably")
          .arg(QString::fromStdString(d.kind));
    if (index.column() == DeviceColumn && d.delayMs > 0)
      return tr("%1, slowed by a simulated %2 ms per trial (--delay-ms), for scaling tests")
          .arg(QString::fromStdString(d.name))
          .arg(d.delayMs);
    if (index.column() == DeviceColumn) return QString::fromStdString(d.name);
    if (index.column() == NowColumn && unknown)
      return tr("The cluster cannot be read now; when last read, %1 ago, it was %2.")
          .arg(ageText(m_roster.nowMs() - m_roster.polledMs()),
               d.current.empty() ? tr("idle")
                                 : tr("measuring %1").arg(QString::fromStdString(d.current)));
    return {};
  }
  if (role != Qt::DisplayRole && role != RawRole) return {};
  const bool raw = role == RawRole;
  switch (index.column()) {
    case AgentColumn:
      return QString::fromStdString(a.record.id);
    case KindColumn:
      return QString::fromStdString(d.kind);
    case DeviceColumn:
      if (raw || d.delayMs <= 0) return QString::fromStdString(d.name);
      // The delay first: a long name (a replay's file and GPU) is what the column cuts.
      return tr("simulated %1 ms per trial: %2").arg(d.delayMs).arg(QString::fromStdString(d.name));
    case CapacityColumn:
      return d.capacity;
    case TrialsColumn:
      return raw ? QVariant(d.trialsDone) : QVariant(QLocale().toString(d.trialsDone));
    case NowColumn:
      if (!a.live) return raw ? QString() : tr("gone");
      if (unknown) return raw ? QString() : tr("unknown");
      if (d.current.empty()) return raw ? QString() : tr("idle");
      return raw ? QString::fromStdString(d.current)
                 : tr("measuring %1").arg(QString::fromStdString(d.current));
    default:
      return {};
  }
}

QVariant ClusterDeviceModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && section == CapacityColumn)
    return tr("Trials the device measures at a time");
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case AgentColumn:
      return tr("Agent");
    case KindColumn:
      return tr("Kind");
    case DeviceColumn:
      return tr("Device");
    case CapacityColumn:
      return tr("Capacity");
    case TrialsColumn:
      return tr("Trials done");
    case NowColumn:
      return tr("Now");
    default:
      return {};
  }
}

}  // namespace opevo::ui
