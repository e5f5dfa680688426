// Where elements go: offsets and gathers, as numbers and as C expressions, and packing real data.
// Both directions are written once, as templates over the index type: std::int64_t for numbers,
// Expr (C text) for generated code, so the expressions and the data paths cannot disagree.

#include <algorithm>
#include <cctype>
#include <limits>
#include <stdexcept>
#include <thread>

#include "layout/layout.h"

namespace opevo::layout {
namespace detail {
void applyPrimitive(Layout& layout, const Primitive& p);  // layout.cpp
}  // namespace detail

namespace {

// One applied primitive with what the maps need: the dims it applied to and its numbers.
struct Step {
  PrimitiveKind kind = PrimitiveKind::Split;
  std::vector<Dim> before;
  std::size_t at = 0;             // the dim it names (fuse: the outer one)
  std::int64_t a = 0, b = 0;      // split: factor; unfold: tile, stride; pad: before, after
  std::int64_t count = 0;         // unfold: number of tiles
  std::vector<std::size_t> from;  // reorder: new position j holds old position from[j]
  std::int64_t extent() const { return before[at].extent; }
};

std::size_t position(const std::vector<Dim>& dims, const std::string& name) {
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i].name == name) return i;
  throw std::logic_error("layout: no dim '" + name + "'");
}

// Replays the primitives to learn the dims each one saw (they are valid: they applied once).
std::vector<Step> stepsOf(const Layout& layout) {
  Layout replay(layout.logical());
  std::vector<Step> steps;
  for (const Primitive& p : layout.primitives()) {
    Step s;
    s.kind = p.kind;
    s.before = replay.physical();
    if (p.kind == PrimitiveKind::Reorder)
      for (const std::string& name : p.dims) s.from.push_back(position(s.before, name));
    else
      s.at = position(s.before, p.dims[0]);
    if (p.args.size() > 0) s.a = p.args[0];
    if (p.args.size() > 1) s.b = p.args[1];
    if (p.kind == PrimitiveKind::Unfold) s.count = (s.extent() - s.a) / s.b + 1;
    detail::applyPrimitive(replay, p);
    steps.push_back(std::move(s));
  }
  return steps;
}

const Primitive* storeAtOf(const Layout& layout) {
  for (const Primitive& p : layout.primitives())
    if (p.kind == PrimitiveKind::StoreAt) return &p;
  return nullptr;
}

// ---- Numbers --------------------------------------------------------------------------------

std::int64_t zeroLike(std::int64_t) {
  return 0;
}
std::int64_t add(std::int64_t x, std::int64_t y) {
  return x + y;
}
std::int64_t sub(std::int64_t x, std::int64_t y) {
  return x - y;
}
std::int64_t plus(std::int64_t x, std::int64_t k) {
  return x + k;
}
std::int64_t mul(std::int64_t x, std::int64_t k) {
  return x * k;
}
std::int64_t quot(std::int64_t x, std::int64_t k) {
  return x / k;
}
std::int64_t rem(std::int64_t x, std::int64_t k) {
  return x % k;
}
// The smallest tile index (of tiles `stride` apart) containing x; C's truncating division is
// right here because x - (tile - stride) >= stride > 0 whenever x >= tile.
std::int64_t firstTile(std::int64_t x, std::int64_t tile, std::int64_t stride) {
  return x < tile ? 0 : (x - (tile - stride)) / stride;
}

// What the inverse map found at a physical position.
struct Found {
  bool padding = false;   // a position no element is stored at (holds 0)
  bool attached = false;  // the store_at row of the host dim
};
void atLeast(Found& f, std::int64_t x, std::int64_t low) {
  if (x < low) f.padding = true;
}
void below(Found& f, std::int64_t x, std::int64_t high) {
  if (x >= high) f.padding = true;
}
void attachedRow(Found& f, std::int64_t x, std::int64_t extent) {
  if (x == extent) f.attached = true;
}
// Whether a forward map placed the element inside a tile.
void inTile(bool& covered, std::int64_t o, std::int64_t i, const Step& s) {
  if (o >= s.count || i >= s.a) covered = false;
}

// ---- Expressions ----------------------------------------------------------------------------
// Every compound is parenthesised; literals fold, and the neutral * 1, / 1, + 0 are left out.

using Expr = std::string;

bool literal(const Expr& e, std::int64_t& v) {
  std::size_t i = 0, end = e.size();
  bool negative = false;
  if (e.size() > 3 && e.front() == '(' && e[1] == '-' && e.back() == ')') {
    negative = true;
    i = 2;
    end = e.size() - 1;
  }
  if (i == end) return false;
  v = 0;
  for (; i < end; ++i) {
    if (e[i] < '0' || e[i] > '9') return false;
    v = v * 10 + (e[i] - '0');
  }
  if (negative) v = -v;
  return true;
}
Expr lit(std::int64_t v) {
  // Appended rather than concatenated: GCC 12 warns (-Wrestrict) on "(" + std::to_string(v).
  if (v >= 0) return std::to_string(v);
  return std::string("(").append(std::to_string(v)).append(")");
}
Expr zeroLike(const Expr&) {
  return "0";
}
Expr add(const Expr& x, const Expr& y) {
  std::int64_t u = 0, v = 0;
  if (literal(x, u) && literal(y, v)) return lit(u + v);
  if (x == "0") return y;
  if (y == "0") return x;
  return "(" + x + " + " + y + ")";
}
Expr sub(const Expr& x, const Expr& y) {
  std::int64_t u = 0, v = 0;
  if (literal(x, u) && literal(y, v)) return lit(u - v);
  if (y == "0") return x;
  return "(" + x + " - " + y + ")";
}
// Splits "(a + 3)" or "(a - 3)", as plus() writes them, into a and +-3; a is an operand (a name
// or a parenthesised compound), so the last " + " or " - " is the top-level one.
bool constantOffset(const Expr& x, Expr& base, std::int64_t& k) {
  const std::size_t op = x.rfind(' ');
  if (x.size() < 7 || x.front() != '(' || op == std::string::npos || op < 3 ||
      (x[op - 1] != '+' && x[op - 1] != '-') || x[op - 2] != ' ' ||
      !literal(x.substr(op + 1, x.size() - op - 2), k))
    return false;
  base = x.substr(1, op - 3);
  int depth = 0;
  for (std::size_t i = 0; i < base.size(); ++i) {
    depth += base[i] == '(' ? 1 : base[i] == ')' ? -1 : 0;
    if ((depth == 0 && i + 1 < base.size() && base[i] == ')') || (depth == 0 && base[i] == ' '))
      return false;
  }
  if (x[op - 1] == '-') k = -k;
  return true;
}
Expr plus(const Expr& x, std::int64_t k) {
  std::int64_t u = 0;
  if (literal(x, u)) return lit(u + k);
  Expr base;
  std::int64_t inner = 0;
  if (constantOffset(x, base, inner)) return plus(base, inner + k);
  if (k == 0) return x;
  return "(" + x + (k > 0 ? " + " : " - ") + std::to_string(k > 0 ? k : -k) + ")";
}
Expr mul(const Expr& x, std::int64_t k) {
  std::int64_t u = 0;
  if (literal(x, u)) return lit(u * k);
  if (k == 1) return x;
  return "(" + x + " * " + std::to_string(k) + ")";
}
Expr quot(const Expr& x, std::int64_t k) {
  std::int64_t u = 0;
  if (literal(x, u)) return lit(u / k);
  if (k == 1) return x;
  return "(" + x + " / " + std::to_string(k) + ")";
}
Expr rem(const Expr& x, std::int64_t k) {
  std::int64_t u = 0;
  if (literal(x, u)) return lit(u % k);
  if (k == 1) return "0";
  return "(" + x + " % " + std::to_string(k) + ")";
}
Expr firstTile(const Expr& x, std::int64_t tile, std::int64_t stride) {
  std::int64_t u = 0;
  if (literal(x, u)) return lit(firstTile(u, tile, stride));
  // Below tile, x - (tile - stride) lies in (-stride, stride) when tile < 2 * stride, and C's
  // division truncates it to 0: no test needed (ALT's conv windows are all like this).
  const Expr o = quot(plus(x, -(tile - stride)), stride);
  if (tile < 2 * stride) return o;
  // x < tile, written as base < tile - k when x is base + k (a padded index). A failed parse may
  // have written into k (literal() stops at the first non-digit): x itself then.
  Expr base = x;
  std::int64_t k = 0;
  if (!constantOffset(x, base, k)) {
    base = x;
    k = 0;
  }
  return "((" + base + " < " + lit(tile - k) + ") ? 0 : " + o + ")";
}

// The conditions of a gather, each a parenthesised comparison; all must hold.
struct Conditions {
  std::vector<Expr> terms;
};
void atLeast(Conditions& c, const Expr& x, std::int64_t low) {
  std::int64_t u = 0;
  if (literal(x, u)) {
    if (u < low) c.terms.push_back("0");
  } else if (low > 0) {
    c.terms.push_back("(" + x + " >= " + std::to_string(low) + ")");
  }
}
void below(Conditions& c, const Expr& x, std::int64_t high) {
  std::int64_t u = 0;
  if (literal(x, u)) {
    if (u >= high) c.terms.push_back("0");
  } else {
    c.terms.push_back("(" + x + " < " + std::to_string(high) + ")");
  }
}
// gather() treats the store_at row as out of bounds of the host tensor: it holds another one.
void attachedRow(Conditions& c, const Expr& x, std::int64_t extent) {
  below(c, x, extent);
}
void inTile(bool&, const Expr&, const Expr&, const Step&) {}

// ---- The two directions ---------------------------------------------------------------------

// Carries an element's index (one value per logical dim) through the primitives to one value per
// physical dim. For an element in several unfolded tiles it takes the smallest tile index.
// `covered` turns false (numbers only) when an unfold leaves the element in no tile.
template <class V>
void forward(const std::vector<Step>& steps, std::vector<V>& x, bool& covered) {
  for (const Step& s : steps) {
    const auto at = x.begin() + std::ptrdiff_t(s.at);
    switch (s.kind) {
      case PrimitiveKind::Split: {
        // A factor equal to the extent leaves an outer dim of extent 1, whose index is 0.
        const bool whole = s.a == s.extent();
        const V inner = whole ? *at : rem(*at, s.a);
        *at = whole ? zeroLike(*at) : quot(*at, s.a);
        x.insert(at + 1, inner);
        break;
      }
      case PrimitiveKind::Reorder: {
        // Kept between elements: pack and unpack carry every element of a tensor through here,
        // and a fresh vector each time was most of their time.
        thread_local std::vector<V> y;
        y.clear();
        for (std::size_t from : s.from) y.push_back(x[from]);
        x.swap(y);
        break;
      }
      case PrimitiveKind::Fuse:
        *at = s.extent() == 1 ? *(at + 1) : add(mul(*at, s.before[s.at + 1].extent), *(at + 1));
        x.erase(at + 1);
        break;
      case PrimitiveKind::Unfold: {
        const std::int64_t tile = s.a, stride = s.b;
        V o = zeroLike(*at), i = *at;
        if (s.count > 1 && stride == tile) {
          o = quot(*at, stride);
          i = rem(*at, stride);
        } else if (s.count > 1) {
          o = firstTile(*at, tile, stride);
          i = sub(*at, mul(o, stride));
        }
        inTile(covered, o, i, s);
        *at = o;
        x.insert(at + 1, i);
        break;
      }
      case PrimitiveKind::Pad:
        *at = plus(*at, s.a);
        break;
      case PrimitiveKind::StoreAt:
        break;
    }
  }
}

// Carries a physical position (one value per physical dim) back to the logical index it holds,
// telling `found` about padding and the store_at row on the way.
template <class V, class Checks>
void backward(const std::vector<Step>& steps, std::vector<V>& x, Checks& found) {
  for (auto s = steps.rbegin(); s != steps.rend(); ++s) {
    const auto at = x.begin() + std::ptrdiff_t(s->at);
    switch (s->kind) {
      case PrimitiveKind::Split:
        *at = s->a == s->extent() ? *(at + 1) : add(mul(*at, s->a), *(at + 1));
        x.erase(at + 1);
        break;
      case PrimitiveKind::Reorder: {
        thread_local std::vector<V> y;  // as forward's
        y.resize(x.size());
        for (std::size_t j = 0; j < x.size(); ++j) y[s->from[j]] = x[j];
        x.swap(y);
        break;
      }
      case PrimitiveKind::Fuse: {
        const std::int64_t inner = s->before[s->at + 1].extent;
        const bool single = s->extent() == 1;
        const V b = single ? *at : rem(*at, inner);
        *at = single ? zeroLike(*at) : quot(*at, inner);
        x.insert(at + 1, b);
        break;
      }
      case PrimitiveKind::Unfold:
        *at = s->count == 1 ? *(at + 1) : add(mul(*at, s->b), *(at + 1));
        x.erase(at + 1);
        break;
      case PrimitiveKind::Pad:
        atLeast(found, *at, s->a);
        if (s->b > 0) below(found, *at, s->a + s->extent());
        *at = plus(*at, -s->a);
        break;
      case PrimitiveKind::StoreAt:
        attachedRow(found, *at, s->extent());
        break;
    }
  }
}

// Row-major offset of an index over dims.
template <class V>
V rowMajor(const std::vector<V>& x, const std::vector<Dim>& dims) {
  V offset = x.empty() ? V{} : x[0];
  for (std::size_t i = 1; i < x.size(); ++i) offset = add(mul(offset, dims[i].extent), x[i]);
  return offset;
}

// The index names as operands: an extent-1 dim's index can only be 0; an operand that is not an
// identifier or number gets parentheses; above 2^31 - 1 elements, arithmetic is done in long long
// so that generated code with int indices does not overflow.
std::vector<Expr> operands(const std::vector<std::string>& names, const std::vector<Dim>& dims,
                           bool wide, const char* what) {
  if (names.size() != dims.size())
    throw std::invalid_argument(std::string("Layout::") + what + ": " +
                                std::to_string(names.size()) + " index names for " +
                                std::to_string(dims.size()) + " dims");
  std::vector<Expr> x;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    bool plain = !n.empty();
    for (char c : n) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    const Expr operand = plain ? n : "(" + n + ")";
    x.push_back(dims[i].extent == 1 ? "0" : wide ? "((long long)" + operand + ")" : operand);
  }
  return x;
}

bool wide(const Layout& l) {
  return std::max(l.size(), l.logicalSize()) > std::numeric_limits<std::int32_t>::max();
}

std::vector<Dim> attachedDims(const Layout& l, std::size_t host) {
  std::vector<Dim> dims = l.logical();
  dims.erase(dims.begin() + std::ptrdiff_t(host));
  return dims;
}

std::int64_t product(const std::vector<Dim>& dims) {
  std::int64_t n = 1;
  for (const Dim& d : dims) n *= d.extent;
  return n;
}

// Steps an index through dims in row-major order.
void advance(std::vector<std::int64_t>& index, const std::vector<Dim>& dims) {
  for (std::size_t i = index.size(); i-- > 0;) {
    if (++index[i] < dims[i].extent) return;
    index[i] = 0;
  }
}

// Calls body(begin, end, index of begin) over [0, product(dims)) in row-major order, split into
// one range per hardware thread when there is enough work: a GPU measurement packs operands of
// hundreds of millions of elements on the host, one element at a time through the steps.
template <typename Body>
void forEachRange(const std::vector<Dim>& dims, const Body& body) {
  const std::int64_t total = product(dims);
  constexpr std::int64_t kPerThread = 1 << 18;
  const std::int64_t threads = std::min<std::int64_t>(
      std::max(1u, std::thread::hardware_concurrency()), total / kPerThread + 1);
  auto indexOf = [&](std::int64_t flat) {
    std::vector<std::int64_t> index(dims.size(), 0);
    for (std::size_t i = dims.size(); i-- > 0;) {
      index[i] = flat % dims[i].extent;
      flat /= dims[i].extent;
    }
    return index;
  };
  if (threads <= 1) {
    body(std::int64_t{0}, total, indexOf(0));
    return;
  }
  std::vector<std::jthread> workers;
  for (std::int64_t t = 0; t < threads; ++t) {
    const std::int64_t begin = total * t / threads, end = total * (t + 1) / threads;
    workers.emplace_back([&, begin, end] { body(begin, end, indexOf(begin)); });
  }
}

void checkSpan(const char* what, const char* span, std::size_t got, std::int64_t needed) {
  if (std::int64_t(got) != needed)
    throw std::invalid_argument(std::string("Layout::") + what + ": the " + span + " span has " +
                                std::to_string(got) + " floats; the layout needs " +
                                std::to_string(needed));
}

}  // namespace

std::string Layout::offsetExpression(const std::vector<std::string>& logicalIndex) const {
  std::vector<Expr> x = operands(logicalIndex, m_logical, wide(*this), "offsetExpression");
  bool covered = true;
  forward(stepsOf(*this), x, covered);
  return rowMajor(x, m_physical);
}

std::int64_t Layout::offset(std::span<const std::int64_t> logicalIndex) const {
  if (logicalIndex.size() != m_logical.size())
    throw std::invalid_argument("Layout::offset: " + std::to_string(logicalIndex.size()) +
                                " indices for " + std::to_string(m_logical.size()) + " dims");
  for (std::size_t i = 0; i < m_logical.size(); ++i)
    if (logicalIndex[i] < 0 || logicalIndex[i] >= m_logical[i].extent)
      throw std::out_of_range("Layout::offset: index " + std::to_string(logicalIndex[i]) + " of " +
                              m_logical[i].name + " is outside [0, " +
                              std::to_string(m_logical[i].extent) + ")");
  std::vector<std::int64_t> x(logicalIndex.begin(), logicalIndex.end());
  bool covered = true;
  forward(stepsOf(*this), x, covered);
  return covered ? rowMajor(x, m_physical) : -1;
}

Gather Layout::gather(const std::vector<std::string>& physicalIndex) const {
  std::vector<Expr> x = operands(physicalIndex, m_physical, wide(*this), "gather");
  Conditions conditions;
  backward(stepsOf(*this), x, conditions);
  Gather g{std::move(x), {}};
  for (const Expr& term : conditions.terms) g.inBounds += (g.inBounds.empty() ? "" : " && ") + term;
  if (conditions.terms.size() > 1) g.inBounds = "(" + g.inBounds + ")";
  return g;
}

std::string Layout::attachedOffsetExpression(const std::vector<std::string>& attachedIndex) const {
  const Primitive* store = storeAtOf(*this);
  if (!store) throw std::logic_error("Layout::attachedOffsetExpression: no store_at applied");
  const std::size_t host = position(m_logical, store->dims[0]);
  std::vector<Expr> x =
      operands(attachedIndex, attachedDims(*this, host), wide(*this), "attachedOffsetExpression");
  x.insert(x.begin() + std::ptrdiff_t(host), lit(m_logical[host].extent));
  bool covered = true;
  forward(stepsOf(*this), x, covered);
  return rowMajor(x, m_physical);
}

void Layout::pack(std::span<const float> logical, std::span<float> physical) const {
  pack(logical, {}, physical);
}

void Layout::unpack(std::span<const float> physical, std::span<float> logical) const {
  unpack(physical, logical, {});
}

void Layout::pack(std::span<const float> logical, std::span<const float> attached,
                  std::span<float> physical) const {
  const Primitive* store = storeAtOf(*this);
  const std::size_t host = store ? position(m_logical, store->dims[0]) : 0;
  const std::vector<Dim> attachedShape = store ? attachedDims(*this, host) : std::vector<Dim>{};
  checkSpan("pack", "logical", logical.size(), logicalSize());
  checkSpan("pack", "attached", attached.size(), store ? product(attachedShape) : 0);
  checkSpan("pack", "physical", physical.size(), size());
  const std::vector<Step> steps = stepsOf(*this);
  forEachRange(m_physical,
               [&](std::int64_t begin, std::int64_t end, std::vector<std::int64_t> where) {
                 std::vector<std::int64_t> x;
                 for (std::int64_t i = begin; i < end; ++i) {
                   float& out = physical[std::size_t(i)];
                   x = where;
                   Found found;
                   backward(steps, x, found);
                   if (found.padding) {
                     out = 0.0f;
                   } else if (found.attached) {
                     x.erase(x.begin() + std::ptrdiff_t(host));
                     out = attached[std::size_t(rowMajor(x, attachedShape))];
                   } else {
                     out = logical[std::size_t(rowMajor(x, m_logical))];
                   }
                   advance(where, m_physical);
                 }
               });
}

void Layout::unpack(std::span<const float> physical, std::span<float> logical,
                    std::span<float> attached) const {
  const Primitive* store = storeAtOf(*this);
  const std::size_t host = store ? position(m_logical, store->dims[0]) : 0;
  const std::vector<Dim> attachedShape = store ? attachedDims(*this, host) : std::vector<Dim>{};
  checkSpan("unpack", "physical", physical.size(), size());
  checkSpan("unpack", "logical", logical.size(), logicalSize());
  checkSpan("unpack", "attached", attached.size(), store ? product(attachedShape) : 0);
  const std::vector<Step> steps = stepsOf(*this);
  // Reads each element from its home position; one in no tile becomes 0. x is the caller's, so
  // that its capacity serves every element.
  auto read = [&](std::vector<std::int64_t>& x) {
    bool covered = true;
    forward(steps, x, covered);
    return covered ? physical[std::size_t(rowMajor(x, m_physical))] : 0.0f;
  };
  forEachRange(m_logical,
               [&](std::int64_t begin, std::int64_t end, std::vector<std::int64_t> index) {
                 std::vector<std::int64_t> x;
                 for (std::int64_t i = begin; i < end; ++i) {
                   x.assign(index.begin(), index.end());
                   logical[std::size_t(i)] = read(x);
                   advance(index, m_logical);
                 }
               });
  std::vector<std::int64_t> index(attachedShape.size(), 0);
  for (float& out : attached) {
    std::vector<std::int64_t> x = index;
    x.insert(x.begin() + std::ptrdiff_t(host), m_logical[host].extent);
    out = read(x);
    advance(index, attachedShape);
  }
}

// Structural, and exact for what it accepts: split and fuse keep the row-major order of the
// index, and so do a reorder that moves only extent-1 dims, an unfold into disjoint tiles that
// cover the dim (a split, or one tile of the whole dim), and a zero pad. Anything else (real
// padding, overlapping or partial tiles, store_at, a real reorder) answers false, even where it
// happens to move nothing.
bool Layout::isIdentity() const {
  for (const Step& s : stepsOf(*this)) {
    switch (s.kind) {
      case PrimitiveKind::Split:
      case PrimitiveKind::Fuse:
        break;
      case PrimitiveKind::Reorder:
        for (std::size_t j = 0, k = 0; j < s.from.size(); ++j) {
          if (s.before[s.from[j]].extent == 1) continue;
          while (s.before[k].extent == 1) ++k;
          if (s.from[j] != k++) return false;
        }
        break;
      case PrimitiveKind::Unfold:
        if (s.count * s.a != s.extent() || (s.count > 1 && s.a != s.b)) return false;
        break;
      case PrimitiveKind::Pad:
        if (s.a != 0 || s.b != 0) return false;
        break;
      case PrimitiveKind::StoreAt:
        return false;
    }
  }
  return true;
}

// Follows, per dim, the smallest interval holding every position that holds data (the store_at
// row included); an unfold whose uncovered tail meets that interval loses data. Exact for the
// usual chains (pads, then an unfold, of one logical dim); after splits or fuses of padded dims
// the interval may be wider than the data, and the answer errs towards false.
bool Layout::covers() const {
  struct Span {
    std::int64_t low, high;  // inclusive
  };
  std::vector<Span> spans;
  for (const Dim& d : m_logical) spans.push_back({0, d.extent - 1});
  for (const Step& s : stepsOf(*this)) {
    const auto at = spans.begin() + std::ptrdiff_t(s.at);
    const Span x = *at;
    switch (s.kind) {
      case PrimitiveKind::Split: {
        const std::int64_t f = s.a;
        const bool oneBlock = x.low / f == x.high / f;
        *at = {x.low / f, x.high / f};
        spans.insert(at + 1, oneBlock ? Span{x.low % f, x.high % f} : Span{0, f - 1});
        break;
      }
      case PrimitiveKind::Reorder: {
        std::vector<Span> y;
        for (std::size_t from : s.from) y.push_back(spans[from]);
        spans = std::move(y);
        break;
      }
      case PrimitiveKind::Fuse: {
        const Span inner = *(at + 1);
        const std::int64_t e = s.before[s.at + 1].extent;
        *at = {x.low * e + inner.low, x.high * e + inner.high};
        spans.erase(at + 1);
        break;
      }
      case PrimitiveKind::Unfold: {
        const std::int64_t tile = s.a, stride = s.b;
        if (x.high >= (s.count - 1) * stride + tile) return false;
        *at = {firstTile(x.low, tile, stride), std::min(x.high / stride, s.count - 1)};
        spans.insert(at + 1, s.count == 1 ? x : Span{0, tile - 1});
        break;
      }
      case PrimitiveKind::Pad:
        *at = {x.low + s.a, x.high + s.a};
        break;
      case PrimitiveKind::StoreAt:
        at->high += 1;
        break;
    }
  }
  return true;
}

}  // namespace opevo::layout
