#include "ui/models/network_task_model.h"

#include <cmath>

#include "net/closing_round_text.h"
#include "net/ms_text.h"
#include "ui/widgets/display_format.h"

namespace opevo::ui {

NetworkTaskModel::NetworkTaskModel(QObject* parent) : QAbstractTableModel(parent) {}

void NetworkTaskModel::setTasks(std::vector<NetworkTaskInfo> tasks) {
  bool same = tasks.size() == m_tasks.size();
  for (std::size_t i = 0; same && i < tasks.size(); ++i) same = tasks[i].name == m_tasks[i].name;
  if (same) {
    // The same tasks under other params (batch=2): their shapes, work and weights change, the
    // rows and what was measured for them stay.
    m_tasks = std::move(tasks);
    if (!m_tasks.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    return;
  }
  beginResetModel();
  m_tasks = std::move(tasks);
  m_trials.assign(m_tasks.size(), 0);
  m_bestMs.assign(m_tasks.size(), std::nan(""));
  m_closingFrom.assign(m_tasks.size(), {});
  m_totalMs = 0;
  endResetModel();
}

void NetworkTaskModel::setState(const ContenderState* state) {
  m_trials.assign(m_tasks.size(), 0);
  m_bestMs.assign(m_tasks.size(), std::nan(""));
  m_closingFrom.assign(m_tasks.size(), {});
  if (state && state->taskTrials.size() == m_tasks.size()) {
    m_trials = state->taskTrials;
    m_bestMs = state->taskBestMs;
    for (std::size_t u = 0; u < state->unitClosingFrom.size() && u < state->unitTask.size(); ++u)
      if (const int t = state->unitTask[u]; t >= 0 && t < rowCount())
        for (const std::string& twin : state->unitClosingFrom[u])
          m_closingFrom[static_cast<std::size_t>(t)].push_back(twin);
  }
  m_measuredShares.clear();
  m_totalMs = 0;
  for (std::size_t i = 0; i < m_tasks.size(); ++i)
    if (std::isfinite(m_bestMs[i])) m_totalMs += m_tasks[i].weight * m_bestMs[i];
  if (!m_tasks.empty())
    emit dataChanged(index(0, WeightColumn), index(rowCount() - 1, ColumnCount - 1));
}

void NetworkTaskModel::setMeasuredShares(std::vector<double> shares) {
  if (shares.size() != m_tasks.size()) shares.clear();
  m_measuredShares = std::move(shares);
  if (!m_tasks.empty()) {
    emit dataChanged(index(0, ShareColumn), index(rowCount() - 1, ShareColumn));
    emit headerDataChanged(Qt::Horizontal, ShareColumn, ShareColumn);
  }
}

double NetworkTaskModel::share(int row) const {
  if (row < 0 || row >= rowCount()) return std::nan("");
  if (!m_measuredShares.empty()) return m_measuredShares[static_cast<std::size_t>(row)];
  if (!std::isfinite(m_bestMs[row]) || m_totalMs <= 0) return std::nan("");
  return m_tasks[row].weight * m_bestMs[row] / m_totalMs;
}

int NetworkTaskModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_tasks.size());
}

int NetworkTaskModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant NetworkTaskModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const NetworkTaskInfo& t = m_tasks[index.row()];
  const double best = m_bestMs[index.row()];
  const double s = share(index.row());
  if (role == RawRole) {
    switch (index.column()) {
      case TaskColumn:
        return t.name;
      case KindColumn:
        return t.kind;
      case ShapeColumn:
        return t.shape;
      case WeightColumn:
        return t.weight;
      case FlopColumn:
        return t.gflops;
      case TrialsColumn:
        return m_trials[index.row()];
      case BestColumn:
        return std::isfinite(best) ? best : -1.0;
      case ShareColumn:
        return std::isfinite(s) ? s : -1.0;
    }
    return {};
  }
  if (role == Qt::TextAlignmentRole)
    return index.column() >= WeightColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                          : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  // The whole name too: a narrow table elides it ("layer2.…ple.conv").
  if (role == Qt::ToolTipRole && index.column() == TaskColumn)
    return tr("%1, runs at: %2").arg(t.name, t.layers.join(QStringLiteral(", ")));
  // A task measured with no working kernel runs on its template's untuned configuration when
  // the network runs end to end: "–" alone read as if it had not run.
  if (role == Qt::ToolTipRole && index.column() == BestColumn && !std::isfinite(best) &&
      m_trials[index.row()] > 0)
    return tr("No working kernel in its %1 trials: the network runs its untuned configuration")
        .arg(m_trials[index.row()]);
  const std::vector<std::string>& closing = m_closingFrom[static_cast<std::size_t>(index.row())];
  // Trials of the twins' closing round: its twins' final bests, measured after the scheduler's
  // units (`opevo net runs ID`: "closing round: a 1 from twin b").
  if (role == Qt::ToolTipRole && index.column() == TrialsColumn && !closing.empty())
    return tr("Closing round: %1 (%2 of its %3 trials measured its twins' final best "
              "configurations, after the scheduler's units)")
        .arg(QString::fromStdString(net::closingRoundText({{t.name.toStdString(), closing}})))
        .arg(closing.size())
        .arg(m_trials[index.row()]);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case TaskColumn:
      return t.name;
    case KindColumn:
      return t.kind;
    case ShapeColumn:
      return t.shape;
    case WeightColumn:
      return QString::number(t.weight, 'f', 0);
    case FlopColumn:
      return formatWithPrefix(t.gflops * 1e9);
    case TrialsColumn:
      if (!closing.empty())
        return tr("%1 (%2 closing)").arg(m_trials[index.row()]).arg(closing.size());
      return m_trials[index.row()];
    case BestColumn:
      return std::isfinite(best) ? QString::fromStdString(net::msText(best)) : tr("–");
    case ShareColumn:
      return std::isfinite(s) ? QString::number(100 * s, 'f', 1) + " %" : tr("–");
  }
  return {};
}

QVariant NetworkTaskModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == FlopColumn)
    return tr(
        "Floating-point operations of one occurrence of the task (Weight counts them), with "
        "its SI prefix: k thousand, M million, G billion");
  if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == ShareColumn)
    return sharesMeasured()
               ? tr("Share of the network's latency measured end to end (every occurrence of "
                    "the task; the fixed layers take the rest), as on the graph")
               : tr("Share of the tuned tasks' estimate: weight x best ms over the sum of the "
                    "tasks with a working configuration so far (each timed alone)");
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case TaskColumn:
      return tr("Task");
    case KindColumn:
      return tr("Kind");
    case ShapeColumn:
      return tr("Output");
    case WeightColumn:
      return tr("Weight");
    case FlopColumn:
      return tr("FLOP");
    case TrialsColumn:
      return tr("Trials");
    case BestColumn:
      return tr("Best ms");
    case ShareColumn:
      return sharesMeasured() ? tr("Share") : tr("Share (est.)");
  }
  return {};
}

}  // namespace opevo::ui
