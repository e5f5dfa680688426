#include "ui/widgets/space_template_box.h"

#include <QSignalBlocker>
#include <QStandardItemModel>
#include <algorithm>
#include <exception>
#include <utility>

#include "common/error.h"

namespace opevo::ui {
namespace {

constexpr std::array kTemplates = {SpaceTemplate::CpuLoops, SpaceTemplate::GpuLoops,
                                   SpaceTemplate::Joint, SpaceTemplate::Winograd,
                                   SpaceTemplate::MatVec};

std::size_t slot(SpaceTemplate t) {
  return static_cast<std::size_t>(t);
}

int row(SpaceTemplate t) {
  return static_cast<int>(t);
}

static_assert(kTemplates.size() == kSpaceTemplates);

}  // namespace

std::optional<SpaceTemplate> parseSpaceTemplate(const QString& key) {
  if (key == QLatin1String("cpu")) return SpaceTemplate::CpuLoops;
  if (key == QLatin1String("gpu")) return SpaceTemplate::GpuLoops;
  if (key == QLatin1String("joint")) return SpaceTemplate::Joint;
  if (key == QLatin1String("winograd")) return SpaceTemplate::Winograd;
  if (key == QLatin1String("matvec")) return SpaceTemplate::MatVec;
  return std::nullopt;
}

SpaceTemplate ownTemplate(const OperatorDefinition& def) {
  if (def.target == SpaceTarget::Winograd) return SpaceTemplate::Winograd;
  if (def.target == SpaceTarget::MatVec || def.target == SpaceTarget::MatVecGpu)
    return SpaceTemplate::MatVec;
  if (layout::tunesLayouts(def.mode)) return SpaceTemplate::Joint;
  return def.target == SpaceTarget::Gpu ? SpaceTemplate::GpuLoops : SpaceTemplate::CpuLoops;
}

OperatorDefinition inTemplate(OperatorDefinition def, SpaceTemplate t) {
  // The mode first where the target changes to a GPU one (layouts are tuned with the common
  // loops only), the target first for the joint space.
  switch (t) {
    case SpaceTemplate::CpuLoops:
      return withSpaceTarget(withTuningMode(std::move(def), layout::TuningMode::Loop),
                             SpaceTarget::Common);
    case SpaceTemplate::GpuLoops:
      return withSpaceTarget(withTuningMode(std::move(def), layout::TuningMode::Loop),
                             SpaceTarget::Gpu);
    case SpaceTemplate::Joint:
      return withTuningMode(withSpaceTarget(std::move(def), SpaceTarget::Common),
                            layout::TuningMode::Joint);
    case SpaceTemplate::Winograd:
      return withSpaceTarget(withTuningMode(std::move(def), layout::TuningMode::Loop),
                             SpaceTarget::Winograd);
    case SpaceTemplate::MatVec:  // with the GPU parameters: the template is the GPUs'
      return withSpaceTarget(withTuningMode(std::move(def), layout::TuningMode::Loop),
                             SpaceTarget::MatVecGpu);
  }
  return def;
}

SpaceTemplateBox::SpaceTemplateBox(const QString& objectName, QWidget* parent) : QComboBox(parent) {
  setObjectName(objectName);
  // Short names: the Topology page's first row holds this box beside four others at 800 pixels.
  addItem(tr("CPU loops (the paper's)"));
  addItem(tr("CUDA/HIP loops"));
  addItem(tr("ALT: layouts and loops"));
  addItem(tr("Winograd (convs)"));
  addItem(tr("Matrix-vector"));
  setToolTip(
      tr("Which of the operator's spaces to show, each template's own parameters: the CPU "
         "template's loops (the paper's space); the CUDA/HIP templates' (split_k besides, and "
         "MatMul's stages); ALT's joint space (each tensor's layout with the loops); Winograd's "
         "template for stride-1 convolutions; the matrix-vector template for products with at "
         "most 16 rows of A and B stored m x k (dense layers at small batches)"));
  clearOperator();
}

void SpaceTemplateBox::setOperator(const OperatorDefinition& def, SpaceTemplate preferred) {
  auto* items = qobject_cast<QStandardItemModel*>(model());
  for (SpaceTemplate t : kTemplates) {
    QString reason;
    try {
      m_spaces[slot(t)] = std::make_shared<const OperatorDefinition>(inTemplate(def, t));
    } catch (const std::exception& e) {  // InputError, or a core bug: either way not offered
      m_spaces[slot(t)].reset();
      reason = QString::fromUtf8(e.what());
    }
    items->item(row(t))->setEnabled(reason.isEmpty());
    setItemData(row(t), reason.isEmpty() ? QVariant() : QVariant(reason), Qt::ToolTipRole);
  }
  const SpaceTemplate chosen = m_spaces[slot(preferred)] ? preferred : ownTemplate(def);
  const QSignalBlocker blocker(this);
  setCurrentIndex(row(chosen));
  setEnabled(true);
}

void SpaceTemplateBox::clearOperator() {
  // The current item stays: the template chosen before is the one preferred for the next
  // operator set.
  m_spaces = {};
  setEnabled(false);
}

void SpaceTemplateBox::prefer(SpaceTemplate t) {
  const QSignalBlocker blocker(this);
  setCurrentIndex(row(t));
}

SpaceTemplate SpaceTemplateBox::current() const {
  return kTemplates[static_cast<std::size_t>(std::max(0, currentIndex()))];
}

bool SpaceTemplateBox::select(SpaceTemplate t) {
  if (!m_spaces[slot(t)]) return false;
  setCurrentIndex(row(t));
  return true;
}

std::shared_ptr<const OperatorDefinition> SpaceTemplateBox::shown() const {
  return m_spaces[static_cast<std::size_t>(std::max(0, currentIndex()))];
}

}  // namespace opevo::ui
