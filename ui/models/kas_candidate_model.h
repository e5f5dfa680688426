#pragma once

#include <QAbstractTableModel>
#include <set>
#include <vector>

#include "ui/controller/kas_types.h"

namespace opevo::ui {

// A kernel search's candidates as a table, in the order they were sampled. While the search runs,
// new candidates are appended and changed ones updated in place, so a selected row stays
// selected as the search goes on.
class KasCandidateModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    SeqColumn,
    HashColumn,
    GroupsColumn,
    FlopsColumn,
    KernelMsColumn,
    ConvMsColumn,
    SpeedupColumn,
    AccuracyColumn,
    StageColumn,
    NoteColumn,
    ColumnCount
  };

  explicit KasCandidateModel(QObject* parent = nullptr);

  // Another search resets the rows; the same search's snapshot appends and updates them.
  void setSnapshot(const KasSnapshot& snapshot);
  void clear();

  std::int64_t searchId() const { return m_searchId; }
  const KasCandidatePtr& candidate(int row) const { return m_rows.at(row); }
  // The row of a candidate, or -1.
  int rowOf(int seq) const;
  bool onFront(int seq) const { return m_front.count(seq) > 0; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QString note(const KasCandidateRow& c) const;

  std::int64_t m_searchId = -1;
  std::vector<KasCandidatePtr> m_rows;
  std::set<int> m_front;
  QString m_convolutionBasis;  // how the Conv ms column's figures were timed
};

}  // namespace opevo::ui
