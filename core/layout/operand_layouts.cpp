#include "layout/operand_layouts.h"

#include <algorithm>

#include "common/error.h"
#include "layout/conv2d_layout.h"
#include "layout/matmul_layout.h"

namespace opevo::layout {

std::array<std::string, 3> operandNames(const OperatorSpec& op) {
  if (op.kind == OpKind::Conv2D) return {"input", "weight", "output"};
  return {"a", "b", "c"};
}

SearchSpace layoutSpace(const OperatorSpec& op, StartDevice device) {
  return op.kind == OpKind::Conv2D ? conv2dLayoutSpace(op, device) : matmulLayoutSpace(op, device);
}

OperandLayouts operandLayouts(const OperatorSpec& op, const SearchSpace& space, const Config& c) {
  if (op.kind == OpKind::Conv2D) return conv2dLayouts(op, conv2dBlocking(op, space, c));
  return matmulLayouts(op, matmulBlocking(op, space, c));
}

std::int64_t tileOf(const SearchSpace& space, const Config& c, const char* name,
                    std::int64_t length) {
  const int i = space.indexOf(name);
  if (i < 0)
    throw InputError(std::string("layout template: the space has no parameter '") + name + "'");
  const Vertex& v = c.at(static_cast<std::size_t>(i));
  if (v.size() != 2 || v[0] < 1 || v[1] < 1 || v[0] * v[1] != length)
    throw InputError(std::string("layout template: '") + name + "' must be two factors of " +
                     std::to_string(length) + ", got " + space.param(i).format(v));
  return v[1];
}

std::int64_t divisorUpTo(std::int64_t n, std::int64_t limit) {
  for (std::int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
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
