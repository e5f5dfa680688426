#pragma once

#include <QComboBox>
#include <array>
#include <memory>
#include <optional>

#include "ops/operator_json.h"

namespace opevo::ui {

// The search spaces one operator has, one per template that tunes it: the loops of the CPU
// template (the paper's space), those of the CUDA/HIP templates (split_k besides, and MatMul's
// stages), ALT's layouts with the loops (joint), Winograd's template (stride-1 Conv2Ds) and the
// matrix-vector one (few rows of A, B stored m x k).
enum class SpaceTemplate { CpuLoops, GpuLoops, Joint, Winograd, MatVec };
inline constexpr std::size_t kSpaceTemplates = 5;

// "cpu", "gpu", "joint", "winograd" or "matvec"; nullopt otherwise.
std::optional<SpaceTemplate> parseSpaceTemplate(const QString& key);
// The template def is tuned in by itself: its target and mode.
SpaceTemplate ownTemplate(const OperatorDefinition& def);
// def's space rebuilt for the template (overrides kept where the space has the parameter);
// InputError naming why where def cannot take it.
OperatorDefinition inTemplate(OperatorDefinition def, SpaceTemplate t);

// The Spaces and Topology pages' choice of template. Each operator set on it has its five spaces
// built at once; an item the operator cannot take is disabled, the reason in its tooltip.
class SpaceTemplateBox : public QComboBox {
  Q_OBJECT

 public:
  explicit SpaceTemplateBox(const QString& objectName, QWidget* parent = nullptr);

  // Builds def's spaces and chooses `preferred` where def takes it, else def's own template.
  // Emits no signal: the caller shows what it set.
  void setOperator(const OperatorDefinition& def, SpaceTemplate preferred);
  // No operator (a custom spec): nothing to choose.
  void clearOperator();
  SpaceTemplate current() const;
  // As the user choosing (emits currentIndexChanged); false where the operator cannot take it.
  bool select(SpaceTemplate t);
  // The template setOperator prefers next, chosen without a signal; shown() is null until then
  // where the current operator cannot take it.
  void prefer(SpaceTemplate t);
  // The current operator in the current template; null when none is set.
  std::shared_ptr<const OperatorDefinition> shown() const;

 private:
  // One per SpaceTemplate, in its order.
  std::array<std::shared_ptr<const OperatorDefinition>, kSpaceTemplates> m_spaces;
};

}  // namespace opevo::ui
