#pragma once

// A tensor's data layout as ALT (seed 003) describes it: the logical tensor (row-major dims)
// transformed by a sequence of primitives. The layout answers the three questions code
// generation and measurement ask: the physical shape, where a logical element lives (an
// expression, for generated code, and a number, for real data), and which logical element a
// physical position holds (for conversion kernels, which gather). No Qt, no GPU.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <vector>

namespace opevo::layout {

enum class PrimitiveKind { Split, Reorder, Fuse, Unfold, Pad, StoreAt };

// "split", "reorder", "fuse", "unfold", "pad", "store_at".
std::string_view primitiveName(PrimitiveKind kind);

struct Dim {
  std::string name;
  std::int64_t extent = 1;
  bool operator==(const Dim&) const = default;
};

// One applied primitive, as recorded (the arguments it was given).
struct Primitive {
  PrimitiveKind kind = PrimitiveKind::Split;
  // split, unfold, pad: the one dim; store_at: the dim and the attached tensor's name; fuse: the
  // two adjacent dims, outer first; reorder: the new order of every dim.
  std::vector<std::string> dims;
  // split: {factor}; unfold: {tile, stride}; pad: {before, after}; store_at: {}; others: {}.
  std::vector<std::int64_t> args;
  bool operator==(const Primitive&) const = default;
};

// Where generated code reads a physical position from: one expression per logical dim, and a
// condition under which the position holds a logical element (false: padding, which holds 0).
struct Gather {
  std::vector<std::string> logicalIndex;  // in logical dim order
  std::string inBounds;                   // "" when every physical position holds an element
};

class Layout {
 public:
  // The untransformed tensor: these dims, row-major (the last one contiguous). Names must be
  // unique, non-empty identifiers ([A-Za-z_][A-Za-z0-9_]*); extents >= 1. Throws InputError.
  explicit Layout(std::vector<Dim> logical);

  // Each primitive transforms the current (physical) dims and returns *this. A primitive that
  // cannot apply throws InputError naming the primitive, the dim and what is wrong; the layout
  // is then unchanged.
  //
  // split(d, f): d -> d_o (extent / f), d_i (f) in its place. f must divide d's extent (pad first
  //   otherwise).
  Layout& split(const std::string& dim, std::int64_t factor);
  // reorder(order): a permutation of the current dims' names, every one exactly once.
  Layout& reorder(const std::vector<std::string>& order);
  // fuse(a, b): adjacent dims, a immediately outside b -> one dim "a_b" of extent a * b.
  Layout& fuse(const std::string& outer, const std::string& inner);
  // unfold(d, tile, stride): overlapped tiles of a sliding window. d -> d_o (count), d_i (tile)
  //   where count = (extent - tile) / stride + 1; position (o, i) holds element o * stride + i.
  //   Requires 1 <= stride <= tile <= extent. When (extent - tile) % stride != 0 the last
  //   (extent - tile) % stride elements are in no tile (covers() says so).
  Layout& unfold(const std::string& dim, std::int64_t tile, std::int64_t stride);
  // pad(d, before, after): extent + before + after; element x moves to x + before; the new
  //   positions hold zeros. before, after >= 0.
  Layout& pad(const std::string& dim, std::int64_t before, std::int64_t after);
  // storeAt(d, attached): ALT's store_at. Another tensor (named `attached`), whose dims are this
  //   tensor's logical dims without d, is stored at index extent(d) of d, which grows by one
  //   (e.g. a bias vector stored as an extra row of a K x N weight matrix). d must still be one
  //   of the logical dims, untransformed, and no store_at applied yet.
  Layout& storeAt(const std::string& dim, const std::string& attached);

  const std::vector<Dim>& logical() const { return m_logical; }
  // The physical dims, outermost first (row-major over them is the memory order).
  const std::vector<Dim>& physical() const { return m_physical; }
  const std::vector<Primitive>& primitives() const { return m_primitives; }
  // Row-major strides of the physical dims, in elements.
  std::vector<std::int64_t> strides() const;
  // Elements of the physical buffer (product of the physical extents).
  std::int64_t size() const;
  // Logical elements (product of the logical extents).
  std::int64_t logicalSize() const;
  // True without primitives, or when they leave every element where row-major puts it.
  bool isIdentity() const;
  // Every logical element has at least one physical position (false after an unfold with a
  // remainder).
  bool covers() const;

  // The physical offset (a C expression over the given names, one per logical dim, in logical
  // order) of the logical element's home position: for an element in several unfolded tiles,
  // the tile with the smallest index. Example: NCHW split(c,16) reorder(n,c_o,h,w,c_i) gives
  // "((n * 4 + c / 16) * 56 + h) * 56 + w) * 16 + c % 16"-like text (exact form free, must
  // compile as C and C++ with integer operands).
  std::string offsetExpression(const std::vector<std::string>& logicalIndex) const;
  // The same offset as a number; -1 when the element is in no tile.
  std::int64_t offset(std::span<const std::int64_t> logicalIndex) const;
  // The inverse, as expressions over the given names (one per physical dim, in physical order).
  Gather gather(const std::vector<std::string>& physicalIndex) const;
  // The offset of an element of the store_at tensor (its logical dims in order). Throws
  // std::logic_error when no store_at was applied.
  std::string attachedOffsetExpression(const std::vector<std::string>& attachedIndex) const;

  // Real data. logical: logicalSize() floats, row-major; physical: size() floats. pack writes
  // every physical position (zeros for padding, copies for overlapping tiles); unpack reads
  // each logical element from its home position (elements in no tile become 0). With store_at,
  // the attached tensor comes in and goes out beside it. Throws std::invalid_argument on a wrong
  // span size.
  void pack(std::span<const float> logical, std::span<float> physical) const;
  void unpack(std::span<const float> physical, std::span<float> logical) const;
  void pack(std::span<const float> logical, std::span<const float> attached,
            std::span<float> physical) const;
  void unpack(std::span<const float> physical, std::span<float> logical,
              std::span<float> attached) const;

  // "split(c, 16); reorder(n, c_o, h, w, c_i)"; "identity" without primitives.
  std::string describe() const;
  // {"logical": [{"name", "extent"}...], "primitives": [{"kind", "dims", "args"}...],
  //  "physical": [...]} ; fromJson replays the primitives (and throws InputError as they do).
  nlohmann::json toJson() const;
  static Layout fromJson(const nlohmann::json& j);

  bool operator==(const Layout& other) const {
    return m_logical == other.m_logical && m_primitives == other.m_primitives;
  }

 private:
  std::vector<Dim> m_logical;
  std::vector<Dim> m_physical;
  std::vector<Primitive> m_primitives;
};

// Whether a and b put every element of tensors of the same logical extents (dim names aside) at
// the same physical position, so that a buffer in one is a buffer in the other. Unlike ==, it
// sees through how the layouts were written: a 1x1 stride-1 convolution's input, padded by 0 and
// unfolded into windows as wide as their stride, is its producer's output split the same way,
// though one names its channels c, the other f, and they apply their splits in other orders;
// and a split whose parts lie side by side, or whose outer part has one element, is no split: an
// output in tiles of whole rows is the image with blocked channels (a depthwise reader's input).
// Conservative: false may still be the same mapping written otherwise (a fuse undone by a split,
// splits nested otherwise).
bool sameMapping(const Layout& a, const Layout& b);

}  // namespace opevo::layout
