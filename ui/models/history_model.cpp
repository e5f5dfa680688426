#include "ui/models/history_model.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QTextDocument>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "engine/speed_unit.h"
#include "io/run_import.h"
#include "layout/tuning_mode.h"
#include "ui/controller/resumed_race.h"
#include "ui/widgets/display_format.h"
#include "ui/widgets/status_colors.h"

namespace opevo::ui {
namespace {

QDateTime startOf(const std::string& iso) {
  return QDateTime::fromString(QString::fromStdString(iso), Qt::ISODateWithMs);
}

QString localTime(const std::string& iso) {
  const QDateTime t = startOf(iso);
  return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                     : QString::fromStdString(iso);
}

// {"trials":200,"seconds":30} -> "200 trials, 30 s"
QString budgetText(const std::string& json) {
  if (!nlohmann::json::parse(json, nullptr, false).is_object()) return QString::fromStdString(json);
  const StoredBudget budget = storedBudgetOf(json);
  QStringList parts;
  if (budget.trials) parts << QObject::tr("%1 trials").arg(*budget.trials);
  if (budget.seconds) parts << QObject::tr("%1 s").arg(*budget.seconds);
  if (budget.target) parts << QObject::tr("target %1").arg(*budget.target);
  return parts.join(QStringLiteral(", "));
}

// Text in natural order, case aside: "200 trials" before "1000 trials", "MM2" before "MM10".
// Written out, not QCollator's numeric mode, which the C locale (a bare session, the tests)
// ignores. Negative: a first.
int naturalCompare(const QString& a, const QString& b) {
  qsizetype i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].isDigit() && b[j].isDigit()) {
      // A run of digits against a run of digits: by value (no leading zeros, then length, then
      // digits), so any count of digits compares.
      while (i < a.size() && a[i] == QLatin1Char('0')) ++i;
      while (j < b.size() && b[j] == QLatin1Char('0')) ++j;
      qsizetype endA = i, endB = j;
      while (endA < a.size() && a[endA].isDigit()) ++endA;
      while (endB < b.size() && b[endB].isDigit()) ++endB;
      if (endA - i != endB - j) return endA - i < endB - j ? -1 : 1;
      if (const int c = QStringView(a).mid(i, endA - i).compare(QStringView(b).mid(j, endB - j)))
        return c;
      i = endA;
      j = endB;
      continue;
    }
    const QChar x = a[i].toCaseFolded(), y = b[j].toCaseFolded();
    if (x != y) return x < y ? -1 : 1;
    ++i;
    ++j;
  }
  return (a.size() - i > 0) - (b.size() - j > 0);
}

// Whether a's key goes before b's, ascending: empty first, text in natural order, anything else
// as Qt compares its type.
bool keyBefore(const QVariant& a, const QVariant& b) {
  if (!a.isValid() || !b.isValid()) return !a.isValid() && b.isValid();
  if (a.typeId() == QMetaType::QString && b.typeId() == QMetaType::QString)
    return naturalCompare(a.toString(), b.toString()) < 0;
  return QVariant::compare(a, b) == QPartialOrdering::Less;
}

}  // namespace

HistoryModel::HistoryModel(QObject* parent) : QAbstractTableModel(parent) {}

void HistoryModel::setRuns(const std::vector<RunRecord>& runs,
                           const std::map<std::int64_t, RunTally>& tallies,
                           const std::map<std::int64_t, QString>& networks) {
  beginResetModel();
  m_rows.clear();
  m_tallied = !tallies.empty();
  for (const RunRecord& run : runs) {
    Row row;
    row.run = run;
    row.label = QString::fromStdString(run.label.empty() ? run.operatorName : run.label);
    if (const auto t = tallies.find(run.id); t != tallies.end()) row.tally = t->second;
    if (const auto n = networks.find(run.id); n != networks.end()) row.network = n->second;
    m_rows.push_back(std::move(row));
  }
  sortRows();
  endResetModel();
}

int HistoryModel::newestWithTrials() const {
  int newest = -1;
  for (std::size_t r = 0; r < m_rows.size(); ++r)
    if (m_rows[r].tally.trials > 0 &&
        (newest < 0 || m_rows[r].run.id > m_rows[static_cast<std::size_t>(newest)].run.id))
      newest = static_cast<int>(r);
  return newest;
}

void HistoryModel::sort(int column, Qt::SortOrder order) {
  // -1 (a header's indicator cleared): as listed at first, newest first.
  m_sortColumn = column >= 0 && column < ColumnCount ? column : IdColumn;
  m_sortOrder = column >= 0 && column < ColumnCount ? order : Qt::DescendingOrder;
  emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
  // Each persistent index follows its run (ids are unique) to the run's new row.
  const QModelIndexList before = persistentIndexList();
  std::vector<std::int64_t> runOf;
  for (const QModelIndex& index : before) runOf.push_back(row(index.row()).run.id);
  sortRows();
  std::unordered_map<std::int64_t, int> rowOf;
  for (std::size_t r = 0; r < m_rows.size(); ++r) rowOf[m_rows[r].run.id] = static_cast<int>(r);
  QModelIndexList after;
  for (qsizetype i = 0; i < before.size(); ++i)
    after << createIndex(rowOf.at(runOf[static_cast<std::size_t>(i)]), before[i].column());
  changePersistentIndexList(before, after);
  emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

void HistoryModel::sortRows() {
  // Keys computed once, not twice per comparison: a date parse and a budget's JSON are not cheap
  // against thousands of runs.
  std::vector<std::pair<QVariant, std::size_t>> keys;
  for (std::size_t r = 0; r < m_rows.size(); ++r)
    keys.emplace_back(data(createIndex(static_cast<int>(r), m_sortColumn), SortRole), r);
  const bool ascending = m_sortOrder == Qt::AscendingOrder;
  std::sort(keys.begin(), keys.end(), [&](const auto& a, const auto& b) {
    if (keyBefore(a.first, b.first)) return ascending;
    if (keyBefore(b.first, a.first)) return !ascending;
    return m_rows[a.second].run.id > m_rows[b.second].run.id;  // ties: newest first, both ways
  });
  std::vector<Row> sorted;
  sorted.reserve(m_rows.size());
  for (const auto& key : keys) sorted.push_back(std::move(m_rows[key.second]));
  m_rows = std::move(sorted);
}

int HistoryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int HistoryModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant HistoryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const Row& r = m_rows[static_cast<std::size_t>(index.row())];
  if (role == SortRole) {
    switch (index.column()) {
      case IdColumn:
        return static_cast<qlonglong>(r.run.id);
      case StartedColumn: {
        const QDateTime t = startOf(r.run.started);
        return t.isValid() ? QVariant(t) : QVariant(QString::fromStdString(r.run.started));
      }
      case BestColumn: {
        if (!r.tally.best) return {};
        // In FLOP/s where the unit is a FLOP rate: a CPU run's 40 GFLOP/s sorted above a GPU
        // run's 12 TFLOPS by the bare number.
        const double scale = flopsPerSecondIn(r.run.speedUnit);
        return scale > 0 ? *r.tally.best * scale : *r.tally.best;
      }
      default:
        return data(index, Qt::DisplayRole);  // numbers (repeat, seed, trials) and text
    }
  }
  if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
    switch (index.column()) {
      case IdColumn:
        return static_cast<qlonglong>(r.run.id);
      case StartedColumn:
        return localTime(r.run.started);
      case AlgorithmColumn:
        // An imported run of ours names the tuner that measured it ("opevo-m (imported)").
        return QString::fromStdString(measuredBy(r.run));
      case RepeatColumn:
        return r.run.raceId == 0 ? QVariant() : QVariant(r.run.raceRepeat + 1);
      case SeedColumn:
        // What the run's tuner was seeded with: the same seed proposes the same trials again. An
        // imported file that names none: unknown ("-"), not 0.
        if (const std::optional<std::uint64_t> seed = knownSeed(r.run))
          return static_cast<qulonglong>(*seed);
        return QStringLiteral("-");
      case ModeColumn:
        return QString::fromStdString(layout::runModeName(r.run.operatorJson));
      case OperatorColumn: {
        // A network's task: which network run it tuned for.
        const QString name = QString::fromStdString(r.run.operatorName);
        if (role == Qt::ToolTipRole)
          return r.network.isEmpty() ? r.label : tr("%1, a task of %2").arg(r.label, r.network);
        return r.network.isEmpty() ? name : tr("%1 (%2)").arg(name, r.network);
      }
      case MeasuredOnColumn: {
        // A replay's device is its dataset's label ("replay of X.json.gz (GPU, real
        // measurements)"): where the numbers come from. The cell shows it up to its
        // parenthesis, the tooltip whole: the whole label took 490 pixels at 1280 and pushed
        // Best and Status out of view.
        const QString device = QString::fromStdString(r.run.device);
        const qsizetype paren = device.indexOf(QLatin1String(" ("));
        return role == Qt::ToolTipRole || !device.startsWith(QLatin1String("replay")) || paren < 0
                   ? device
                   : device.left(paren);
      }
      case BudgetColumn:
        // A network's task shares the network's budget: its own is what the scheduler gave it.
        return r.network.isEmpty() ? budgetText(r.run.budgetJson) : tr("the network's");
      case TrialsColumn:
        return r.tally.trials;
      case BestColumn:
        // As the Runs page and the trials table write a speed: %g wrote 1.364e+04 beside 9470.
        if (!r.tally.best) return QVariant();
        return QStringLiteral("%1 %2").arg(formatSpeed(*r.tally.best),
                                           QString::fromStdString(r.run.speedUnit));
      case StatusColumn:
        // The page reads statuses as they stand (LiveStatus): running is being tuned now.
        if (r.run.status == RunStatus::Running)
          return role == Qt::ToolTipRole
                     ? tr("Being tuned now, by this window or another program. Its trials are "
                          "stored as they come.")
                     : tr("running");
        // Why a run failed (or was stopped by another run's failure), where the list has room
        // for no more than "failed": its stored failure, whole, when pointed at.
        // As plain text: a compiler's "<stdin>:3: error" read as a tag lost its start.
        if (role == Qt::ToolTipRole && !r.run.failure.empty())
          return Qt::convertFromPlainText(tr("%1: %2").arg(
              QString::fromStdString(runStatusText(r.run)), QString::fromStdString(r.run.failure)));
        // A network's task its budget never reached: why, where it reads "finished, no trial".
        if (role == Qt::ToolTipRole && r.run.status == RunStatus::Finished && r.tally.trials == 0 &&
            !r.network.isEmpty())
          return tr("%1 spent its trials on other tasks: this one ran its default configuration "
                    "in the network's end-to-end time")
              .arg(r.network);
        return QString::fromStdString(m_tallied ? runStatusText(r.run, r.tally.trials)
                                                : runStatusText(r.run));
      default:
        return {};
    }
  }
  if (role == Qt::ForegroundRole && index.column() == StatusColumn &&
      r.run.status != RunStatus::Finished)
    return QBrush(statusColor(StatusColor::Warning));
  return {};
}

QVariant HistoryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case IdColumn:
      return tr("Run");
    case StartedColumn:
      return tr("Started");
    case AlgorithmColumn:
      return tr("Algorithm");
    case RepeatColumn:
      return tr("Repeat");
    case SeedColumn:
      return tr("Seed");
    case OperatorColumn:
      return tr("Operator");
    case ModeColumn:
      return tr("Mode");
    case MeasuredOnColumn:
      return tr("Measured on");
    case BudgetColumn:
      return tr("Budget");
    case TrialsColumn:
      return tr("Trials");
    case BestColumn:
      return tr("Best");
    case StatusColumn:
      return tr("Status");
    default:
      return {};
  }
}

}  // namespace opevo::ui
