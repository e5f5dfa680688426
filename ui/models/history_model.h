#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <map>
#include <vector>

#include "store/records.h"

namespace opevo::ui {

// The runs recorded in the store, newest first until a header is clicked: the model sorts its own
// rows (sort()), so its rows are the view's and every row index the page, the tests and
// opevo-studio's options hand around means the same run in both. A race's runs share its race
// id, so they can be selected together.
class HistoryModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    IdColumn,
    StartedColumn,
    AlgorithmColumn,
    RepeatColumn,
    SeedColumn,
    OperatorColumn,  // the operator tuned (a replay's: its dataset's kernel)
    ModeColumn,  // what was tuned: loop, joint, winograd, matvec, replay or imported (runModeName)
    MeasuredOnColumn,  // the device, or the replayed dataset and the device it was measured on
    BudgetColumn,
    TrialsColumn,  // measured so far
    BestColumn,    // the best speed, in the run's unit
    StatusColumn,
    ColumnCount
  };
  // What a column sorts by: numbers as numbers, the start as a date; empty sorts first.
  static constexpr int SortRole = Qt::UserRole;

  struct Row {
    RunRecord run;
    QString label;  // "replay of A100.json.gz (...)", else the operator's name
    RunTally tally;
    QString network;  // "network run 3 (alexnet)" for a network's task run, else empty
  };

  explicit HistoryModel(QObject* parent = nullptr);

  // tallies (Store::runTallies) and networks (a task run's id -> its network run, as above) may
  // be empty: the columns then show nothing.
  void setRuns(const std::vector<RunRecord>& runs,
               const std::map<std::int64_t, RunTally>& tallies = {},
               const std::map<std::int64_t, QString>& networks = {});
  const Row& row(int r) const { return m_rows[static_cast<std::size_t>(r)]; }
  // The row of the newest run (highest id) with trials (a network's last task may have none);
  // -1 when none.
  int newestWithTrials() const;
  // Sorts the rows, keeping every persistent index (the view's selection and current row) on its
  // run. setRuns keeps the last order asked for.
  void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  void sortRows();

  std::vector<Row> m_rows;
  // Whether setRuns was given tallies: a run absent from them has no trial (Store::runTallies
  // lists runs with trials); without them nothing is known of any run's.
  bool m_tallied = false;
  int m_sortColumn = IdColumn;
  Qt::SortOrder m_sortOrder = Qt::DescendingOrder;
};

}  // namespace opevo::ui
