#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "ui/controller/network_types.h"

namespace opevo::ui {

// A network's tasks as a table (weight, trials, best latency, share of the network's estimated
// latency) for one contender of the race, refreshed after every unit. The rows stay (one per
// task); only their values change.
class NetworkTaskModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    TaskColumn,
    KindColumn,
    ShapeColumn,
    WeightColumn,
    FlopColumn,  // the task's work with the SI prefix that suits it (raw: GFLOP)
    TrialsColumn,
    BestColumn,
    ShareColumn,
    ColumnCount
  };
  // The raw value (a number for numeric columns) for sorting.
  static constexpr int RawRole = Qt::UserRole;

  explicit NetworkTaskModel(QObject* parent = nullptr);

  // The tasks of a new network (rows change), or the same tasks with new values (other params:
  // shapes, GFLOP and weights change, the rows and their trials stay).
  void setTasks(std::vector<NetworkTaskInfo> tasks);
  // The contender whose trials and latencies are shown; null shows none.
  void setState(const ContenderState* state);

  // After the end-to-end run, each task's share of the network's measured latency (its steps'
  // times, every occurrence, over all steps' with the fixed layers'): what the graph shows
  // too. Empty while tuning. Call after setState, which clears it.
  void setMeasuredShares(std::vector<double> shares);
  // The measured share when there is one; while tuning, weight x best / sum of weight x best
  // over the tasks that have one. NaN when the task has none.
  double share(int row) const;
  bool sharesMeasured() const { return !m_measuredShares.empty(); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<NetworkTaskInfo> m_tasks;
  std::vector<int> m_trials;
  // Per task, the twins its trials of the closing round came from (one per trial; empty: none).
  std::vector<std::vector<std::string>> m_closingFrom;
  std::vector<double> m_bestMs;
  double m_totalMs = 0;
  std::vector<double> m_measuredShares;
};

}  // namespace opevo::ui
