// Tensor layouts (core/layout/layout.h) on real data: packing and unpacking round trips, the
// generated offset and gather expressions evaluated against the numbers, and the error rules.

#include "layout/layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <stdexcept>

#include "common/error.h"

namespace opevo::layout {
namespace {

// ---- An evaluator for the generated C expressions ---------------------------------------------
// Integer literals, the given variables, unary -, * / % + -, comparisons, && ||, ?: and the
// (long long) cast, with C's precedence and truncating division.

class Expression {
 public:
  Expression(const std::string& text, const std::vector<std::string>& variables)
      : m_text(text), m_variables(variables) {
    tokenize();
    m_root = conditional();
    if (m_at != m_tokens.size()) fail("unexpected '" + m_tokens[m_at] + "'");
  }

  std::int64_t operator()(const std::vector<std::int64_t>& values) const {
    return eval(m_root, values);
  }

 private:
  struct Node {
    std::string op;  // "#": number, "$": variable, "?": conditional, "neg", or a C operator
    std::int64_t value = 0;
    std::vector<int> kids;
  };

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("expression '" + m_text + "': " + what);
  }

  void tokenize() {
    for (std::size_t i = 0; i < m_text.size();) {
      const char c = m_text[i];
      if (c == ' ') {
        ++i;
      } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
        std::size_t j = i;
        while (j < m_text.size() &&
               (std::isalnum(static_cast<unsigned char>(m_text[j])) || m_text[j] == '_'))
          ++j;
        m_tokens.push_back(m_text.substr(i, j - i));
        i = j;
      } else {
        const std::string two = m_text.substr(i, 2);
        const bool pair =
            two == "<=" || two == ">=" || two == "==" || two == "!=" || two == "&&" || two == "||";
        m_tokens.push_back(pair ? two : std::string(1, c));
        i += pair ? 2 : 1;
      }
    }
  }

  const std::string& peek(std::size_t ahead = 0) const {
    static const std::string end;
    return m_at + ahead < m_tokens.size() ? m_tokens[m_at + ahead] : end;
  }
  bool accept(const std::string& token) {
    if (peek() != token) return false;
    ++m_at;
    return true;
  }
  void expect(const std::string& token) {
    if (!accept(token)) fail("expected '" + token + "' at '" + peek() + "'");
  }
  int node(std::string op, std::vector<int> kids, std::int64_t value = 0) {
    m_nodes.push_back({std::move(op), value, std::move(kids)});
    return int(m_nodes.size()) - 1;
  }

  // Left-associative binary levels, loosest first.
  int binary(std::size_t level) {
    static const std::vector<std::vector<std::string>> levels = {
        {"||"}, {"&&"}, {"==", "!="}, {"<", "<=", ">", ">="}, {"+", "-"}, {"*", "/", "%"}};
    if (level == levels.size()) return unary();
    int left = binary(level + 1);
    for (;;) {
      const auto& ops = levels[level];
      const auto op = std::find(ops.begin(), ops.end(), peek());
      if (op == ops.end()) return left;
      ++m_at;
      left = node(*op, {left, binary(level + 1)});
    }
  }
  int conditional() {
    const int test = binary(0);
    if (!accept("?")) return test;
    const int yes = conditional();
    expect(":");
    return node("?", {test, yes, conditional()});
  }
  int unary() {
    if (accept("-")) return node("neg", {unary()});
    if (peek() == "(" && peek(1) == "long" && peek(2) == "long" && peek(3) == ")") {
      m_at += 4;
      return unary();
    }
    if (accept("(")) {
      const int inner = conditional();
      expect(")");
      return inner;
    }
    const std::string token = peek();
    if (token.empty()) fail("unexpected end");
    ++m_at;
    if (std::isdigit(static_cast<unsigned char>(token[0]))) return node("#", {}, std::stoll(token));
    const auto var = std::find(m_variables.begin(), m_variables.end(), token);
    if (var == m_variables.end()) fail("unknown name '" + token + "'");
    return node("$", {}, var - m_variables.begin());
  }

  std::int64_t eval(int at, const std::vector<std::int64_t>& v) const {
    const Node& n = m_nodes[std::size_t(at)];
    auto kid = [&](std::size_t k) { return eval(n.kids[k], v); };
    if (n.op == "#") return n.value;
    if (n.op == "$") return v[std::size_t(n.value)];
    if (n.op == "neg") return -kid(0);
    if (n.op == "?") return kid(0) ? kid(1) : kid(2);
    if (n.op == "&&") return kid(0) && kid(1);
    if (n.op == "||") return kid(0) || kid(1);
    const std::int64_t a = kid(0), b = kid(1);
    if ((n.op == "/" || n.op == "%") && b == 0) fail("division by zero");
    if (n.op == "+") return a + b;
    if (n.op == "-") return a - b;
    if (n.op == "*") return a * b;
    if (n.op == "/") return a / b;
    if (n.op == "%") return a % b;
    if (n.op == "<") return a < b;
    if (n.op == "<=") return a <= b;
    if (n.op == ">") return a > b;
    if (n.op == ">=") return a >= b;
    if (n.op == "==") return a == b;
    return a != b;
  }

  std::string m_text;
  std::vector<std::string> m_variables;
  std::vector<std::string> m_tokens;
  std::size_t m_at = 0;
  std::vector<Node> m_nodes;
  int m_root = 0;
};

TEST(LayoutExpressionEvaluator, FollowsCPrecedenceAndTruncation) {
  const std::vector<std::string> names{"x", "y"};
  EXPECT_EQ(Expression("x + y * 2 - 1", names)({3, 4}), 10);
  EXPECT_EQ(Expression("((x < 4) ? 0 : ((x - 2) / 2))", names)({7, 0}), 2);
  EXPECT_EQ(Expression("(-7) / 2 + (-7) % 2", names)({0, 0}), -4);
  EXPECT_EQ(Expression("((x >= 1) && (x < 5) || (y == 3))", names)({0, 3}), 1);
  EXPECT_EQ(Expression("((long long)x * 3)", names)({5, 0}), 15);
  EXPECT_THROW(Expression("x + z", names), std::runtime_error);
}

// ---- Helpers --------------------------------------------------------------------------------

std::vector<std::string> indexNames(const std::string& prefix, std::size_t count) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < count; ++i) names.push_back(prefix + std::to_string(i));
  return names;
}

std::int64_t count(const std::vector<Dim>& dims) {
  std::int64_t n = 1;
  for (const Dim& d : dims) n *= d.extent;
  return n;
}

// Every index over dims in row-major order.
void forEachIndex(const std::vector<Dim>& dims,
                  const std::function<void(const std::vector<std::int64_t>&)>& visit) {
  std::vector<std::int64_t> index(dims.size(), 0);
  for (std::int64_t n = count(dims); n > 0; --n) {
    visit(index);
    for (std::size_t i = dims.size(); i-- > 0;) {
      if (++index[i] < dims[i].extent) break;
      index[i] = 0;
    }
  }
}

std::int64_t rowMajor(const std::vector<std::int64_t>& index, const std::vector<Dim>& dims) {
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) offset = offset * dims[i].extent + index[i];
  return offset;
}

std::vector<float> randomData(std::int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> magnitude(0.5f, 1.5f);
  std::vector<float> data(static_cast<std::size_t>(n));
  for (float& x : data) x = (rng() % 2 ? 1.0f : -1.0f) * magnitude(rng);  // never 0
  return data;
}

// The store_at primitive, if any, and the attached tensor's dims.
const Primitive* storeAtOf(const Layout& l) {
  for (const Primitive& p : l.primitives())
    if (p.kind == PrimitiveKind::StoreAt) return &p;
  return nullptr;
}
std::size_t hostOf(const Layout& l) {
  const Primitive* store = storeAtOf(l);
  for (std::size_t i = 0; store && i < l.logical().size(); ++i)
    if (l.logical()[i].name == store->dims[0]) return i;
  return 0;
}
std::vector<Dim> attachedDims(const Layout& l) {
  if (!storeAtOf(l)) return {};
  std::vector<Dim> dims = l.logical();
  dims.erase(dims.begin() + std::ptrdiff_t(hostOf(l)));
  return dims;
}

// pack then unpack random data: every covered element comes back exactly, the others as 0.
void expectRoundTrip(const Layout& l, unsigned seed = 1) {
  SCOPED_TRACE(l.describe());
  const bool attached = storeAtOf(l) != nullptr;
  const std::vector<float> data = randomData(l.logicalSize(), seed);
  const std::vector<float> extra = randomData(attached ? count(attachedDims(l)) : 0, seed + 1);
  std::vector<float> physical(std::size_t(l.size()), 7.0f);
  l.pack(data, extra, physical);
  std::vector<float> back(data.size(), 7.0f), extraBack(extra.size(), 7.0f);
  l.unpack(physical, back, extraBack);
  std::int64_t e = 0;
  forEachIndex(l.logical(), [&](const std::vector<std::int64_t>& index) {
    const float expected = l.offset(index) >= 0 ? data[std::size_t(e)] : 0.0f;
    ASSERT_EQ(back[std::size_t(e)], expected) << "element " << e;
    ++e;
  });
  EXPECT_EQ(extraBack, extra);
  if (l.covers()) {
    EXPECT_EQ(back, data);
  }
}

// The expressions agree with the numbers: offsetExpression with offset() on every element, and
// gather on every physical position with what pack stored there (element e holds e + 1, attached
// element j holds -(j + 1), padding 0); inBounds is false exactly where no host element is.
void expectMapsAgree(const Layout& l) {
  SCOPED_TRACE(l.describe());
  const std::vector<std::string> logicalNames = indexNames("l", l.logical().size());
  const Expression offsetOf(l.offsetExpression(logicalNames), logicalNames);
  forEachIndex(l.logical(), [&](const std::vector<std::int64_t>& index) {
    const std::int64_t offset = l.offset(index);
    if (offset < 0) return;
    ASSERT_LT(offset, l.size());
    ASSERT_EQ(offsetOf(index), offset);
  });

  const std::vector<Dim> attached = attachedDims(l);
  std::vector<float> data(std::size_t(l.logicalSize())), extra(std::size_t(count(attached)));
  if (attached.empty() && !storeAtOf(l)) extra.clear();
  for (std::size_t e = 0; e < data.size(); ++e) data[e] = float(e + 1);
  for (std::size_t j = 0; j < extra.size(); ++j) extra[j] = -float(j + 1);
  std::vector<float> physical(std::size_t(l.size()));
  l.pack(data, extra, physical);

  const std::vector<std::string> physicalNames = indexNames("p", l.physical().size());
  const Gather g = l.gather(physicalNames);
  ASSERT_EQ(g.logicalIndex.size(), l.logical().size());
  std::vector<Expression> logicalOf;
  for (const std::string& e : g.logicalIndex) logicalOf.emplace_back(e, physicalNames);
  std::optional<Expression> inBounds;
  if (!g.inBounds.empty()) inBounds.emplace(g.inBounds, physicalNames);
  std::int64_t p = 0;
  forEachIndex(l.physical(), [&](const std::vector<std::int64_t>& position) {
    const float stored = physical[std::size_t(p++)];
    std::vector<std::int64_t> index;
    for (const Expression& e : logicalOf) index.push_back(e(position));
    if (!inBounds || (*inBounds)(position)) {
      for (std::size_t i = 0; i < index.size(); ++i) {
        ASSERT_GE(index[i], 0);
        ASSERT_LT(index[i], l.logical()[i].extent);
      }
      ASSERT_EQ(stored, float(rowMajor(index, l.logical()) + 1)) << "position " << p - 1;
    } else if (stored < 0) {
      // The store_at row: the host dim's index is its extent, the rest index the attached tensor.
      const std::size_t host = hostOf(l);
      ASSERT_EQ(index[host], l.logical()[host].extent);
      index.erase(index.begin() + std::ptrdiff_t(host));
      ASSERT_EQ(stored, -float(rowMajor(index, attached) + 1));
    } else {
      ASSERT_EQ(stored, 0.0f) << "position " << p - 1;
    }
  });

  if (storeAtOf(l)) {
    const std::vector<std::string> names = indexNames("a", attached.size());
    const Expression offsetOfAttached(l.attachedOffsetExpression(names), names);
    forEachIndex(attached, [&](const std::vector<std::int64_t>& index) {
      const std::int64_t offset = offsetOfAttached(index);
      ASSERT_GE(offset, 0);
      ASSERT_LT(offset, l.size());
      ASSERT_EQ(physical[std::size_t(offset)], -float(rowMajor(index, attached) + 1));
    });
  }
}

std::vector<std::int64_t> extents(const std::vector<Dim>& dims) {
  std::vector<std::int64_t> out;
  for (const Dim& d : dims) out.push_back(d.extent);
  return out;
}

std::vector<std::string> names(const std::vector<Dim>& dims) {
  std::vector<std::string> out;
  for (const Dim& d : dims) out.push_back(d.name);
  return out;
}

// ---- Primitives on real data ------------------------------------------------------------------

TEST(Layout, IdentityIsRowMajor) {
  const Layout l({{"n", 2}, {"c", 3}, {"h", 4}});
  EXPECT_EQ(l.describe(), "identity");
  EXPECT_TRUE(l.isIdentity());
  EXPECT_TRUE(l.covers());
  EXPECT_EQ(l.physical(), l.logical());
  EXPECT_EQ(l.strides(), (std::vector<std::int64_t>{12, 4, 1}));
  EXPECT_EQ(l.size(), 24);
  EXPECT_EQ(l.offsetExpression({"n", "c", "h"}), "((((n * 3) + c) * 4) + h)");
  EXPECT_EQ(l.gather({"a", "b", "c"}).inBounds, "");
  expectRoundTrip(l);
  expectMapsAgree(l);
}

TEST(Layout, SplitAndReorderGiveNchw16c) {
  Layout l({{"n", 2}, {"c", 64}, {"h", 5}, {"w", 6}});
  l.split("c", 16).reorder({"n", "c_o", "h", "w", "c_i"});
  EXPECT_EQ(l.describe(), "split(c, 16); reorder(n, c_o, h, w, c_i)");
  EXPECT_EQ(names(l.physical()), (std::vector<std::string>{"n", "c_o", "h", "w", "c_i"}));
  EXPECT_EQ(extents(l.physical()), (std::vector<std::int64_t>{2, 4, 5, 6, 16}));
  EXPECT_EQ(l.strides(), (std::vector<std::int64_t>{1920, 480, 96, 16, 1}));
  EXPECT_EQ(l.size(), 3840);
  EXPECT_EQ(l.logicalSize(), 3840);
  EXPECT_FALSE(l.isIdentity());
  EXPECT_TRUE(l.covers());
  EXPECT_EQ(l.offsetExpression({"n", "c", "h", "w"}),
            "((((((((n * 4) + (c / 16)) * 5) + h) * 6) + w) * 16) + (c % 16))");
  const Gather g = l.gather({"n", "co", "h", "w", "ci"});
  EXPECT_EQ(g.logicalIndex, (std::vector<std::string>{"n", "((co * 16) + ci)", "h", "w"}));
  EXPECT_EQ(g.inBounds, "");
  forEachIndex(l.logical(), [&](const std::vector<std::int64_t>& x) {
    const std::int64_t n = x[0], c = x[1], h = x[2], w = x[3];
    ASSERT_EQ(l.offset(x), (((n * 4 + c / 16) * 5 + h) * 6 + w) * 16 + c % 16);
  });
  expectRoundTrip(l);
  expectMapsAgree(l);
}

TEST(Layout, FuseJoinsAdjacentDims) {
  Layout l({{"a", 3}, {"b", 4}, {"c", 5}});
  l.fuse("a", "b");
  EXPECT_EQ(l.physical(), (std::vector<Dim>{{"a_b", 12}, {"c", 5}}));
  EXPECT_TRUE(l.isIdentity());
  l.reorder({"c", "a_b"});
  EXPECT_FALSE(l.isIdentity());
  EXPECT_EQ(l.describe(), "fuse(a, b); reorder(c, a_b)");
  forEachIndex(l.logical(), [&](const std::vector<std::int64_t>& x) {
    ASSERT_EQ(l.offset(x), x[2] * 12 + x[0] * 4 + x[1]);
  });
  EXPECT_EQ(l.gather({"c", "ab"}).logicalIndex,
            (std::vector<std::string>{"(ab / 4)", "(ab % 4)", "c"}));
  expectRoundTrip(l);
  expectMapsAgree(l);
}

TEST(Layout, PadStoresZerosAroundTheElements) {
  Layout l({{"h", 5}, {"w", 7}});
  l.pad("h", 1, 2).pad("w", 0, 3);
  EXPECT_EQ(l.physical(), (std::vector<Dim>{{"h", 8}, {"w", 10}}));
  EXPECT_EQ(l.size(), 80);
  EXPECT_FALSE(l.isIdentity());
  EXPECT_TRUE(l.covers());
  forEachIndex(l.logical(), [&](const std::vector<std::int64_t>& x) {
    ASSERT_EQ(l.offset(x), (x[0] + 1) * 10 + x[1]);
  });
  const Gather g = l.gather({"y", "x"});
  EXPECT_EQ(g.logicalIndex, (std::vector<std::string>{"(y - 1)", "x"}));
  EXPECT_EQ(g.inBounds, "((x < 7) && (y >= 1) && (y < 6))");
  const std::vector<float> data = randomData(35, 3);
  std::vector<float> physical(80);
  l.pack(data, physical);
  EXPECT_EQ(std::count(physical.begin(), physical.end(), 0.0f), 80 - 35);
  expectRoundTrip(l);
  expectMapsAgree(l);
}

// One row of length `extent` unfolded into tiles; a second dim keeps the tiles apart in memory.
Layout unfolded(std::int64_t extent, std::int64_t tile, std::int64_t stride) {
  Layout l({{"r", 3}, {"x", extent}});
  l.unfold("x", tile, stride);
  return l;
}

// Position (o, i) holds element o * stride + i, and an element's home is its first tile.
void expectUnfoldHolds(const Layout& l, std::int64_t tile, std::int64_t stride) {
  const std::int64_t tiles = l.physical()[1].extent;
  const std::int64_t extent = l.logical()[1].extent;
  std::vector<float> data = randomData(l.logicalSize(), 5), physical(std::size_t(l.size()));
  l.pack(data, physical);
  for (std::int64_t r = 0; r < 3; ++r)
    for (std::int64_t x = 0; x < extent; ++x) {
      std::int64_t home = -1;
      for (std::int64_t o = tiles - 1; o >= 0; --o) {
        const std::int64_t i = x - o * stride;
        if (i < 0 || i >= tile) continue;
        home = (r * tiles + o) * tile + i;
        ASSERT_EQ(physical[std::size_t(home)], data[std::size_t(r * extent + x)]);
      }
      ASSERT_EQ(l.offset(std::vector<std::int64_t>{r, x}), home) << "x = " << x;
    }
}

TEST(Layout, UnfoldOverlappingTilesWithoutRemainder) {
  const Layout l = unfolded(10, 4, 2);
  EXPECT_EQ(l.physical(), (std::vector<Dim>{{"r", 3}, {"x_o", 4}, {"x_i", 4}}));
  EXPECT_TRUE(l.covers());
  EXPECT_FALSE(l.isIdentity());
  EXPECT_EQ(l.describe(), "unfold(x, 4, 2)");
  EXPECT_EQ(l.gather({"r", "o", "i"}).logicalIndex,
            (std::vector<std::string>{"r", "((o * 2) + i)"}));
  expectUnfoldHolds(l, 4, 2);
  expectRoundTrip(l);
  expectMapsAgree(l);

  // Tiles less than two strides wide need no test for the first tile: (x - 1) / 2 is 0 at x = 0.
  const Layout narrow = unfolded(11, 3, 2);
  EXPECT_EQ(narrow.offsetExpression({"r", "x"}),
            "((((r * 5) + ((x - 1) / 2)) * 3) + (x - (((x - 1) / 2) * 2)))");
  expectUnfoldHolds(narrow, 3, 2);
  expectRoundTrip(narrow);
  expectMapsAgree(narrow);
}

TEST(Layout, UnfoldDisjointTilesWithoutRemainderIsASplit) {
  const Layout l = unfolded(12, 4, 4);
  EXPECT_EQ(extents(l.physical()), (std::vector<std::int64_t>{3, 3, 4}));
  EXPECT_TRUE(l.covers());
  EXPECT_TRUE(l.isIdentity());
  expectUnfoldHolds(l, 4, 4);
  expectRoundTrip(l);
  expectMapsAgree(l);
}

TEST(Layout, UnfoldOverlappingTilesWithRemainderLosesTheTail) {
  const Layout l = unfolded(11, 4, 2);  // tiles at 0, 2, 4, 6: element 10 is in none
  EXPECT_EQ(extents(l.physical()), (std::vector<std::int64_t>{3, 4, 4}));
  EXPECT_FALSE(l.covers());
  EXPECT_EQ(l.offset(std::vector<std::int64_t>{1, 10}), -1);
  EXPECT_GE(l.offset(std::vector<std::int64_t>{1, 9}), 0);
  expectUnfoldHolds(l, 4, 2);
  expectRoundTrip(l);
  expectMapsAgree(l);
}

TEST(Layout, UnfoldDisjointTilesWithRemainderLosesTheTail) {
  const Layout l = unfolded(14, 4, 4);  // elements 12 and 13 are in no tile
  EXPECT_EQ(extents(l.physical()), (std::vector<std::int64_t>{3, 3, 4}));
  EXPECT_FALSE(l.covers());
  EXPECT_FALSE(l.isIdentity());
  EXPECT_EQ(l.offset(std::vector<std::int64_t>{0, 12}), -1);
  EXPECT_EQ(l.offset(std::vector<std::int64_t>{2, 13}), -1);
  const std::vector<float> data = randomData(l.logicalSize(), 9);
  std::vector<float> physical(std::size_t(l.size())), back(data.size());
  l.pack(data, physical);
  l.unpack(physical, back);
  EXPECT_EQ(back[12], 0.0f);
  EXPECT_EQ(back[13], 0.0f);
  EXPECT_EQ(back[11], data[11]);
  expectUnfoldHolds(l, 4, 4);
  expectRoundTrip(l);
  expectMapsAgree(l);
}

TEST(Layout, UnfoldIntoOneTileKeepsTheIndex) {
  const Layout l = unfolded(6, 6, 1);
  EXPECT_EQ(extents(l.physical()), (std::vector<std::int64_t>{3, 1, 6}));
  EXPECT_TRUE(l.isIdentity());
  EXPECT_EQ(l.offsetExpression({"r", "x"}), "((r * 6) + x)");
  expectRoundTrip(l);
  expectMapsAgree(l);
}

TEST(Layout, StoreAtKeepsABiasAsAnExtraRow) {
  Layout l({{"k", 7}, {"n", 8}});
  l.storeAt("k", "bias");
  EXPECT_EQ(l.physical(), (std::vector<Dim>{{"k", 8}, {"n", 8}}));
  EXPECT_EQ(l.logicalSize(), 56);
  EXPECT_EQ(l.size(), 64);
  EXPECT_FALSE(l.isIdentity());
  EXPECT_EQ(l.attachedOffsetExpression({"j"}), "(56 + j)");
  EXPECT_EQ(l.gather({"k", "n"}).inBounds, "(k < 7)");
  expectRoundTrip(l);
  expectMapsAgree(l);

  l.split("k", 4).reorder({"k_o", "n", "k_i"});
  EXPECT_EQ(l.describe(), "store_at(k, bias); split(k, 4); reorder(k_o, n, k_i)");
  EXPECT_EQ(extents(l.physical()), (std::vector<std::int64_t>{2, 8, 4}));
  const std::vector<float> weight = randomData(56, 11), bias = randomData(8, 12);
  std::vector<float> physical(64);
  l.pack(weight, bias, physical);
  for (std::int64_t j = 0; j < 8; ++j)  // row 7 of k: k_o 1, k_i 3
    EXPECT_EQ(physical[std::size_t((1 * 8 + j) * 4 + 3)], bias[std::size_t(j)]);
  std::vector<float> weightBack(56), biasBack(8);
  l.unpack(physical, weightBack, biasBack);
  EXPECT_EQ(weightBack, weight);
  EXPECT_EQ(biasBack, bias);
  expectRoundTrip(l);
  expectMapsAgree(l);

  // The attached tensor travels beside the logical one; without it the spans do not fit.
  EXPECT_THROW(l.pack(weight, physical), std::invalid_argument);
  EXPECT_THROW(l.unpack(physical, weightBack), std::invalid_argument);
}

TEST(Layout, StoreAtAfterOtherDimsWereTransformed) {
  Layout l({{"n", 6}, {"k", 3}});
  l.split("n", 2).storeAt("k", "scale").pad("k", 0, 2).reorder({"k", "n_o", "n_i"});
  EXPECT_EQ(extents(l.physical()), (std::vector<std::int64_t>{6, 3, 2}));
  EXPECT_EQ(l.gather({"k", "o", "i"}).inBounds, "((k < 4) && (k < 3))");
  expectRoundTrip(l);
  expectMapsAgree(l);
}

// ALT's Conv2D input layout: the padded input unfolded into the windows that each output tile of
// ht x wt pixels reads, channels split into blocks of ci innermost.
Layout convInput(std::int64_t n, std::int64_t c, std::int64_t hw, std::int64_t kernel,
                 std::int64_t stride, std::int64_t pad, std::int64_t tile, std::int64_t ci) {
  Layout l({{"n", n}, {"c", c}, {"h", hw}, {"w", hw}});
  l.pad("h", pad, pad).pad("w", pad, pad);
  l.unfold("h", (tile - 1) * stride + kernel, tile * stride);
  l.unfold("w", (tile - 1) * stride + kernel, tile * stride);
  l.split("c", ci).reorder({"n", "c_o", "h_o", "w_o", "h_i", "w_i", "c_i"});
  return l;
}

// Position (n, c_o, h_o, w_o, h_i, w_i, c_i) holds input (n, c_o * ci + c_i, h_o * step + h_i -
// pad, w_o * step + w_i - pad), or 0 outside the image: checked against pack directly.
void expectConvWindows(const Layout& l, std::int64_t step, std::int64_t pad) {
  const std::vector<Dim>& in = l.logical();
  const std::int64_t ci = l.physical()[6].extent, hw = in[2].extent;
  const std::vector<float> data = randomData(l.logicalSize(), 21);
  std::vector<float> physical(std::size_t(l.size()));
  l.pack(data, physical);
  std::int64_t p = 0;
  forEachIndex(l.physical(), [&](const std::vector<std::int64_t>& x) {
    const std::int64_t c = x[1] * ci + x[6];
    const std::int64_t h = x[2] * step + x[4] - pad, w = x[3] * step + x[5] - pad;
    const bool inside = h >= 0 && h < hw && w >= 0 && w < hw;
    const float expected = inside ? data[std::size_t(rowMajor({x[0], c, h, w}, in))] : 0.0f;
    ASSERT_EQ(physical[std::size_t(p++)], expected);
  });
}

TEST(Layout, ConvInputLayoutForAStride1Conv) {
  // 3x3, stride 1, pad 1, 56x56 -> 56x56 output in 7x7 tiles: windows of 9 rows, 7 apart.
  const Layout l = convInput(2, 8, 56, 3, 1, 1, 7, 4);
  EXPECT_EQ(names(l.physical()),
            (std::vector<std::string>{"n", "c_o", "h_o", "w_o", "h_i", "w_i", "c_i"}));
  EXPECT_EQ(extents(l.physical()), (std::vector<std::int64_t>{2, 2, 8, 8, 9, 9, 4}));
  EXPECT_EQ(l.size(), 2 * 2 * 8 * 8 * 9 * 9 * 4);
  EXPECT_EQ(l.describe(),
            "pad(h, 1, 1); pad(w, 1, 1); unfold(h, 9, 7); unfold(w, 9, 7); split(c, 4); "
            "reorder(n, c_o, h_o, w_o, h_i, w_i, c_i)");
  EXPECT_TRUE(l.covers());
  const Gather g = l.gather({"n", "co", "ho", "wo", "hi", "wi", "ci"});
  EXPECT_EQ(g.logicalIndex,
            (std::vector<std::string>{"n", "((co * 4) + ci)", "(((ho * 7) + hi) - 1)",
                                      "(((wo * 7) + wi) - 1)"}));
  EXPECT_EQ(g.inBounds,
            "((((wo * 7) + wi) >= 1) && (((wo * 7) + wi) < 57) && (((ho * 7) + hi) >= 1) && "
            "(((ho * 7) + hi) < 57))");
  expectConvWindows(l, 7, 1);
  expectRoundTrip(l);
  expectMapsAgree(l);
}

TEST(Layout, ConvInputLayoutForAStride2Conv) {
  // 3x3, stride 2, pad 1, 56x56 -> 28x28 output in 7x7 tiles: windows of 15 rows, 14 apart.
  // The padded 58 rows leave row 57 (padding) in no window; every input element is covered.
  const Layout l = convInput(1, 8, 56, 3, 2, 1, 7, 8);
  EXPECT_EQ(extents(l.physical()), (std::vector<std::int64_t>{1, 1, 4, 4, 15, 15, 8}));
  EXPECT_TRUE(l.covers());
  expectConvWindows(l, 14, 1);
  expectRoundTrip(l);
  expectMapsAgree(l);
}

TEST(Layout, ExtentOneDimsDropOutOfExpressions) {
  Layout l({{"n", 1}, {"c", 32}});
  l.split("c", 8);
  EXPECT_EQ(l.offsetExpression({"n", "c"}), "(((c / 8) * 8) + (c % 8))");
  EXPECT_EQ(l.gather({"n", "co", "ci"}).logicalIndex,
            (std::vector<std::string>{"0", "((co * 8) + ci)"}));
}

TEST(Layout, LargeLayoutsComputeInLongLong) {
  Layout l({{"a", std::int64_t(1) << 20}, {"b", std::int64_t(1) << 16}});
  l.split("b", 256).reorder({"b_o", "a", "b_i"});
  const std::string e = l.offsetExpression({"a", "b"});
  EXPECT_NE(e.find("(long long)"), std::string::npos) << e;
  const std::vector<std::int64_t> x{(1 << 20) - 3, (1 << 16) - 5};
  EXPECT_EQ(Expression(e, {"a", "b"})(x), l.offset(x));
  EXPECT_GT(l.offset(x), std::int64_t(1) << 31);
}

TEST(Layout, IsIdentityOnlyWhenNothingMoves) {
  auto offsetsAreRowMajor = [](const Layout& l) {
    std::int64_t e = 0;
    bool same = true;
    forEachIndex(l.logical(),
                 [&](const std::vector<std::int64_t>& x) { same = same && l.offset(x) == e++; });
    return same;
  };
  const std::vector<Dim> dims{{"a", 4}, {"b", 1}, {"c", 6}};
  std::vector<Layout> identities(5, Layout(dims));
  identities[1].split("c", 3);
  identities[2].split("c", 2).fuse("c_o", "c_i");
  identities[3].reorder({"a", "b", "c"});
  identities[4].reorder({"b", "a", "c"}).pad("c", 0, 0);
  for (const Layout& l : identities) {
    EXPECT_TRUE(l.isIdentity()) << l.describe();
    EXPECT_TRUE(offsetsAreRowMajor(l)) << l.describe();
  }
  std::vector<Layout> others(4, Layout(dims));
  others[0].reorder({"c", "b", "a"});
  others[1].pad("a", 0, 1);
  others[2].unfold("c", 4, 2);
  others[3].storeAt("a", "t");
  for (const Layout& l : others) EXPECT_FALSE(l.isIdentity()) << l.describe();
}

// ---- The JSON form ---------------------------------------------------------------------------

TEST(Layout, JsonRoundTrips) {
  Layout bias({{"k", 7}, {"n", 8}});
  bias.storeAt("k", "bias").split("k", 4);
  for (const Layout& l : {convInput(1, 8, 56, 3, 2, 1, 7, 8), bias, Layout({{"x", 3}})}) {
    const nlohmann::json j = l.toJson();
    const Layout back = Layout::fromJson(nlohmann::json::parse(j.dump()));
    EXPECT_EQ(back, l);
    EXPECT_EQ(back.physical(), l.physical());
    EXPECT_EQ(back.describe(), l.describe());
  }
  const nlohmann::json j = bias.toJson();
  EXPECT_EQ(j["primitives"][0],
            nlohmann::json::parse(R"({"kind":"store_at","dims":["k","bias"],"args":[]})"));
  EXPECT_EQ(j["primitives"][1],
            nlohmann::json::parse(R"({"kind":"split","dims":["k"],"args":[4]})"));
  EXPECT_EQ(j["logical"][1], nlohmann::json::parse(R"({"name":"n","extent":8})"));
  EXPECT_EQ(j["physical"][0], nlohmann::json::parse(R"({"name":"k_o","extent":2})"));
}

void expectBadJson(const std::string& text, const std::string& field) {
  try {
    Layout::fromJson(nlohmann::json::parse(text));
    ADD_FAILURE() << "accepted " << text;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(Layout, FromJsonNamesTheBadField) {
  expectBadJson("[]", "object");
  expectBadJson("{}", "logical");
  expectBadJson(R"({"logical": [{"name": "h"}]})", "logical[0].extent");
  expectBadJson(R"({"logical": [{"name": "h", "extent": 0}]})", "'h'");
  const std::string logical = R"("logical": [{"name": "h", "extent": 56}])";
  expectBadJson("{" + logical + R"(, "primitives": {}})", "primitives");
  expectBadJson("{" + logical + R"(, "primitives": [{"kind": "spilt", "dims": ["h"]}]})",
                "primitives[0].kind 'spilt'");
  expectBadJson("{" + logical + R"(, "primitives": [{"kind": "split", "dims": ["h"]}]})",
                "primitives[0].args");
  expectBadJson("{" + logical + R"(, "primitives": [{"kind": "pad", "dims": [1], "args": [1,1]}]})",
                "primitives[0].dims");
  expectBadJson("{" + logical +
                    R"(, "primitives": [{"kind": "pad", "dims": ["h"], "args": [1, 1]},
                                        {"kind": "split", "dims": ["h"], "args": [5]}]})",
                "primitives[1]: split(h, 5): 5 does not divide h's extent 58");
  expectBadJson("{" + logical + R"(, "physical": [{"name": "h", "extent": 57}]})", "physical");
}

// ---- Errors ----------------------------------------------------------------------------------

// apply must throw an InputError whose message contains `needle`, and leave the layout as it was.
void expectRefused(Layout l, const std::function<void(Layout&)>& apply, const std::string& needle) {
  const Layout before = l;
  try {
    apply(l);
    ADD_FAILURE() << "no error; wanted one containing \"" << needle << "\"";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
  EXPECT_EQ(l, before);
  EXPECT_EQ(l.physical(), before.physical());
}

TEST(Layout, RefusesPrimitivesThatCannotApply) {
  const Layout nchw({{"n", 1}, {"c", 64}, {"h", 56}, {"w", 56}});
  expectRefused(
      nchw, [](Layout& l) { l.split("h", 5); },
      "split(h, 5): 5 does not divide h's extent 56; pad h first");
  expectRefused(
      nchw, [](Layout& l) { l.split("x", 2); }, "'x'");
  expectRefused(
      nchw, [](Layout& l) { l.split("c", 0); }, "split(c, 0)");
  expectRefused(
      nchw,
      [](Layout& l) {
        l.reorder({"n", "c", "h"});
      },
      "n, c, h, w");
  expectRefused(
      nchw,
      [](Layout& l) {
        l.reorder({"n", "n", "h", "w"});
      },
      "'n' appears twice");
  expectRefused(
      nchw,
      [](Layout& l) {
        l.reorder({"n", "q", "h", "w"});
      },
      "no dim 'q'");
  expectRefused(
      nchw, [](Layout& l) { l.fuse("c", "w"); }, "c is not immediately outside w");
  expectRefused(
      nchw, [](Layout& l) { l.fuse("w", "h"); }, "w is not immediately outside h");
  expectRefused(
      nchw, [](Layout& l) { l.fuse("c", "z"); }, "'z'");
  expectRefused(
      nchw, [](Layout& l) { l.unfold("h", 3, 4); },
      "unfold(h, 3, 4): stride 4 > tile 3 of h would skip elements");
  expectRefused(
      nchw, [](Layout& l) { l.unfold("h", 57, 1); }, "exceeds h's extent 56");
  expectRefused(
      nchw, [](Layout& l) { l.unfold("h", 3, 0); }, "unfold(h, 3, 0)");
  expectRefused(
      nchw, [](Layout& l) { l.pad("w", -1, 1); }, "pad(w, -1, 1): negative padding");
  expectRefused(
      nchw, [](Layout& l) { l.pad("w", 1, -1); }, "negative padding of w");
  Layout blocked = nchw;
  blocked.split("c", 16);
  expectRefused(
      blocked, [](Layout& l) { l.split("c", 4); }, "no dim 'c' (dims: n, c_o, c_i, h, w)");
}

TEST(Layout, AFailedPrimitiveLeavesEarlierOnesApplied) {
  Layout l({{"c", 64}, {"h", 56}});
  l.split("c", 16);
  const Layout before = l;
  EXPECT_THROW(l.split("h", 5), InputError);
  EXPECT_EQ(l, before);
  EXPECT_EQ(l.physical(), before.physical());
}

TEST(Layout, RefusesStoreAtOutsideAnUntransformedLogicalDim) {
  const Layout km({{"k", 8}, {"m", 4}});
  Layout split = km, padded = km, stored = km;
  split.split("k", 4);
  padded.pad("m", 1, 0);
  stored.storeAt("k", "bias");
  expectRefused(
      split, [](Layout& l) { l.storeAt("k", "bias"); }, "k was transformed by split(k, 4)");
  expectRefused(
      padded, [](Layout& l) { l.storeAt("m", "bias"); }, "m was transformed by pad(m, 1, 0)");
  expectRefused(
      km, [](Layout& l) { l.storeAt("j", "bias"); }, "'j' is not a logical dim");
  expectRefused(
      stored, [](Layout& l) { l.storeAt("m", "scale"); },
      "store_at(m, scale): the layout already stores 'bias' at k");
  expectRefused(
      km, [](Layout& l) { l.storeAt("k", "bias-1"); }, "store_at(k, bias-1)");
  Layout moved = km;
  moved.reorder({"m", "k"}).storeAt("k", "bias");  // a reorder does not transform k
  EXPECT_EQ(moved.physical(), (std::vector<Dim>{{"m", 4}, {"k", 9}}));
  expectRoundTrip(moved);
  expectMapsAgree(moved);
  EXPECT_THROW(Layout(km).attachedOffsetExpression({"j"}), std::logic_error);
}

TEST(Layout, RefusesDuplicateAndBadNames) {
  auto expectBadDims = [](std::vector<Dim> dims, const std::string& needle) {
    try {
      Layout l(std::move(dims));
      ADD_FAILURE() << "accepted; wanted an error containing \"" << needle << "\"";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expectBadDims({{"a", 2}, {"a", 3}}, "'a' appears twice");
  expectBadDims({{"a", 2}, {"1x", 3}}, "'1x' is not an identifier");
  expectBadDims({{"a-b", 2}}, "'a-b'");
  expectBadDims({{"", 2}}, "''");
  expectBadDims({{"h", 0}}, "'h' has extent 0");
  expectBadDims({}, "at least one dim");
  expectBadDims({{"a", std::int64_t(1) << 32}, {"b", std::int64_t(1) << 32}}, "a, b");

  expectRefused(
      Layout({{"c", 4}, {"c_o", 2}}), [](Layout& l) { l.split("c", 2); },
      "the new dim 'c_o' collides");
  expectRefused(
      Layout({{"h", 9}, {"h_i", 2}}), [](Layout& l) { l.unfold("h", 3, 3); },
      "unfold(h, 3, 3): the new dim 'h_i'");
  expectRefused(
      Layout({{"a", 2}, {"b", 2}, {"a_b", 3}}), [](Layout& l) { l.fuse("a", "b"); },
      "fuse(a, b): the new dim 'a_b' collides");
}

TEST(Layout, RefusesLayoutsTooLargeToAddress) {
  expectRefused(
      Layout({{"a", std::int64_t(1) << 40}}),
      [](Layout& l) { l.pad("a", 0, std::int64_t(1) << 62); }, "pad(a, 0, ");
  expectRefused(
      Layout({{"a", std::int64_t(1) << 40}}),
      [](Layout& l) {
        l.pad("a", std::int64_t(1) << 62, std::numeric_limits<std::int64_t>::max());
      },
      "a's padded");
  expectRefused(
      Layout({{"x", std::int64_t(1) << 40}}),
      [](Layout& l) { l.unfold("x", std::int64_t(1) << 39, 1); }, "unfold(x, ");
}

TEST(Layout, RefusesWrongSpansAndIndices) {
  const Layout l = unfolded(10, 4, 2);
  std::vector<float> logical(30), physical(std::size_t(l.size())), extra(1), shortLogical(29),
      shortPhysical(47), longLogical(31);
  EXPECT_THROW(l.pack(shortLogical, physical), std::invalid_argument);
  EXPECT_THROW(l.pack(logical, shortPhysical), std::invalid_argument);
  EXPECT_THROW(l.pack(logical, extra, physical), std::invalid_argument);
  EXPECT_THROW(l.unpack(physical, longLogical), std::invalid_argument);
  EXPECT_THROW(l.unpack(physical, logical, extra), std::invalid_argument);
  EXPECT_THROW(l.offset(std::vector<std::int64_t>{1}), std::invalid_argument);
  EXPECT_THROW(l.offset(std::vector<std::int64_t>{3, 0}), std::out_of_range);
  EXPECT_THROW(l.offsetExpression({"r"}), std::invalid_argument);
  EXPECT_THROW(l.gather({"r", "o"}), std::invalid_argument);
}

}  // namespace
}  // namespace opevo::layout
