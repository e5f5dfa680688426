#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kas/primitive.h"
#include "kas/shape_matching.h"

namespace opevo::kas {

// One edge of Canvas's micro-DAG: a primitive applied to one or two earlier tensors.
struct Node {
  PrimitiveKind kind = PrimitiveKind::Input;
  std::vector<int> inputs;  // blends: {lhs, rhs}; the others one; the input none
  int dim = -1;             // the dim it acts on, for primitives that take one
  Symbol var = Symbol::X1;  // FC: the variable its output size introduces
  bool operator==(const Node&) const = default;
};

// A candidate kernel: node 0 is the input [C, H, W], the last node the output, which must read as
// [C, H, W] (the replaced convolution's). Shapes are derived: each node's from its inputs, with
// the substitutions the shape-matching solver chose applied to every size.
class MicroDag {
 public:
  MicroDag();

  const std::vector<Node>& nodes() const { return m_nodes; }
  const std::vector<Shape>& shapes() const { return m_shapes; }
  const Shape& shape(int node) const { return m_shapes.at(static_cast<std::size_t>(node)); }
  const std::map<Symbol, Size>& substitutions() const { return m_subs; }
  int output() const { return static_cast<int>(m_nodes.size()) - 1; }

  // Appends a node if the result still type-checks (shapes, blends, Theorem 1); an FC gets the
  // next unused variable. Returns the node's index, or nullopt and leaves the DAG unchanged.
  std::optional<int> add(Node node);
  // Adds a substitution (x -> value) if the DAG still type-checks; false leaves it unchanged.
  bool substitute(const Substitution& s);

  // Nodes no other node reads.
  std::vector<int> leaves() const;
  // Complete: one leaf, the last node, shaped as [C, H, W], and at least one FC (a kernel with
  // no weights learns nothing).
  bool complete() const;
  std::optional<std::string> completeError() const;

  // Variables left free after substitution, in order.
  std::vector<Symbol> freeVariables() const;
  // Every size that must be a whole number: each dim, and each blend's #RHS / #LHS.
  std::vector<Size> integralityConstraints() const;
  std::size_t fcCount() const;

  // Equal for DAGs built in a different order or with variables numbered differently (an
  // approximate graph-isomorphism hash, as Canvas deduplicates with).
  std::uint64_t canonicalHash() const;

  // A DAG as a file describes it (node 0 the input is implied; fcs get x1, x2, ... in node
  // order), not yet checked: refresh() type-checks it.
  static MicroDag unchecked(std::vector<Node> afterInput, const std::vector<Substitution>& subs);
  // Re-derives and keeps every shape; the error, if the DAG does not type-check.
  std::optional<std::string> refresh();

  // Re-derives every shape; the first error found ("node 3 (group): ..."), if any.
  std::optional<std::string> typeCheck(std::vector<Shape>& shapes) const;

  // One line per node: "3 = fc(2) -> [x1, H, W]".
  std::string text() const;

 private:
  Size resolved(Size s) const;
  Symbol nextVariable() const;

  std::vector<Node> m_nodes;
  std::vector<Shape> m_shapes;
  std::map<Symbol, Size> m_subs;
};

}  // namespace opevo::kas
