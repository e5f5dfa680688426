#include "kas/primitive.h"

#include <array>
#include <utility>

#include "common/enum_names.h"

namespace opevo::kas {

namespace {

constexpr EnumNames<PrimitiveKind, 19> kPrimitiveNames({{
    {PrimitiveKind::Input, "input"},
    {PrimitiveKind::Group, "group"},
    {PrimitiveKind::GroupEach, "group_each"},
    {PrimitiveKind::Shift, "shift"},
    {PrimitiveKind::Unfold, "unfold"},
    {PrimitiveKind::FullyConnected, "fc"},
    {PrimitiveKind::GroupedFc, "grouped_fc"},
    {PrimitiveKind::Relu, "relu"},
    {PrimitiveKind::Abs, "abs"},
    {PrimitiveKind::Sin, "sin"},
    {PrimitiveKind::Exp, "exp"},
    {PrimitiveKind::AvgFold, "avg_fold"},
    {PrimitiveKind::MaxFold, "max_fold"},
    {PrimitiveKind::Softmax, "softmax"},
    {PrimitiveKind::Add, "add"},
    {PrimitiveKind::Sub, "sub"},
    {PrimitiveKind::Mul, "mul"},
    {PrimitiveKind::Min, "min"},
    {PrimitiveKind::Max, "max"},
}});

bool isChannel(const Dim& d) {
  return d.role == DimRole::Channel;
}

std::size_t firstSpatial(const Shape& s) {
  std::size_t i = 0;
  while (i < s.size() && isChannel(s[i])) ++i;
  return i;
}

}  // namespace

std::string_view primitiveName(PrimitiveKind kind) {
  return kPrimitiveNames.name(kind);
}
std::optional<PrimitiveKind> parsePrimitive(std::string_view name) {
  return kPrimitiveNames.parse(name);
}
std::string primitiveList() {
  return kPrimitiveNames.list();
}

PrimitiveClass primitiveClass(PrimitiveKind kind) {
  switch (kind) {
    case PrimitiveKind::Input:
      return PrimitiveClass::Input;
    case PrimitiveKind::Group:
    case PrimitiveKind::GroupEach:
    case PrimitiveKind::Shift:
    case PrimitiveKind::Unfold:
      return PrimitiveClass::Rearrangement;
    case PrimitiveKind::Add:
    case PrimitiveKind::Sub:
    case PrimitiveKind::Mul:
    case PrimitiveKind::Min:
    case PrimitiveKind::Max:
      return PrimitiveClass::Blending;
    default:
      return PrimitiveClass::Arithmetic;
  }
}

PrimitiveType primitiveType(PrimitiveKind kind) {
  switch (kind) {
    case PrimitiveKind::Group:
    case PrimitiveKind::GroupEach:
      return PrimitiveType::Group;
    case PrimitiveKind::Shift:
      return PrimitiveType::Shift;
    case PrimitiveKind::Unfold:
      return PrimitiveType::Unfold;
    case PrimitiveKind::FullyConnected:
    case PrimitiveKind::GroupedFc:
      return PrimitiveType::Fc;
    case PrimitiveKind::AvgFold:
    case PrimitiveKind::MaxFold:
      return PrimitiveType::Fold;
    case PrimitiveKind::Softmax:
      return PrimitiveType::Softmax;
    default:
      return isBlend(kind) ? PrimitiveType::Blend : PrimitiveType::Elementwise;
  }
}

bool isBlend(PrimitiveKind kind) {
  return primitiveClass(kind) == PrimitiveClass::Blending;
}

bool isElementwise(PrimitiveKind kind) {
  return kind == PrimitiveKind::Relu || kind == PrimitiveKind::Abs || kind == PrimitiveKind::Sin ||
         kind == PrimitiveKind::Exp;
}

bool isFc(PrimitiveKind kind) {
  return kind == PrimitiveKind::FullyConnected || kind == PrimitiveKind::GroupedFc;
}

bool takesDim(PrimitiveKind kind) {
  switch (kind) {
    case PrimitiveKind::Group:
    case PrimitiveKind::GroupEach:
    case PrimitiveKind::Shift:
    case PrimitiveKind::Unfold:
    case PrimitiveKind::AvgFold:
    case PrimitiveKind::MaxFold:
    case PrimitiveKind::Softmax:
      return true;
    default:
      return false;
  }
}

std::string shapeText(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i > 0 ? ", " : "") + shape[i].size.text();
  return out + "]";
}

Shape inputShape() {
  return {{Size::of(Symbol::C), DimRole::Channel},
          {Size::of(Symbol::H), DimRole::Height},
          {Size::of(Symbol::W), DimRole::Width}};
}

std::optional<Shape> unaryShape(PrimitiveKind kind, const Shape& in, int dim, Symbol fresh) {
  const bool needsDim = takesDim(kind);
  if (needsDim && (dim < 0 || static_cast<std::size_t>(dim) >= in.size())) return std::nullopt;
  const auto d = static_cast<std::size_t>(needsDim ? dim : 0);
  const std::size_t spatial = firstSpatial(in);
  Shape out = in;
  switch (kind) {
    case PrimitiveKind::Group: {
      if (!isChannel(in[d])) return std::nullopt;
      const Size rest = in[d].size / Size::of(Symbol::G);
      if (!rest.knownIntegral()) return std::nullopt;
      out[d].size = rest;
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(d), Dim{Size::of(Symbol::G)});
      return out;
    }
    case PrimitiveKind::GroupEach:
      if (!isChannel(in[d]) || in[d].size.isOne()) return std::nullopt;
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(d) + 1, Dim{Size{}});
      return out;
    case PrimitiveKind::Shift:
      return isChannel(in[d]) ? std::nullopt : std::optional<Shape>(out);
    case PrimitiveKind::Unfold: {
      if (isChannel(in[d])) return std::nullopt;
      const Symbol k = in[d].role == DimRole::Height ? Symbol::KH : Symbol::KW;
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(spatial), Dim{Size::of(k)});
      return out;
    }
    case PrimitiveKind::FullyConnected: {
      if (spatial == 0) return std::nullopt;
      out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(spatial));
      out.insert(out.begin(), Dim{Size::of(fresh)});
      return out;
    }
    case PrimitiveKind::GroupedFc: {
      // At least a group dim and one more channel dim, else it is an FC.
      if (spatial < 2) return std::nullopt;
      out.erase(out.begin() + 1, out.begin() + static_cast<std::ptrdiff_t>(spatial));
      out.insert(out.begin() + 1, Dim{Size::of(fresh)});
      return out;
    }
    case PrimitiveKind::Relu:
    case PrimitiveKind::Abs:
    case PrimitiveKind::Sin:
    case PrimitiveKind::Exp:
      return out;
    case PrimitiveKind::AvgFold:
    case PrimitiveKind::MaxFold:
      if (in.size() < 2 || in[d].size.isOne()) return std::nullopt;
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(d));
      return out;
    case PrimitiveKind::Softmax:
      return in[d].size.isOne() ? std::nullopt : std::optional<Shape>(out);
    default:
      return std::nullopt;
  }
}

}  // namespace opevo::kas
