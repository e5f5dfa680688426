#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kas/primitive.h"

namespace opevo::kas {

// Canvas's solver by shape matching (seed 004, sec. 6.2). A blend broadcasts LHS onto RHS: with
// the common prefix and suffix of the two shapes stripped, the product of LHS's remaining dims
// must divide RHS's. By Theorem 1 each side holds at most one free variable, in a numerator, so
// when LHS's has one, the legal values of it are the factors of RHS's remaining product.
struct Unmatched {
  std::size_t prefix = 0, suffix = 0;  // dims stripped at each end
  Size lhs, rhs;                       // products of the dims left in between
  bool lhsSpatial = false;             // LHS has an image dim left in between
  bool rhsSpatial = false;             // RHS has one
};
Unmatched unmatched(const Shape& lhs, const Shape& rhs);

struct Substitution {
  Symbol variable = Symbol::X1;
  Size value;
};

// Legal as they are: LHS's image dims all matched, and #RHS / #LHS integral for every binding
// (a variable in its numerator counts: the budget solver makes it a multiple of the rest). Where
// RHS has an image dim in between, LHS has nothing there (it is repeated over the image, as a
// pooled tensor is): so which LHS channel an output channel reads never depends on the pixel.
bool blendLegal(const Shape& lhs, const Shape& rhs);

// The ways to make a blend legal: nullopt in the list means "legal as is"; otherwise a value for
// LHS's variable. Empty when no substitution helps.
std::vector<std::optional<Substitution>> blendOptions(const Shape& lhs, const Shape& rhs);

// A kernel's last tensor must read as the convolution's [C, H, W]: its image dims exactly H, W
// at the end and its channel dims multiplying to C (a contiguous [G, C/G, H, W] is [C, H, W]).
bool outputLegal(const Shape& shape);
// The substitution that makes it so, if one does (x -> C / the rest), or nullopt.
std::optional<Substitution> outputSubstitution(const Shape& shape);

// For a legal blend at one layer (`lhsDims`, `rhsDims` concrete): the LHS channel (flat over its
// channel dims) each RHS channel reads. Image coordinates pass through unchanged.
std::vector<std::int64_t> blendChannelMap(const Shape& lhs,
                                          const std::vector<std::int64_t>& lhsDims,
                                          const Shape& rhs,
                                          const std::vector<std::int64_t>& rhsDims);

// Every monomial whose exponents lie between 0 and each of `of`'s (G's negative ones included)
// and that is a size by itself: the candidate values of a variable that must divide `of`.
std::vector<Size> factors(const Size& of);

}  // namespace opevo::kas
