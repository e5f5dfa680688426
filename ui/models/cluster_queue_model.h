#pragma once

#include <QAbstractTableModel>

#include "ui/controller/cluster_roster.h"

namespace opevo::ui {

// The backlog of each device kind's trial stream: requests waiting for an agent, those being
// measured, and how many live devices serve the kind (none: the requests wait for one).
class ClusterQueueModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { KindColumn, WaitingColumn, InFlightColumn, DevicesColumn, ColumnCount };

  explicit ClusterQueueModel(const ClusterRoster& roster, QObject* parent = nullptr);

  void refresh(ClusterRoster::Change change);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  const ClusterRoster& m_roster;
};

}  // namespace opevo::ui
