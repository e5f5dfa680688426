#include "ui/models/trials_model.h"

#include <QBrush>
#include <QColor>
#include <QLocale>
#include <algorithm>
#include <cmath>

#include "ui/controller/race_data.h"
#include "ui/widgets/display_format.h"
#include "ui/widgets/status_colors.h"

namespace opevo::ui {
namespace {}  // namespace

TrialsModel::TrialsModel(RaceData* data, QObject* parent)
    : QAbstractTableModel(parent), m_data(data) {
  connect(m_data, &RaceData::aboutToReset, this, [this] { beginResetModel(); });
  connect(m_data, &RaceData::wasReset, this, [this] {
    m_rows = static_cast<int>(m_data->trials().size());
    endResetModel();
  });
  connect(m_data, &RaceData::trialsAppended, this, [this](int, int last) {
    if (last < m_rows) return;
    beginInsertRows({}, m_rows, last);
    m_rows = last + 1;
    endInsertRows();
  });
  connect(m_data, &RaceData::aboutToDropTrials, this,
          [this](int count) { beginRemoveRows({}, 0, count - 1); });
  connect(m_data, &RaceData::trialsDropped, this, [this](int count) {
    m_rows -= count;
    endRemoveRows();
  });
  m_rows = static_cast<int>(m_data->trials().size());
}

int TrialsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : m_rows;
}

int TrialsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant TrialsModel::data(const QModelIndex& index, int role) const {
  // The row count lags the data only between a drop's two signals.
  if (!index.isValid() || index.row() >= m_rows ||
      index.row() >= static_cast<int>(m_data->trials().size()))
    return {};
  const TrialPoint& t = m_data->trials()[static_cast<std::size_t>(index.row())];
  const bool ok = t.status == TrialStatus::Ok;
  if (role == Qt::DisplayRole || role == RawRole || role == Qt::ToolTipRole) {
    const bool raw = role == RawRole;
    switch (index.column()) {
      case OrderColumn:
        return static_cast<qlonglong>(t.order);
      case AlgorithmColumn:
        return m_data->info().algorithms.value(t.algorithm);
      case RepeatColumn:
        return t.repeat + 1;
      case TrialColumn:
        return t.seq;
      case ConfigColumn:
        return t.config;
      case StatusColumn:
        return QString::fromUtf8(statusName(t.status).data(),
                                 static_cast<qsizetype>(statusName(t.status).size()));
      case ReasonColumn:
        return t.message;
      case SpeedColumn:
        if (raw) return t.speed;
        // Which of a cluster's agents timed it: an odd timing is traced to its node.
        if (role == Qt::ToolTipRole && !t.agent.isEmpty())
          return ok ? tr("%1, measured by %2").arg(formatSpeed(t.speed), t.agent)
                    : tr("measured by %1").arg(t.agent);
        return ok ? formatSpeed(t.speed) : QString();
      case BestColumn:
        return raw ? QVariant(t.best) : formatSpeed(t.best);
      case TimeColumn: {
        // The chart's time (RaceData::clock): beside a chart of device time by the file, the
        // replay's own bookkeeping (0.023 s) read as what the trials cost.
        const double seconds = t.deviceSeconds.value_or(t.seconds);
        return raw ? QVariant(seconds) : QString::number(seconds, 'f', 3);
      }
      default:
        return {};
    }
  }
  if (role == Qt::TextAlignmentRole) {
    const int c = index.column();
    if (c == OrderColumn || c == RepeatColumn || c == TrialColumn || c == SpeedColumn ||
        c == BestColumn || c == TimeColumn)
      return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role == Qt::ForegroundRole && !ok &&
      (index.column() == StatusColumn || index.column() == ReasonColumn))
    return QBrush(statusColor(StatusColor::Error));
  return {};
}

QVariant TrialsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && (section == SpeedColumn || section == BestColumn))
    return tr("In %1, the dataset's unit").arg(m_data->info().speedUnit);
  if (role == Qt::ToolTipRole && section == ReasonColumn)
    return tr(
        "Why a trial failed, or how a working one was timed (one run alone, when it was "
        "far slower than the fastest so far)");
  if (role == Qt::ToolTipRole && section == TimeColumn)
    return tr("The run's %1 at this trial, as on the chart against time")
        .arg(clockName(m_data->clock()));
  if (role == Qt::ToolTipRole && section == OrderColumn)
    return tr("The order in which the engine measured the trials: the runs of a race take turns");
  if (role != Qt::DisplayRole) return {};
  static const char* const names[] = {
      QT_TR_NOOP("#"),     QT_TR_NOOP("Algorithm"),    QT_TR_NOOP("Repeat"),   QT_TR_NOOP("Trial"),
      QT_TR_NOOP("Speed"), QT_TR_NOOP("Best"),         QT_TR_NOOP("Time (s)"), QT_TR_NOOP("Status"),
      QT_TR_NOOP("Note"),  QT_TR_NOOP("Configuration")};
  if (section < 0 || section >= ColumnCount) return {};
  // The unit is in the header's tooltip and on the chart: in the header it would crowd out the
  // configuration column.
  return tr(names[section]);
}

TrialsFilterModel::TrialsFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(TrialsModel::RawRole);
  setFilterCaseSensitivity(Qt::CaseInsensitive);
  setFilterKeyColumn(-1);
}

void TrialsFilterModel::setFilter(int column, const QString& text) {
  setFilterKeyColumn(column);
  setFilterFixedString(text);
}

QString trialsCaption(long long raceTrials, long long tableRows, long long filteredRows) {
  const QLocale locale;
  const auto n = [&](long long v) { return locale.toString(v); };
  const bool all = tableRows >= raceTrials;
  QString text = all ? QObject::tr("%1 trials").arg(n(raceTrials))
                     : QObject::tr("the latest %1 of %2 trials").arg(n(tableRows), n(raceTrials));
  if (filteredRows != tableRows) text += QObject::tr("; filter: %1 of them").arg(n(filteredRows));
  // The table keeps the latest trials; the store (History, the CSV export) has them all.
  if (!all) text += QObject::tr(" (the CSV export has them all)");
  return text;
}

}  // namespace opevo::ui
