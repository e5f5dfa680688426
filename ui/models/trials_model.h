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

// The trials table's caption: how many trials the table holds of the race's, and how many of those
// the filter keeps. Said plainly when the table keeps only the latest (a stored race), so a
// filtered count is never read as one over the whole race: "the latest 10,000 of 21,000 trials;
// filter: 1,080 of them (the CSV export has them all)".
QString trialsCaption(long long raceTrials, long long tableRows, long long filteredRows);

}  // namespace opevo::ui
