#include "layout/operand_layouts.h"

#include "layout/conv2d_layout.h"
#include "layout/matmul_layout.h"

namespace opevo::layout {

std::array<std::string, 3> operandNames(const OperatorSpec& op) {
  if (op.kind == OpKind::Conv2D) return {"input", "weight", "output"};
  return {"a", "b", "c"};
}

SearchSpace layoutSpace(const OperatorSpec& op) {
  return op.kind == OpKind::Conv2D ? conv2dLayoutSpace(op) : matmulLayoutSpace(op);
}

OperandLayouts operandLayouts(const OperatorSpec& op, const SearchSpace& space, const Config& c) {
  if (op.kind == OpKind::Conv2D) return conv2dLayouts(op, conv2dBlocking(op, space, c));
  return matmulLayouts(op, matmulBlocking(op, space, c));
}

bool isLayoutParameter(const std::string& name) {
  return name.rfind("layout.", 0) == 0;
}

bool isLayoutSpace(const SearchSpace& space) {
  for (std::size_t i = 0; i < space.dims(); ++i)
    if (isLayoutParameter(space.param(i).name())) return true;
  return false;
}

}  // namespace opevo::layout
