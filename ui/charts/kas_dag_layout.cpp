#include "ui/charts/kas_dag_layout.h"

#include <QFontMetricsF>
#include <algorithm>
#include <stdexcept>
#include <string>

#include "ui/jobs/graphviz.h"

namespace opevo::ui {

using graphviz::setDefault;

namespace {

constexpr double kPadX = 10, kPadY = 6;  // points around a node's two lines

QPointF point(const pointf& p) {
  return {p.x, -p.y};  // Graphviz's y grows upwards
}

}  // namespace

QString kasNodeTitle(const kas::MicroDag& dag, int node) {
  const kas::Node& n = dag.nodes().at(static_cast<std::size_t>(node));
  QString title = QString::fromUtf8(kas::primitiveName(n.kind).data());
  if (kas::takesDim(n.kind) && !n.inputs.empty() && n.dim >= 0) {
    const kas::Shape& in = dag.shape(n.inputs[0]);
    if (n.dim < static_cast<int>(in.size()))
      title += QStringLiteral("(%1)").arg(QString::fromStdString(in[n.dim].size.text()));
  }
  return title;
}

std::shared_ptr<const KasDagLayout> layoutKasDag(const kas::MicroDag& dag, const QFont& font) {
  auto layout = std::make_shared<KasDagLayout>();
  layout->font = font;
  QFont bold = font;
  bold.setBold(true);
  const QFontMetricsF plainMetrics(font), boldMetrics(bold);
  const double lineHeight = std::max(plainMetrics.height(), boldMetrics.height());
  for (int i = 0; i <= dag.output(); ++i) {
    KasDagLayout::Node n;
    n.kind = dag.nodes()[static_cast<std::size_t>(i)].kind;
    n.title = kasNodeTitle(dag, i);
    n.shape = QString::fromStdString(kas::shapeText(dag.shape(i)));
    const double width =
        std::max(boldMetrics.horizontalAdvance(n.title), plainMetrics.horizontalAdvance(n.shape));
    n.size = QSizeF(width + 2 * kPadX, 2 * lineHeight + 2 * kPadY);
    layout->nodes.push_back(std::move(n));
  }

  std::lock_guard lock(graphviz::mutex());
  GVC_t* gvc = graphviz::context();
  if (!gvc) throw std::runtime_error("Graphviz could not start (gvContext failed)");
  std::string graphName = "kernel";
  Agraph_t* g = agopen(graphName.data(), Agdirected, nullptr);
  // Fixed-size boxes with no text: the view draws its own labels, so Graphviz measures no font.
  setDefault(g, AGNODE, "shape", "box");
  setDefault(g, AGNODE, "fixedsize", "true");
  setDefault(g, AGNODE, "label", "");
  setDefault(g, AGNODE, "width", "1");
  setDefault(g, AGNODE, "height", "0.5");
  setDefault(g, AGRAPH, "rankdir", "TB");
  setDefault(g, AGRAPH, "ranksep", "0.25");
  setDefault(g, AGRAPH, "nodesep", "0.25");
  std::vector<Agnode_t*> nodes;
  for (std::size_t i = 0; i < layout->nodes.size(); ++i) {
    // QByteArray, not std::string: GCC 12 warns (-Wrestrict) on "n" + std::to_string(i).
    QByteArray name = "n" + QByteArray::number(static_cast<qulonglong>(i));
    Agnode_t* node = agnode(g, name.data(), 1);
    std::string w = "width", h = "height";
    std::string wv = std::to_string(layout->nodes[i].size.width() / 72);
    std::string hv = std::to_string(layout->nodes[i].size.height() / 72);
    agsafeset(node, w.data(), wv.data(), std::string("1").data());
    agsafeset(node, h.data(), hv.data(), std::string("0.5").data());
    nodes.push_back(node);
  }
  std::vector<std::pair<Agedge_t*, QString>> edges;
  for (std::size_t i = 0; i < dag.nodes().size(); ++i) {
    const kas::Node& n = dag.nodes()[i];
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      QByteArray key = "e" + QByteArray::number(static_cast<qulonglong>(i)) + "_" +
                       QByteArray::number(static_cast<qulonglong>(k));
      Agedge_t* e =
          agedge(g, nodes.at(static_cast<std::size_t>(n.inputs[k])), nodes[i], key.data(), 1);
      const QString label = kas::isBlend(n.kind)
                                ? (k == 0 ? QStringLiteral("lhs") : QStringLiteral("rhs"))
                                : QString();
      edges.emplace_back(e, label);
    }
  }
  if (gvLayout(gvc, g, "dot") != 0) {
    agclose(g);
    throw std::runtime_error("Graphviz could not lay out the kernel with dot");
  }
  QRectF bounds;
  for (std::size_t i = 0; i < layout->nodes.size(); ++i) {
    KasDagLayout::Node& n = layout->nodes[i];
    n.center = point(ND_coord(nodes[i]));
    bounds |= QRectF(n.center - QPointF(n.size.width() / 2, n.size.height() / 2), n.size);
  }
  for (const auto& [e, label] : edges) {
    const splines* spl = ED_spl(e);
    if (!spl || spl->size < 1 || spl->list[0].size < 1) continue;
    const bezier& bz = spl->list[0];
    KasDagLayout::Edge edge;
    edge.label = label;
    edge.path.moveTo(point(bz.list[0]));
    for (int i = 1; i + 2 < bz.size; i += 3)
      edge.path.cubicTo(point(bz.list[i]), point(bz.list[i + 1]), point(bz.list[i + 2]));
    edge.from = point(bz.list[bz.size - 1]);
    edge.tip = bz.eflag ? point(bz.ep) : edge.from;
    if (bz.eflag) edge.path.lineTo(edge.tip);
    bounds |= edge.path.boundingRect();
    layout->edges.push_back(std::move(edge));
  }
  layout->bounds = bounds;
  gvFreeLayout(gvc, g);
  agclose(g);
  return layout;
}

}  // namespace opevo::ui
