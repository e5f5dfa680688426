#pragma once

#include <QAbstractTableModel>
#include <optional>
#include <vector>

#include "store/records.h"
#include "ui/controller/kas_types.h"

namespace opevo {
class Store;
}

namespace opevo::ui {

// A stored kernel search as the list shows it.
struct KasSearchSummary {
  KasSearchRecord record;
  int candidates = 0, wanted = 0, trained = 0;
  std::optional<double> baselineAccuracy;  // 0..1
};

// Every search of the store with its candidates counted (throws what the store throws).
std::vector<KasSearchSummary> readKasSearches(const Store& store);

// The store's kernel searches, newest first: id, status, candidates trained of evaluated, and the
// baseline's accuracy.
class KasSearchModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { IdColumn, StatusColumn, KernelsColumn, BaselineColumn, ColumnCount };

  explicit KasSearchModel(QObject* parent = nullptr);

  // Takes them in the store's order (oldest first).
  void setSearches(std::vector<KasSearchSummary> searches);
  const KasSearchSummary& search(int row) const { return m_rows.at(row); }
  // The row of a search, or -1.
  int rowOf(std::int64_t id) const;
  // A running search's counts, status and baseline as its live snapshot has them (the list read
  // the store when the search started and would stay at 0/0 until it ended).
  void updateLive(const KasSnapshot& live);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<KasSearchSummary> m_rows;
};

}  // namespace opevo::ui
