#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <memory>
#include <vector>

#include "ops/operator_json.h"

namespace opevo::ui {

// Where the user's operator files live: $OPEVO_OPERATORS_DIR when set (tests, scripts), else
// the app's data folder + "/operators". Not created here: saving creates it on demand.
QString operatorsDirectory();

// The user's operator files: every *.json of the operators folder plus files opened by hand.
// Each is loaded through core's loadOperator, exactly as `opevo tune --op FILE` would; a file
// that fails keeps its row with the error instead of its operator, so one bad file never hides
// the others.
class OperatorFileModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { NameColumn, DescriptionColumn, FileColumn, ColumnCount };

  struct Entry {
    QString path;                                          // absolute
    std::shared_ptr<const OperatorDefinition> definition;  // null when the file failed to load
    QString error;
  };

  explicit OperatorFileModel(QObject* parent = nullptr);

  // Lists dir's *.json again, keeping files opened from elsewhere.
  void setDirectory(const QString& dir);
  QString directory() const { return m_dir; }
  // Adds the file, or loads it again when listed; returns its row.
  int addFile(const QString& path);
  const Entry& entry(int row) const { return m_entries.at(static_cast<std::size_t>(row)); }
  int rowOf(const QString& path) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  static Entry load(const QString& path);

  QString m_dir;
  std::vector<Entry> m_entries;
};

}  // namespace opevo::ui
