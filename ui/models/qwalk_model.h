#pragma once

#include <QAbstractTableModel>
#include <memory>

#include "ui/jobs/qwalk_runner.h"

namespace opevo::ui {

// The exact q-walk distribution as a table: one row per vertex in the result's display order.
// Vertices are formatted on demand, so a 100,000-row result costs no strings until scrolled to.
class QwalkTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { VertexColumn, DistanceColumn, DegreeColumn, ProbabilityColumn, ColumnCount };
  // Qt::UserRole gives the raw number (distance, degree, probability) for sorting and tests.
  static constexpr int RawRole = Qt::UserRole;

  explicit QwalkTableModel(QObject* parent = nullptr);

  void setResult(std::shared_ptr<const QwalkResult> result);
  void clear();
  const QwalkResult* result() const { return m_result.get(); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const QwalkResult> m_result;
};

}  // namespace opevo::ui
