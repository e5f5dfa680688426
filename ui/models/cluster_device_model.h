#pragma once

#include <QAbstractTableModel>
#include <utility>
#include <vector>

#include "ui/controller/cluster_roster.h"

namespace opevo::ui {

// Every device of every agent the roster knows: its kind (the stream it serves), name, capacity,
// trials done and what it measures now. A gone agent's devices stay, greyed.
class ClusterDeviceModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    AgentColumn,
    KindColumn,
    DeviceColumn,
    CapacityColumn,
    TrialsColumn,
    NowColumn,
    ColumnCount
  };
  static constexpr int RawRole = Qt::UserRole;

  explicit ClusterDeviceModel(const ClusterRoster& roster, QObject* parent = nullptr);

  void refresh(ClusterRoster::Change change);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  void rebuildRows();

  const ClusterRoster& m_roster;
  std::vector<std::pair<std::size_t, std::size_t>> m_rows;  // (agent, device) in the roster
};

}  // namespace opevo::ui
