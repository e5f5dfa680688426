#include "ui/models/operator_file_model.h"

#include <QBrush>
#include <QColor>
#include <QDir>
#include <QFileInfo>
#include <exception>

#include "store/store.h"
#include "ui/widgets/status_colors.h"

namespace opevo::ui {

QString operatorsDirectory() {
  const QString fromEnv = qEnvironmentVariable("OPEVO_OPERATORS_DIR");
  if (!fromEnv.isEmpty()) return QDir(fromEnv).absolutePath();
  // Beside the database (~/.local/share/opevo-studio), so all the user's data is in one folder
  // and `opevo tune --op` finds the files where the README says they are.
  return QFileInfo(QString::fromStdString(Store::defaultPath()))
      .dir()
      .filePath(QStringLiteral("operators"));
}

OperatorFileModel::OperatorFileModel(QObject* parent) : QAbstractTableModel(parent) {}

OperatorFileModel::Entry OperatorFileModel::load(const QString& path) {
  Entry e{path, nullptr, {}};
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
