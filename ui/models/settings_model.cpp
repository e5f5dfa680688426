#include "ui/models/settings_model.h"

#include <QBrush>
#include <QColor>

#include "common/error.h"
#include "space/text.h"
#include "ui/widgets/status_colors.h"

namespace opevo::ui {
namespace {

QString text(const std::string& s) {
  return QString::fromStdString(s);
}

QString range(const SettingInfo& s) {
  return QStringLiteral("%1%2, %3%4%5")
      .arg(s.minExclusive ? QStringLiteral("(") : QStringLiteral("["))
      .arg(text(formatNumber(s.min)))
      .arg(text(formatNumber(s.max)))
      .arg(s.maxExclusive ? QStringLiteral(")") : QStringLiteral("]"))
      .arg(s.integer ? QObject::tr(" int") : QString());
}

}  // namespace

SettingsModel::SettingsModel(std::string algorithm, TunerSettings defaults, QObject* parent)
    : QAbstractTableModel(parent),
      m_algorithm(std::move(algorithm)),
      m_defaults(std::move(defaults)) {
  for (const SettingInfo& info : m_defaults.all())
    m_rows.push_back({info, text(formatNumber(info.value)), QString()});
}

QString SettingsModel::check(const SettingInfo& info, const QString& value) const {
  TunerSettings probe = m_defaults;
  try {
    probe.set(m_algorithm, info.name, value.trimmed().toStdString());
  } catch (const InputError& e) {
    return QString::fromUtf8(e.what());
  }
  return {};
}

std::map<std::string, std::string> SettingsModel::changedValues() const {
  std::map<std::string, std::string> values;
  for (const Row& r : m_rows)
    if (r.text.trimmed() != text(formatNumber(r.info.value)))
      values[r.info.name] = r.text.trimmed().toStdString();
  return values;
}

std::map<std::string, std::string> SettingsModel::allValues() const {
  std::map<std::string, std::string> values;
  for (const Row& r : m_rows) values[r.info.name] = r.text.toStdString();
  return values;
}

QStringList SettingsModel::errors() const {
  QStringList list;
  for (const Row& r : m_rows)
    if (!r.error.isEmpty()) list << r.error;
  return list;
}

bool SettingsModel::setValueText(const QString& name, const QString& value) {
  for (std::size_t i = 0; i < m_rows.size(); ++i)
    if (text(m_rows[i].info.name) == name)
      return setData(index(static_cast<int>(i), ValueColumn), value);
  return false;
}

void SettingsModel::restoreDefaults() {
  beginResetModel();
  for (Row& r : m_rows) {
    r.text = text(formatNumber(r.info.value));
    r.error.clear();
  }
  endResetModel();
  emit validityChanged();
}

int SettingsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int SettingsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant SettingsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const Row& r = m_rows[static_cast<std::size_t>(index.row())];
  const bool bad = !r.error.isEmpty();
  switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
      switch (index.column()) {
        case NameColumn:
          return text(r.info.name);
        case ValueColumn:
          return r.text;
        case RangeColumn:
          return range(r.info);
        case HelpColumn:
          return bad ? r.error : text(r.info.help);
        default:
          return {};
      }
    case Qt::ToolTipRole:
      return bad ? r.error : text(r.info.help);
    case Qt::BackgroundRole:
      if (bad && (index.column() == ValueColumn || index.column() == HelpColumn))
        return QBrush(statusColor(StatusColor::ErrorBackground));
      return {};
    case Qt::ForegroundRole:
      if (bad && index.column() != NameColumn) return QBrush(statusColor(StatusColor::Error));
      return {};
    default:
      return {};
  }
}

bool SettingsModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || index.column() != ValueColumn || role != Qt::EditRole) return false;
  Row& r = m_rows[static_cast<std::size_t>(index.row())];
  const bool wasValid = valid();
  r.text = value.toString();
  r.error = check(r.info, r.text);
  emit dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
  if (wasValid != valid() || !r.error.isEmpty()) emit validityChanged();
  return r.error.isEmpty();
}

Qt::ItemFlags SettingsModel::flags(const QModelIndex& index) const {
  Qt::ItemFlags f = QAbstractTableModel::flags(index);
  if (index.isValid() && index.column() == ValueColumn) f |= Qt::ItemIsEditable;
  return f;
}

QVariant SettingsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case NameColumn:
      return tr("Setting");
    case ValueColumn:
      return tr("Value");
    case RangeColumn:
      return tr("Accepted");
    case HelpColumn:
      return tr("Meaning");
    default:
      return {};
  }
}

}  // namespace opevo::ui
