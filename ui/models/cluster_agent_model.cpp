#include "ui/models/cluster_agent_model.h"

#include <QBrush>
#include <QColor>
#include <QLocale>
#include <algorithm>

#include "ui/widgets/status_colors.h"

namespace opevo::ui {

QString ageText(long long ms) {
  ms = std::max(0LL, ms);  // the agent's clock may run a little ahead of ours
  if (ms < 10'000) return QStringLiteral("%1 s").arg(double(ms) / 1000.0, 0, 'f', 1);
  if (ms < 120'000) return QStringLiteral("%1 s").arg(ms / 1000);
  return QStringLiteral("%1 min").arg(ms / 60'000);
}

ClusterAgentModel::ClusterAgentModel(const ClusterRoster& roster, QObject* parent)
    : QAbstractTableModel(parent), m_roster(roster) {}

void ClusterAgentModel::refresh(ClusterRoster::Change change) {
  if (change == ClusterRoster::Change::Rows) {
    beginResetModel();
    endResetModel();
  } else if (change == ClusterRoster::Change::Values && rowCount() > 0) {
    emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
  }
}

int ClusterAgentModel::rowOf(const QString& id) const {
  const auto& agents = m_roster.agents();
  for (std::size_t i = 0; i < agents.size(); ++i)
    if (QString::fromStdString(agents[i].record.id) == id) return static_cast<int>(i);
  return -1;
}

int ClusterAgentModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_roster.agents().size());
}

int ClusterAgentModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ClusterAgentModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const RosterAgent& a = m_roster.agents()[static_cast<std::size_t>(index.row())];
  const cluster::AgentRecord& r = a.record;
  // Ages count to the last poll, read or not: they go on growing while the cluster is out of
  // reach.
  const long long age = m_roster.nowMs() - r.beatMs;
  // The cluster cannot be read now: a live agent as last read may have stopped since.
  const bool unknown = a.live && m_roster.stale();
  const long long unseen = m_roster.nowMs() - m_roster.polledMs();
  if (role == Qt::ForegroundRole && (!a.live || unknown))
    return QBrush(statusColor(StatusColor::Muted));
  if (role == Qt::ForegroundRole && index.column() == StateColumn)
    return QBrush(statusColor(StatusColor::Good));
  if (role == Qt::TextAlignmentRole) {
    const int c = index.column();
    if (c == DevicesColumn || c == TrialsColumn || c == RateColumn || c == HeartbeatColumn)
      return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  }
  if (role == Qt::ToolTipRole && index.column() == StateColumn && !a.live)
    return tr("Its heartbeat expired (killed, stopped, or cut off from the cluster); missed %1 "
              "ago. Trials it held are measured by other agents.")
        .arg(ageText(m_roster.nowMs() - a.goneSinceMs));
  if (role == Qt::ToolTipRole && unknown &&
      (index.column() == StateColumn || index.column() == HeartbeatColumn))
    return tr("The cluster cannot be read now: this row is the agent as last read, %1 ago.")
        .arg(ageText(unseen));
  if (role == Qt::ToolTipRole)
    return tr("%1: pid %2 on %3, opevo %4, started %5 UTC")
        .arg(QString::fromStdString(r.id))
        .arg(r.pid)
        .arg(QString::fromStdString(r.host), QString::fromStdString(r.version),
             QString::fromStdString(r.started));
  if (role != Qt::DisplayRole && role != RawRole) return {};
  const bool raw = role == RawRole;
  switch (index.column()) {
    case AgentColumn:
      return QString::fromStdString(r.id);
    case HostColumn:
      return QString::fromStdString(r.host);
    case BackendColumn:
      return QString::fromStdString(r.backend);
    case DevicesColumn:
      return static_cast<int>(r.devices.size());
    case TrialsColumn:
      return raw ? QVariant(r.trialsDone()) : QVariant(QLocale().toString(r.trialsDone()));
    case RateColumn:
      if (raw) return unknown ? 0.0 : a.trialsPerSecond;
      return a.live && !unknown ? QStringLiteral("%1/s").arg(a.trialsPerSecond, 0, 'f', 1)
                                : QString();
    case HeartbeatColumn:
      if (raw) return age;
      return unknown ? tr("last seen %1 ago").arg(ageText(unseen)) : tr("%1 ago").arg(ageText(age));
    case StateColumn:
      if (raw)
        return unknown  ? QStringLiteral("unknown")
               : a.live ? QStringLiteral("live")
                        : QStringLiteral("gone");
      return unknown ? tr("unknown") : a.live ? tr("live") : tr("gone");
    default:
      return {};
  }
}

QVariant ClusterAgentModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case RateColumn:
        return tr("Trials per second over the last %1 s").arg(ClusterRoster::kRateWindowMs / 1000);
      case HeartbeatColumn:
        return tr("Time since its last heartbeat; an agent that misses five is gone");
      default:
        return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case AgentColumn:
      return tr("Agent");
    case HostColumn:
      return tr("Host");
    case BackendColumn:
      return tr("Backend");
    case DevicesColumn:
      return tr("Devices");
    case TrialsColumn:
      return tr("Trials done");
    case RateColumn:
      return tr("Rate");
    case HeartbeatColumn:
      return tr("Heartbeat");
    case StateColumn:
      return tr("State");
    default:
      return {};
  }
}

}  // namespace opevo::ui
