#include "ui/widgets/loop_order_names.h"

#include <QCoreApplication>
#include <QStringList>
#include <utility>
#include <vector>

#include "layout/tuning_mode.h"
#include "space/perm_param.h"

namespace opevo::ui {
namespace {

// A loop's short name (the dimension as the template's parameters name it) and what it walks.
using Loop = std::pair<const char*, const char*>;

// As core/layout defines the permutations' items (MatMulBlocking, Conv2DBlocking): item i of the
// parameter is the i-th loop here, and a vertex lists the items outermost loop first.
std::vector<Loop> loopsOf(OpKind kind, const std::string& name) {
  if (kind == OpKind::Conv2D) {
    if (name == "reduce_order")
      return {{"rc", "input-channel blocks"}, {"ry", "kernel rows"}, {"rx", "kernel columns"}};
    if (name == "tile_order")
      return {
          {"f", "output-channel tiles"}, {"y", "output-row tiles"}, {"x", "output-column tiles"}};
    return {};
  }
  // MatMul and BatchMatMul: n rows of C (and A), m its columns (and B's).
  if (name == "tile_order") return {{"n", "row tiles"}, {"m", "column tiles"}};
  if (name == "reg_order") return {{"n", "register-tile rows"}, {"m", "register-tile columns"}};
  return {};
}

}  // namespace

QString loopOrderMeaning(const OperatorDefinition& shown, const Parameter& param) {
  const auto* perm = dynamic_cast<const PermParam*>(&param);
  if (!perm || !layout::tunesLayouts(shown.mode)) return {};
  const std::vector<Loop> loops = loopsOf(shown.op.kind, param.name());
  if (loops.size() != static_cast<std::size_t>(perm->items())) return {};
  QStringList items;
  for (std::size_t i = 0; i < loops.size(); ++i)
    items << QStringLiteral("%1 = %2 (%3)")
                 .arg(i)
                 .arg(QString::fromLatin1(loops[i].first),
                      QCoreApplication::translate("loopOrder", loops[i].second));
  return QCoreApplication::translate("loopOrder", "A vertex lists these loops outermost first: %1.")
      .arg(items.join(QStringLiteral(", ")));
}

}  // namespace opevo::ui
