#pragma once

#include <QPainterPath>
#include <QRectF>
#include <QString>
#include <memory>
#include <vector>

#include "net/network.h"
#include "net/tasks.h"

namespace opevo::ui {

// A network's inputs and layers as Graphviz's dot laid them out, top to bottom, and what each
// layer runs in: a task's fused kernel (the complex layer and its epilogue), a fixed kernel, or
// nothing (a view).
struct NetworkLayout {
  struct Node {
    QString name;
    QString kind;   // conv2d, relu, ... ("input" for a network input)
    QString shape;  // of its output
    QPointF center;
    int task = -1;  // the task whose kernel computes it, -1 for fixed layers, views and inputs
    // The step it runs in, as the end-to-end run names its steps (a task occurrence's complex
    // layer, or the layer itself); empty for inputs and views.
    QString step;
  };
  struct Edge {
    QPainterPath path;
    QPointF tip, from;  // the arrowhead points from `from` to `tip`
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  QRectF bounds;
  QSizeF nodeSize;  // in points
};

// Runs on any thread (Graphviz calls are serialised). Throws std::runtime_error when Graphviz
// fails.
std::shared_ptr<const NetworkLayout> layoutNetwork(const net::Network& net,
                                                   const net::TaskGraph& graph);

}  // namespace opevo::ui
