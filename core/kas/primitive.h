#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kas/size.h"

namespace opevo::kas {

// Canvas's fine-grained primitives (seed 004, Table 1).
enum class PrimitiveKind {
  Input,
  // Rearrangement: no arithmetic, only indexing.
  Group,      // channel dim X -> [G, X/G]
  GroupEach,  // channel dim X -> [X, 1]: every channel its own group
  Shift,      // a spatial dim shifted by one pixel (zero filled), same shape
  Unfold,     // KH (or KW) neighbours of H (or W) become a new channel dim (zero padded)
  // Arithmetic.
  FullyConnected,  // all channel dims -> one new dim x (the only primitive with weights)
  GroupedFc,       // keeps the first channel dim as groups: [A, ...] -> [A, x]
  Relu,
  Abs,
  Sin,
  Exp,
  AvgFold,  // average over one dim, which disappears
  MaxFold,  // maximum over one dim
  Softmax,  // over one dim, same shape
  // Blending: LHS broadcast onto RHS, shaped as RHS.
  Add,
  Sub,
  Mul,
  Min,
  Max,
};

// The kinds of primitive Canvas's sampler picks between with equal chance (seed 004, sec. 6.1:
// uniform per primitive type, however many instances of each the DAG offers, so blends, which grow
// with the square of the tensors, do not crowd out the rest).
enum class PrimitiveType { Group, Shift, Unfold, Fc, Elementwise, Fold, Softmax, Blend };
inline constexpr std::size_t kPrimitiveTypes = 8;
PrimitiveType primitiveType(PrimitiveKind kind);

enum class PrimitiveClass { Input, Rearrangement, Arithmetic, Blending };

std::string_view primitiveName(PrimitiveKind kind);
std::optional<PrimitiveKind> parsePrimitive(std::string_view name);
// "group, group_each, ..." for messages.
std::string primitiveList();
PrimitiveClass primitiveClass(PrimitiveKind kind);
bool isBlend(PrimitiveKind kind);
bool isElementwise(PrimitiveKind kind);  // relu, abs, sin, exp
bool isFc(PrimitiveKind kind);
// Whether the primitive reads a `dim` field (group, shift, unfold, folds, softmax).
bool takesDim(PrimitiveKind kind);

enum class DimRole { Channel, Height, Width };

struct Dim {
  Size size;
  DimRole role = DimRole::Channel;
  bool operator==(const Dim&) const = default;
};

using Shape = std::vector<Dim>;

// "[C, KH, H, W]"
std::string shapeText(const Shape& shape);
Shape inputShape();  // [C, H, W]

// The shape a one-input primitive gives, or nullopt when it does not apply (a group on a spatial
// dim, a fold of the last dim, ...). `fresh` is the variable an FC introduces.
std::optional<Shape> unaryShape(PrimitiveKind kind, const Shape& in, int dim, Symbol fresh);

}  // namespace opevo::kas
