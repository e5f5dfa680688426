#include "ui/models/kas_search_model.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "kas/candidate_front.h"
#include "store/live_status.h"
#include "store/store.h"

namespace opevo::ui {

std::vector<KasSearchSummary> readKasSearches(const Store& store) {
  std::vector<KasSearchSummary> out;
  const LiveStatus live(store);
  for (KasSearchRecord& r : store.kasSearches()) {
    // As it stands: a search whose program died (kill -9) reads as interrupted, and resumes.
    r.status = live.of(r);
    KasSearchSummary s;
    for (const KasCandidateRow& c : store.kasCandidates(r.id)) {
      ++s.candidates;
      s.trained += c.stage == KasStage::Trained;
    }
    const auto settings = nlohmann::json::parse(r.settingsJson, nullptr, false);
    if (settings.is_object() && settings.contains("candidates") &&
        settings["candidates"].is_number_integer())
      s.wanted = settings["candidates"].get<int>();
    s.baselineAccuracy = kas::baselineAccuracy(r);  // as `opevo kas searches` reads it
    s.record = std::move(r);
    out.push_back(std::move(s));
  }
  return out;
}

KasSearchModel::KasSearchModel(QObject* parent) : QAbstractTableModel(parent) {}

void KasSearchModel::setSearches(std::vector<KasSearchSummary> searches) {
  std::sort(searches.begin(), searches.end(),
            [](const auto& a, const auto& b) { return a.record.id > b.record.id; });
  beginResetModel();
  m_rows = std::move(searches);
  endResetModel();
}

int KasSearchModel::rowOf(std::int64_t id) const {
  for (std::size_t i = 0; i < m_rows.size(); ++i)
    if (m_rows[i].record.id == id) return static_cast<int>(i);
  return -1;
}

void KasSearchModel::updateLive(const KasSnapshot& live) {
  const int row = rowOf(live.searchId);
  if (row < 0) return;
  KasSearchSummary& s = m_rows[static_cast<std::size_t>(row)];
  s.candidates = static_cast<int>(live.candidates.size());
  s.trained = static_cast<int>(
      std::count_if(live.candidates.begin(), live.candidates.end(),
                    [](const KasCandidatePtr& c) { return c->stage == KasStage::Trained; }));
  s.wanted = live.wanted;
  s.baselineAccuracy = live.baselineAccuracy;
  s.record.status = live.status;
  emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

int KasSearchModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int KasSearchModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant KasSearchModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const KasSearchSummary& s = m_rows[index.row()];
  if (role == Qt::ToolTipRole)
    return tr("Kernel search %1 on %2, started %3%4")
        .arg(s.record.id)
        .arg(QString::fromStdString(s.record.network), QString::fromStdString(s.record.started),
             s.record.ended.empty() ? QString()
                                    : tr(", ended %1").arg(QString::fromStdString(s.record.ended)));
  if (role == Qt::TextAlignmentRole)
    return index.column() == StatusColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                          : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case IdColumn:
      return static_cast<qlonglong>(s.record.id);
    case StatusColumn:
      return QString::fromUtf8(runStatusName(s.record.status).data());
    case KernelsColumn:
      return s.wanted > 0 ? tr("%1/%2/%3").arg(s.trained).arg(s.candidates).arg(s.wanted)
                          : tr("%1/%2").arg(s.trained).arg(s.candidates);
    case BaselineColumn:
      return s.baselineAccuracy ? QString::number(*s.baselineAccuracy * 100, 'f', 1) + "%"
                                : QStringLiteral("–");
  }
  return {};
}

QVariant KasSearchModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && section == KernelsColumn)
    return tr("Kernels trained / evaluated / asked for");
  if (role == Qt::ToolTipRole && section == BaselineColumn)
    return tr("Accuracy of the backbone with its standard convolutions");
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case IdColumn:
      return tr("#");
    case StatusColumn:
      return tr("Status");
    case KernelsColumn:
      return tr("Kernels");
    case BaselineColumn:
      return tr("Baseline");
  }
  return {};
}

}  // namespace opevo::ui
