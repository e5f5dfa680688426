#pragma once

#include <QLineF>
#include <QPolygonF>

namespace opevo::ui {

// A small arrowhead at `tip`, pointing along the edge's last direction (from `from`): what the
// Graphviz-laid-out views draw at the end of each edge.
inline QPolygonF arrowHead(const QPointF& tip, const QPointF& from) {
  const QLineF dir(tip, from);
  if (dir.length() <= 0) return {};
  QLineF a = dir, b = dir;
  a.setLength(6);
  b.setLength(6);
  a.setAngle(dir.angle() + 25);
  b.setAngle(dir.angle() - 25);
  return QPolygonF({tip, a.p2(), b.p2()});
}

}  // namespace opevo::ui
