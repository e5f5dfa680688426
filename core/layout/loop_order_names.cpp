#include "layout/loop_order_names.h"

#include "space/perm_param.h"

namespace opevo::layout {
namespace {

// As core/layout defines the permutations' items (MatMulBlocking, Conv2DBlocking).
std::vector<LoopName> loopsOf(OpKind kind, const std::string& name) {
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

std::vector<LoopName> loopOrderNames(OpKind kind, TuningMode mode, const Parameter& param) {
  const auto* perm = dynamic_cast<const PermParam*>(&param);
  if (!perm || !tunesLayouts(mode)) return {};
  std::vector<LoopName> loops = loopsOf(kind, param.name());
  if (loops.size() != static_cast<std::size_t>(perm->items())) return {};
  return loops;
}

std::string loopOrderMeaning(OpKind kind, TuningMode mode, const Parameter& param) {
  const std::vector<LoopName> loops = loopOrderNames(kind, mode, param);
  if (loops.empty()) return {};
  std::string text = "A vertex lists these loops outermost first: ";
  for (std::size_t i = 0; i < loops.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(i) + " = " + std::string(loops[i].name) + " (" +
            std::string(loops[i].walks) + ")";
  }
  return text + ".";
}

}  // namespace opevo::layout
