#pragma once

#include <QAbstractTableModel>

#include "ui/controller/cluster_roster.h"

namespace opevo::ui {

// The cluster's agents, one row each, live ones and those whose heartbeat expired (greyed,
// "gone"): where each runs, its devices, trials done and rate, and how old its last heartbeat is.
class ClusterAgentModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    AgentColumn,
    HostColumn,
    BackendColumn,
    DevicesColumn,
    TrialsColumn,
    RateColumn,
    HeartbeatColumn,
    StateColumn,
    ColumnCount
  };
  // The raw value (a number for numeric columns, "live"/"gone" for the state).
  static constexpr int RawRole = Qt::UserRole;

  explicit ClusterAgentModel(const ClusterRoster& roster, QObject* parent = nullptr);

  // After the roster changed: new rows reset the model, new figures only change values.
  void refresh(ClusterRoster::Change change);
  // The row of the agent, -1 when it was never seen.
  int rowOf(const QString& id) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  const ClusterRoster& m_roster;
};

// "0.4 s", "12 s", "3 min": how long ago, as a heartbeat's age reads best.
QString ageText(long long ms);

}  // namespace opevo::ui
