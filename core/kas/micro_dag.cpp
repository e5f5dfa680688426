#include "kas/micro_dag.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace opevo::kas {

namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  // splitmix64 of the combination: order-sensitive, well spread.
  std::uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

bool commutative(PrimitiveKind k) {
  return k == PrimitiveKind::Add || k == PrimitiveKind::Mul || k == PrimitiveKind::Min ||
         k == PrimitiveKind::Max;
}

}  // namespace

MicroDag::MicroDag() {
  m_nodes.push_back(Node{});
  m_shapes.push_back(inputShape());
}

Size MicroDag::resolved(Size s) const {
  // Substitution values may name variables substituted later; a chain is at most kMaxVariables.
  for (std::size_t round = 0; round <= kMaxVariables; ++round) {
    bool changed = false;
    for (const auto& [x, value] : m_subs)
      if (s.exponent(x) != 0) {
        s = s.substituted(x, value);
        changed = true;
      }
    if (!changed) break;
  }
  return s;
}

Symbol MicroDag::nextVariable() const {
  std::size_t used = 0;
  for (const Node& n : m_nodes)
    if (isFc(n.kind))
      used = std::max(used,
                      static_cast<std::size_t>(n.var) - static_cast<std::size_t>(Symbol::X1) + 1);
  return variable(used);
}

std::optional<std::string> MicroDag::typeCheck(std::vector<Shape>& shapes) const {
  shapes.assign(m_nodes.size(), Shape{});
  for (const auto& [x, value] : m_subs) {
    if (!isVariable(x))
      return "a substitution names " + std::string(symbolName(x)) +
             ", which is not a free variable";
    if (resolved(Size::of(x)).exponent(x) != 0)
      return "the substitutions of " + std::string(symbolName(x)) + " go round in a circle";
  }
  for (std::size_t i = 0; i < m_nodes.size(); ++i) {
    const Node& n = m_nodes[i];
    const std::string where =
        "node " + std::to_string(i) + " (" + std::string(primitiveName(n.kind)) + ")";
    if (i == 0) {
      if (n.kind != PrimitiveKind::Input || !n.inputs.empty())
        return "node 0 must be the input, with no inputs";
      shapes[0] = inputShape();
      continue;
    }
    if (n.kind == PrimitiveKind::Input) return where + ": only node 0 is the input";
    const std::size_t arity = isBlend(n.kind) ? 2 : 1;
    if (n.inputs.size() != arity)
      return where + ": takes " + std::to_string(arity) + " input(s), has " +
             std::to_string(n.inputs.size());
    for (int in : n.inputs)
      if (in < 0 || static_cast<std::size_t>(in) >= i)
        return where + ": input " + std::to_string(in) + " is not an earlier node";
    if (isBlend(n.kind)) {
      const Shape& lhs = shapes[static_cast<std::size_t>(n.inputs[0])];
      const Shape& rhs = shapes[static_cast<std::size_t>(n.inputs[1])];
      if (n.inputs[0] == n.inputs[1]) return where + ": blends a tensor with itself";
      if (!blendLegal(lhs, rhs))
        return where + ": " + shapeText(lhs) + " does not broadcast onto " + shapeText(rhs);
      shapes[i] = rhs;
      continue;
    }
    const Shape& in = shapes[static_cast<std::size_t>(n.inputs[0])];
    if (isFc(n.kind) && !isVariable(n.var)) return where + ": its variable must be x1..x8";
    auto out = unaryShape(n.kind, in, n.dim, n.var);
    if (!out)
      return where + ": does not apply to " + shapeText(in) +
             (takesDim(n.kind) ? " at dim " + std::to_string(n.dim) : std::string());
    for (Dim& d : *out) {
      d.size = resolved(d.size);
      if (!d.size.knownIntegral())
        return where + ": size " + d.size.text() + " is not a whole number for every layer";
    }
    if (out->size() > 6) return where + ": more than 6 dims";
    shapes[i] = std::move(*out);
  }
  // Theorem 1: at most one variable per tensor.
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    Size all;
    for (const Dim& d : shapes[i]) all = all * d.size;
    if (all.breaksTheorem1())
      return "node " + std::to_string(i) + ": " + shapeText(shapes[i]) +
             " holds two free variables (Theorem 1)";
  }
  return std::nullopt;
}

MicroDag MicroDag::unchecked(std::vector<Node> afterInput, const std::vector<Substitution>& subs) {
  MicroDag dag;
  std::size_t vars = 0;
  for (Node& n : afterInput) {
    if (isFc(n.kind)) n.var = vars < kMaxVariables ? variable(vars++) : Symbol::C;
    dag.m_nodes.push_back(std::move(n));
  }
  for (const Substitution& s : subs) dag.m_subs[s.variable] = s.value;
  dag.m_shapes.assign(dag.m_nodes.size(), Shape{});
  return dag;
}

std::optional<std::string> MicroDag::refresh() {
  std::vector<Shape> shapes;
  if (auto error = typeCheck(shapes)) return error;
  m_shapes = std::move(shapes);
  return std::nullopt;
}

std::optional<int> MicroDag::add(Node node) {
  if (isFc(node.kind)) {
    if (m_nodes.size() > 64) return std::nullopt;
    try {
      node.var = nextVariable();
    } catch (const std::out_of_range&) {
      return std::nullopt;
    }
  }
  m_nodes.push_back(node);
  std::vector<Shape> shapes;
  if (typeCheck(shapes)) {
    m_nodes.pop_back();
    return std::nullopt;
  }
  m_shapes = std::move(shapes);
  return output();
}

bool MicroDag::substitute(const Substitution& s) {
  if (m_subs.count(s.variable) != 0) return false;
  m_subs[s.variable] = s.value;
  std::vector<Shape> shapes;
  if (typeCheck(shapes)) {
    m_subs.erase(s.variable);
    return false;
  }
  m_shapes = std::move(shapes);
  return true;
}

std::vector<int> MicroDag::leaves() const {
  std::vector<bool> read(m_nodes.size(), false);
  for (const Node& n : m_nodes)
    for (int in : n.inputs) read[static_cast<std::size_t>(in)] = true;
  std::vector<int> out;
  for (std::size_t i = 0; i < m_nodes.size(); ++i)
    if (!read[i]) out.push_back(static_cast<int>(i));
  return out;
}

std::optional<std::string> MicroDag::completeError() const {
  const auto open = leaves();
  if (open.size() != 1 || open.front() != output())
    return "every tensor but the last must be read (" + std::to_string(open.size()) + " are not)";
  if (!outputLegal(m_shapes.back()))
    return "the last tensor is " + shapeText(m_shapes.back()) + ", not [C, H, W]";
  if (fcCount() == 0) return "no fc: a kernel without weights learns nothing";
  return std::nullopt;
}

bool MicroDag::complete() const {
  return !completeError();
}

std::size_t MicroDag::fcCount() const {
  return static_cast<std::size_t>(
      std::count_if(m_nodes.begin(), m_nodes.end(), [](const Node& n) { return isFc(n.kind); }));
}

std::vector<Symbol> MicroDag::freeVariables() const {
  std::vector<Symbol> out;
  for (const Node& n : m_nodes)
    if (isFc(n.kind) && m_subs.count(n.var) == 0) out.push_back(n.var);
  return out;
}

std::vector<Size> MicroDag::integralityConstraints() const {
  std::vector<Size> out;
  for (std::size_t i = 0; i < m_nodes.size(); ++i) {
    for (const Dim& d : m_shapes[i]) out.push_back(d.size);
    if (isBlend(m_nodes[i].kind)) {
      const Unmatched u = unmatched(m_shapes[static_cast<std::size_t>(m_nodes[i].inputs[0])],
                                    m_shapes[static_cast<std::size_t>(m_nodes[i].inputs[1])]);
      out.push_back(u.rhs / u.lhs);
    }
  }
  return out;
}

std::uint64_t MicroDag::canonicalHash() const {
  // Pass 1: structure only (primitive, dim, inputs), which names a variable by the FC defining it.
  std::vector<std::uint64_t> structure(m_nodes.size());
  std::map<Symbol, std::uint64_t> defined;
  auto childHashes = [&](const Node& n, const std::vector<std::uint64_t>& of) {
    std::vector<std::uint64_t> hs;
    for (int in : n.inputs) hs.push_back(of[static_cast<std::size_t>(in)]);
    if (commutative(n.kind) && hs.size() == 2 &&
        m_shapes[static_cast<std::size_t>(n.inputs[0])] ==
            m_shapes[static_cast<std::size_t>(n.inputs[1])])
      std::sort(hs.begin(), hs.end());
    return hs;
  };
  for (std::size_t i = 0; i < m_nodes.size(); ++i) {
    const Node& n = m_nodes[i];
    std::uint64_t h =
        mix(static_cast<std::uint64_t>(n.kind) + 1, static_cast<std::uint64_t>(n.dim + 7));
    for (std::uint64_t c : childHashes(n, structure)) h = mix(h, c);
    structure[i] = h;
    if (isFc(n.kind)) defined[n.var] = h;
  }
  // Pass 2: with every shape, variables named by their defining FC's structure.
  std::vector<std::uint64_t> full(m_nodes.size());
  for (std::size_t i = 0; i < m_nodes.size(); ++i) {
    std::uint64_t h = structure[i];
    for (std::uint64_t c : childHashes(m_nodes[i], full)) h = mix(h, c);
    for (const Dim& d : m_shapes[i])
      for (std::size_t s = 0; s < kSymbols; ++s) {
        const auto sym = static_cast<Symbol>(s);
        const int e = d.size.exponent(sym);
        if (e == 0) continue;
        const std::uint64_t name = isVariable(sym) ? defined[sym] : s;
        h = mix(h, mix(name, static_cast<std::uint64_t>(e + 64)));
      }
    full[i] = mix(h, m_shapes[i].size());
  }
  return full.back();
}

std::string MicroDag::text() const {
  std::string out;
  for (std::size_t i = 0; i < m_nodes.size(); ++i) {
    const Node& n = m_nodes[i];
    out += std::to_string(i) + " = " + std::string(primitiveName(n.kind));
    if (i > 0) {
      out += "(";
      for (std::size_t k = 0; k < n.inputs.size(); ++k)
        out += (k > 0 ? ", " : "") + std::to_string(n.inputs[k]);
      if (takesDim(n.kind)) out += ", dim " + std::to_string(n.dim);
      out += ")";
    }
    out += " -> " + shapeText(m_shapes[i]) + "\n";
  }
  for (const auto& [x, value] : m_subs)
    out += std::string(symbolName(x)) + " := " + resolved(value).text() + "\n";
  return out;
}

}  // namespace opevo::kas
