#include "ui/models/operator_file_model.h"

#include <QBrush>
#include <QColor>
#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QSet>
#include <exception>

#include "store/store.h"
#include "ui/widgets/status_colors.h"

namespace opevo::ui {

QString operatorsDirectory() {
  const QString fromEnv = qEnvironmentVariable("OPEVO_OPERATORS_DIR");
  if (!fromEnv.isEmpty()) return QDir(fromEnv).absolutePath();
  // Beside the database (~/.local/share/opevo-studio, or the folder of opevo-studio --db's file),
  // so all the data of one database is in one folder.
  return QFileInfo(QString::fromStdString(Store::defaultPath()))
      .dir()
      .filePath(QStringLiteral("operators"));
}

OperatorFileModel::OperatorFileModel(QObject* parent)
    : QAbstractTableModel(parent), m_watcher(new QFileSystemWatcher(this)) {
  // While the folder is missing its parent is watched: the database's folder, whose journal files
  // come and go with every write of a race. Only the folder's appearing is news there.
  connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, [this] {
    if (!m_dir.isEmpty() && QFileInfo(QDir(m_dir).absolutePath()).isDir()) refresh();
  });
  // A file copied in is created before it is written: the folder's change comes first, and the
  // file's own change says when its text is there.
  connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &OperatorFileModel::refresh);
}

OperatorFileModel::Entry OperatorFileModel::load(const QString& path) {
  const QFileInfo info(path);
  Entry e{path, nullptr, {}, info.lastModified(), info.size()};
  try {
    e.definition = std::make_shared<const OperatorDefinition>(loadOperator(path.toStdString()));
  } catch (const std::exception& ex) {
    // Anything core throws is about this file; the row carries it instead of failing the list.
    e.error = QString::fromUtf8(ex.what());
  }
  return e;
}

void OperatorFileModel::setDirectory(const QString& dir) {
  beginResetModel();
  std::vector<Entry> kept;
  // Files opened from elsewhere stay listed; the folder's own are read again.
  for (Entry& e : m_entries)
    if (QFileInfo(e.path).absolutePath() != QDir(dir).absolutePath() &&
        QFileInfo(e.path).absolutePath() != QDir(m_dir).absolutePath())
      kept.push_back(std::move(e));
  m_dir = dir;
  m_entries.clear();
  const QFileInfoList files =
      QDir(dir).entryInfoList({QStringLiteral("*.json")}, QDir::Files | QDir::Readable, QDir::Name);
  for (const QFileInfo& f : files) m_entries.push_back(load(f.absoluteFilePath()));
  for (Entry& e : kept) m_entries.push_back(std::move(e));
  endResetModel();
  if (!m_watcher->directories().isEmpty()) m_watcher->removePaths(m_watcher->directories());
  if (!m_watcher->files().isEmpty()) m_watcher->removePaths(m_watcher->files());
  watch();
}

bool OperatorFileModel::inFolder(const Entry& e) const {
  return !m_dir.isEmpty() && QFileInfo(e.path).absolutePath() == QDir(m_dir).absolutePath();
}

void OperatorFileModel::watch() {
  if (m_dir.isEmpty()) return;
  const QString dir = QDir(m_dir).absolutePath();
  if (!QFileInfo(dir).isDir()) {
    // Not there yet (no file saved with this database): its parent says when it appears.
    const QString parent = QFileInfo(dir).absolutePath();
    if (QFileInfo(parent).isDir() && !m_watcher->directories().contains(parent))
      m_watcher->addPath(parent);
    return;
  }
  if (!m_watcher->directories().contains(dir)) {
    if (!m_watcher->directories().isEmpty()) m_watcher->removePaths(m_watcher->directories());
    m_watcher->addPath(dir);
  }
  // Each of the folder's files too (a file replaced by a rename is watched again).
  QStringList files;
  for (const Entry& e : m_entries)
    if (inFolder(e) && !m_watcher->files().contains(e.path) && QFileInfo::exists(e.path))
      files << e.path;
  if (!files.isEmpty()) m_watcher->addPaths(files);
}

void OperatorFileModel::refresh() {
  if (m_dir.isEmpty()) return;
  QStringList present;
  for (const QFileInfo& f : QDir(m_dir).entryInfoList({QStringLiteral("*.json")},
                                                      QDir::Files | QDir::Readable, QDir::Name))
    present << f.absoluteFilePath();
  const QSet<QString> presentSet(present.begin(), present.end());
  for (int row = rowCount() - 1; row >= 0; --row) {
    const Entry& e = entry(row);
    if (!inFolder(e) || presentSet.contains(e.path)) continue;
    beginRemoveRows({}, row, row);
    m_entries.erase(m_entries.begin() + row);
    endRemoveRows();
  }
  for (const QString& path : present) {
    if (const int row = rowOf(path); row >= 0) {
      const QFileInfo info(path);
      if (info.lastModified() == entry(row).modified && info.size() == entry(row).size) continue;
      m_entries[static_cast<std::size_t>(row)] = load(path);
      emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
      continue;
    }
    // Among the folder's rows by name, as setDirectory lists them; before the files opened by
    // hand.
    int row = 0;
    while (row < rowCount() && inFolder(entry(row)) &&
           QFileInfo(entry(row).path).fileName() < QFileInfo(path).fileName())
      ++row;
    beginInsertRows({}, row, row);
    m_entries.insert(m_entries.begin() + row, load(path));
    endInsertRows();
  }
  watch();
}

int OperatorFileModel::addFile(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  const int existing = rowOf(absolute);
  if (existing >= 0) {
    m_entries[static_cast<std::size_t>(existing)] = load(absolute);
    emit dataChanged(index(existing, 0), index(existing, ColumnCount - 1));
    return existing;
  }
  const int row = rowCount();
  beginInsertRows({}, row, row);
  m_entries.push_back(load(absolute));
  endInsertRows();
  watch();  // the first save creates the folder
  return row;
}

int OperatorFileModel::rowOf(const QString& path) const {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  for (std::size_t i = 0; i < m_entries.size(); ++i)
    if (m_entries[i].path == absolute) return static_cast<int>(i);
  return -1;
}

int OperatorFileModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

int OperatorFileModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant OperatorFileModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const Entry& e = entry(index.row());
  const QString fileName = QFileInfo(e.path).fileName();
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case NameColumn:
        return e.definition ? QString::fromStdString(e.definition->op.name) : fileName;
      case DescriptionColumn:
        return e.definition ? QString::fromStdString(e.definition->op.describe())
                            : tr("Error: %1").arg(e.error);
      case FileColumn:
        return fileName;
    }
  }
  if (role == Qt::ToolTipRole)
    return e.definition ? e.path : e.path + QStringLiteral("\n") + e.error;
  if (role == Qt::ForegroundRole && !e.definition) return QBrush(statusColor(StatusColor::Error));
  return {};
}

QVariant OperatorFileModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case NameColumn:
      return tr("Operator file");
    case DescriptionColumn:
      return tr("Operator");
    case FileColumn:
      return tr("File");
  }
  return {};
}

}  // namespace opevo::ui
