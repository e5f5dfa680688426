#include "ui/models/kas_candidate_model.h"

#include <QColor>
#include <QFont>
#include <QFontDatabase>

#include "kas/candidate_front.h"
#include "kas/share_text.h"
#include "ui/widgets/status_colors.h"

namespace opevo::ui {
namespace {

QString stageText(const KasCandidateRow& c) {
  if (kas::trainingDiverged(c)) return KasCandidateModel::tr("diverged");
  return QString::fromUtf8(kasStageNames().name(c.stage).data());
}

}  // namespace

KasCandidateModel::KasCandidateModel(QObject* parent) : QAbstractTableModel(parent) {}

void KasCandidateModel::clear() {
  beginResetModel();
  m_searchId = -1;
  m_rows.clear();
  m_front.clear();
  endResetModel();
}

void KasCandidateModel::setSnapshot(const KasSnapshot& s) {
  if (s.convolutionBasis != m_convolutionBasis) {
    m_convolutionBasis = s.convolutionBasis;
    emit headerDataChanged(Qt::Horizontal, ConvMsColumn, ConvMsColumn);
  }
  const std::vector<int> front = kas::frontSeqs(kasCandidates(s));
  const std::set<int> frontSet(front.begin(), front.end());
  // Rows keep their candidates only while they are the same search's, in the same order.
  bool same = s.searchId == m_searchId && s.candidates.size() >= m_rows.size();
  for (std::size_t i = 0; same && i < m_rows.size(); ++i)
    same = s.candidates[i]->seq == m_rows[i]->seq;
  if (!same) {
    beginResetModel();
    m_searchId = s.searchId;
    m_rows = s.candidates;
    m_front = frontSet;
    endResetModel();
    return;
  }
  const bool frontMoved = frontSet != m_front;
  m_front = frontSet;
  for (std::size_t i = 0; i < m_rows.size(); ++i)
    if (s.candidates[i] != m_rows[i] || frontMoved) {
      m_rows[i] = s.candidates[i];
      const int r = static_cast<int>(i);
      emit dataChanged(index(r, 0), index(r, ColumnCount - 1));
    }
  if (s.candidates.size() > m_rows.size()) {
    beginInsertRows({}, rowCount(), static_cast<int>(s.candidates.size()) - 1);
    m_rows.insert(m_rows.end(), s.candidates.begin() + static_cast<long>(m_rows.size()),
                  s.candidates.end());
    endInsertRows();
  }
}

int KasCandidateModel::rowOf(int seq) const {
  for (std::size_t i = 0; i < m_rows.size(); ++i)
    if (m_rows[i]->seq == seq) return static_cast<int>(i);
  return -1;
}

QString KasCandidateModel::note(const KasCandidateRow& c) const {
  QStringList parts;
  if (onFront(c.seq)) parts << tr("Pareto");
  if (c.stoppedEarly) parts << tr("stopped early");
  if (!c.message.empty()) parts << QString::fromStdString(c.message);
  return parts.join(QStringLiteral(", "));
}

int KasCandidateModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int KasCandidateModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant KasCandidateModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const KasCandidateRow& c = *m_rows[index.row()];
  const int col = index.column();
  if (role == Qt::TextAlignmentRole)
    return col == HashColumn || col >= StageColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole && c.stage == KasStage::Failed)
    return statusColor(StatusColor::Error);
  // Trained, but its accuracy is that of a broken model: marked apart from the kernels that learnt.
  if (role == Qt::ForegroundRole && col == StageColumn && kas::trainingDiverged(c))
    return statusColor(StatusColor::Warning);
  if (role == Qt::FontRole) {
    if (col != HashColumn && !onFront(c.seq)) return {};
    // Hashes line up in a fixed font; the front's rows stand out as the chart's do.
    QFont font = col == HashColumn ? QFontDatabase::systemFont(QFontDatabase::FixedFont) : QFont();
    font.setBold(onFront(c.seq));
    return font;
  }
  if (role == Qt::ToolTipRole) {
    if (col == NoteColumn || col == StageColumn) return note(c);
    if (col == HashColumn) return tr("Kernel %1").arg(QString::fromStdString(c.hash));
    if (col == FlopsColumn)
      return tr("%1 of the FLOPs and %2 of the weights of the convolutions, at G=%3")
          .arg(QString::fromStdString(kas::shareText(c.flopsRatio)),
               QString::fromStdString(kas::shareText(c.paramsRatio)))
          .arg(c.groups);
    if (col == KernelMsColumn)
      return tr("The replaced layers of the network, summed with their counts");
    if (col == ConvMsColumn)
      return m_convolutionBasis.isEmpty()
                 ? tr("The replaced layers of the network, summed with their counts; timed "
                      "beside this kernel (a search stored before the figures were shared)")
                 : m_convolutionBasis;
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  const QString none = QStringLiteral("–");
  switch (col) {
    case SeqColumn:
      return c.seq;
    case HashColumn:
      return QString::fromStdString(c.hash.substr(0, 8));  // as git abbreviates; tooltip in full
    case GroupsColumn:
      return static_cast<qlonglong>(c.groups);
    case FlopsColumn:  // as the CLI prints it: a kernel far under its budget never reads 0%
      return QString::fromStdString(kas::shareText(c.flopsRatio));
    case KernelMsColumn:
      return c.kernelMs ? QString::number(*c.kernelMs, 'f', 3) : none;
    case ConvMsColumn:
      return c.convMs ? QString::number(*c.convMs, 'f', 3) : none;
    case SpeedupColumn:
      return c.speedup() ? QString::number(*c.speedup(), 'f', 2) + QStringLiteral("×") : none;
    case AccuracyColumn:
      if (!c.accuracy) return none;
      // A diverged model's accuracy is chance's (10 % on ten classes), not the kernel's: said in
      // the cell, where it read as a figure above the baseline's.
      return kas::trainingDiverged(c)
                 ? tr("%1 % (chance)").arg(QString::number(*c.accuracy * 100, 'f', 2))
                 : QString::number(*c.accuracy * 100, 'f', 2) + QStringLiteral(" %");
    case StageColumn:
      return stageText(c);
    case NoteColumn:
      return note(c);
  }
  return {};
}

QVariant KasCandidateModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case GroupsColumn:
        return tr(
            "The group count G the kernel's sizes were solved with: drawn per kernel by the "
            "search's seed (opevo kas sample with the same seed and budget gives it the same G; "
            "opevo kas search --groups fixes it)");
      case FlopsColumn:
        return tr("The kernel's FLOPs as a share of the convolutions' it replaces");
      case ConvMsColumn:
        return m_convolutionBasis.isEmpty()
                   ? tr("The convolutions the kernel replaces, timed beside it")
                   : m_convolutionBasis;
      case SpeedupColumn:
        return tr("Convolution time over kernel time (higher is faster)");
      case AccuracyColumn:
        return tr("Test accuracy of the backbone trained with the kernel in place");
    }
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case SeqColumn:
      return tr("#");
    case HashColumn:
      return tr("Kernel");
    case GroupsColumn:
      return tr("G");
    case FlopsColumn:
      return tr("FLOPs");
    case KernelMsColumn:
      return tr("Kernel ms");
    case ConvMsColumn:
      return tr("Conv ms");
    case SpeedupColumn:
      return tr("Speed-up");
    case AccuracyColumn:
      return tr("Accuracy");
    case StageColumn:
      return tr("Stage");
    case NoteColumn:
      return tr("Note");
  }
  return {};
}

}  // namespace opevo::ui
