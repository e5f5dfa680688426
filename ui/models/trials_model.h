#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

namespace opevo::ui {

class RaceData;

// The race's trials in arrival order, as a table: its latest RaceData::kRecentTrials of them
// (every trial when the race is not stored). Rows are appended at the end and, as the window
// moves on, removed from the start (or all cleared); the model counts its own rows so a view
// never sees data it was not told of.
class TrialsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    OrderColumn,  // the order in which the engine measured it, across the race
    AlgorithmColumn,
    RepeatColumn,
    TrialColumn,
    SpeedColumn,
    BestColumn,
    TimeColumn,
    StatusColumn,
    ReasonColumn,
    ConfigColumn,  // last: the widest, it takes the room left
    ColumnCount
  };
  // The raw value (a number for numeric columns) for sorting.
  static constexpr int RawRole = Qt::UserRole;

  explicit TrialsModel(RaceData* data, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  RaceData* m_data;
  int m_rows = 0;
};

// Sorts numbers as numbers and filters on one column (or all) by a case-insensitive substring.
class TrialsFilterModel : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit TrialsFilterModel(QObject* parent = nullptr);
  // column -1: any column.
  void setFilter(int column, const QString& text);
};

}  // namespace opevo::ui
