#pragma once

#include <QAbstractTableModel>
#include <QDateTime>
#include <QString>
#include <memory>
#include <vector>

#include "ops/operator_json.h"

class QFileSystemWatcher;

namespace opevo::ui {

// Where the user's operator files live: $OPEVO_OPERATORS_DIR when set (tests, scripts), else
// the folder "operators" beside the database (Store::defaultPath(): opevo-studio --db's file,
// or ~/.local/share/opevo-studio/opevo.db). Not created here: saving creates it on demand.
QString operatorsDirectory();

// The user's operator files: every *.json of the operators folder plus files opened by hand.
// Each is loaded through core's loadOperator, exactly as `opevo tune --op FILE` would; a file
// that fails keeps its row with the error instead of its operator, so one bad file never hides
// the others. The list follows the folder as it changes (a file copied in, removed, or written
// by another program), without a restart.
class OperatorFileModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { NameColumn, DescriptionColumn, FileColumn, ColumnCount };

  struct Entry {
    QString path;                                          // absolute
    std::shared_ptr<const OperatorDefinition> definition;  // null when the file failed to load
    QString error;
    // The file when it was read (time and size: two writes in one millisecond): a file written
    // since is read again.
    QDateTime modified;
    qint64 size = -1;
  };

  explicit OperatorFileModel(QObject* parent = nullptr);

  // Lists dir's *.json again, keeping files opened from elsewhere.
  void setDirectory(const QString& dir);
  QString directory() const { return m_dir; }
  // Brings the folder's rows up to date with the folder: new files added (in name order among
  // the folder's), removed ones dropped, changed ones read again; rows of files opened from
  // elsewhere stay. Done on every change the folder reports, and by the panel when shown.
  void refresh();
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
  bool inFolder(const Entry& e) const;
  // Watches the folder once it exists (saving creates it after the model was set up).
  void watch();

  QString m_dir;
  QFileSystemWatcher* m_watcher;
  std::vector<Entry> m_entries;
};

}  // namespace opevo::ui
