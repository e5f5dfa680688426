#pragma once

#include <QFont>
#include <QPainterPath>
#include <QRectF>
#include <QString>
#include <memory>
#include <vector>

#include "kas/micro_dag.h"

namespace opevo::ui {

// A Canvas micro-DAG as Graphviz's dot laid it out, top (the input) to bottom (the output): each
// node's primitive with the dim it acts on, "unfold(H)", over its symbolic shape, "[C, KH, H, W]".
struct KasDagLayout {
  struct Node {
    QString title;  // "unfold(H)"
    QString shape;  // "[C, KH, H, W]"
    kas::PrimitiveKind kind = kas::PrimitiveKind::Input;
    QPointF center;
    QSizeF size;  // in points, fitted to the text in the font it was laid out for
  };
  struct Edge {
    QPainterPath path;
    QPointF tip, from;  // the arrowhead points from `from` to `tip`
    QString label;      // a blend's "lhs" / "rhs"; empty for the rest
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  QRectF bounds;
  QFont font;
};

// The node's title: its primitive, and the size of the input dim it acts on.
QString kasNodeTitle(const kas::MicroDag& dag, int node);

// Runs on any thread (Graphviz calls are serialised). Throws std::runtime_error when Graphviz
// fails.
std::shared_ptr<const KasDagLayout> layoutKasDag(const kas::MicroDag& dag, const QFont& font);

}  // namespace opevo::ui
