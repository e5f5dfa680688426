#include "ui/charts/topology_view.h"

#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "ui/jobs/graph_layout.h"
#include "ui/jobs/qwalk_runner.h"
#include "ui/widgets/display_format.h"

namespace opevo::ui {

// One vertex: a disc (exact probability), an optional ring (sampled frequency), an outline on the
// start vertex, and its label once zoomed in far enough to read it.
class VertexItem : public QGraphicsItem {
 public:
  static constexpr double kMaxRadius = 13;
  static constexpr double kMinRadius = 2.5;
  static constexpr int kLabelSize = 7;  // scene units

  VertexItem(std::size_t index, QString label) : m_index(index), m_label(std::move(label)) {
    setCacheMode(DeviceCoordinateCache);
  }
  std::size_t index() const { return m_index; }
  double radius() const { return m_radius; }
  QColor color() const { return m_color; }
  void set(double radius, QColor color, double ring, bool start) {
    prepareGeometryChange();
    m_radius = radius;
    m_color = color;
    m_ring = ring;
    m_start = start;
    update();
  }
  QRectF boundingRect() const override {
    // Room for the label under the disc, whatever its size.
    return QRectF(-kMaxRadius - 40, -kMaxRadius - 2, 2 * kMaxRadius + 80, 2 * kMaxRadius + 16);
  }
  QPainterPath shape() const override {
    QPainterPath p;
    const double r = std::max(m_radius, 5.0);  // a small vertex is still easy to click
    p.addEllipse(QPointF(0, 0), r, r);
    return p;
  }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) override {
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(m_start ? QPen(Qt::black, 3) : QPen(QColor(0, 0, 0, 90), 0.6));
    painter->setBrush(m_color);
    painter->drawEllipse(QPointF(0, 0), m_radius, m_radius);
    if (m_ring > 0) {
      painter->setBrush(Qt::NoBrush);
      painter->setPen(QPen(QColor(0xd8, 0x1b, 0x60), 1.4, Qt::DashLine));
      painter->drawEllipse(QPointF(0, 0), m_ring, m_ring);
    }
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    if (lod * kLabelSize >= 7) {  // drawn once it would be at least 7 pixels tall
      QFont font = painter->font();
      font.setPixelSize(kLabelSize);
      painter->setFont(font);
      painter->setPen(QColor(0x21, 0x21, 0x21));
      painter->drawText(QRectF(-kMaxRadius - 40, m_radius + 1, 2 * kMaxRadius + 80, 12),
                        Qt::AlignHCenter | Qt::AlignTop, m_label);
    }
  }

 private:
  std::size_t m_index;
  QString m_label;
  double m_radius = kMinRadius;
  QColor m_color = Qt::lightGray;
  double m_ring = 0;
  bool m_start = false;
};

TopologyView::TopologyView(QWidget* parent) : QGraphicsView(parent) {
  setScene(new QGraphicsScene(this));
  setRenderHint(QPainter::Antialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setBackgroundBrush(Qt::white);
}

TopologyView::~TopologyView() = default;

QColor TopologyView::rampColor(double f) {
  // Stops of matplotlib's viridis, reversed so the likely vertices are the dark ones on white.
  static const QColor stops[] = {QColor(0xfd, 0xe7, 0x25), QColor(0x5e, 0xc9, 0x62),
                                 QColor(0x21, 0x91, 0x8c), QColor(0x3b, 0x52, 0x8b),
                                 QColor(0x44, 0x01, 0x54)};
  f = std::clamp(f, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(f));
  const double t = f - i;
  const QColor& a = stops[i];
  const QColor& b = stops[i + 1];
  return QColor::fromRgbF(a.redF() + (b.redF() - a.redF()) * t,
                          a.greenF() + (b.greenF() - a.greenF()) * t,
                          a.blueF() + (b.blueF() - a.blueF()) * t);
}

void TopologyView::setLayout(std::shared_ptr<const GraphLayout> layout, QStringList labels) {
  scene()->clear();
  m_labels = std::move(labels);
  m_items.clear();
  m_probability.clear();
  m_sampled.clear();
  m_layout = std::move(layout);
  if (!m_layout) return;
  const ParamGraph& g = m_layout->graph;
  // Graphviz spaces vertices for its own node size; rescale so neighbours sit a label's width
  // apart (the median edge), whatever the engine and the graph.
  std::vector<double> lengths;
  for (std::size_t i = 0; i < g.size(); ++i)
    for (std::uint32_t k = g.offsets[i]; k < g.offsets[i + 1]; ++k)
      if (g.targets[k] > i) {
        const QPointF d = m_layout->positions[i] - m_layout->positions[g.targets[k]];
        lengths.push_back(std::hypot(d.x(), d.y()));
      }
  double scale = 1;
  if (!lengths.empty()) {
    std::nth_element(lengths.begin(), lengths.begin() + static_cast<long>(lengths.size() / 2),
                     lengths.end());
    const double median = lengths[lengths.size() / 2];
    if (median > 0) scale = kEdgeLength / median;
  }
  m_positions.clear();
  QRectF bounds;
  for (const QPointF& p : m_layout->positions) {
    m_positions.push_back(p * scale);
    bounds |= QRectF(m_positions.back(), QSizeF(1, 1));
  }
  QPainterPath edges;
  for (std::size_t i = 0; i < g.size(); ++i)
    for (std::uint32_t k = g.offsets[i]; k < g.offsets[i + 1]; ++k)
      if (g.targets[k] > i) {
        edges.moveTo(m_positions[i]);
        edges.lineTo(m_positions[g.targets[k]]);
      }
  auto* edgeItem = scene()->addPath(edges, QPen(QColor(0x9e, 0x9e, 0x9e), 0.8));
  edgeItem->setZValue(-1);
  m_items.reserve(g.size());
  const bool labelled = static_cast<std::size_t>(m_labels.size()) == g.size();
  for (std::size_t i = 0; i < g.size(); ++i) {
    auto* item =
        new VertexItem(i, labelled ? m_labels[static_cast<qsizetype>(i)] : QString::number(i));
    item->setPos(m_positions[i]);
    scene()->addItem(item);
    m_items.push_back(item);
  }
  scene()->setSceneRect(bounds.adjusted(-40, -30, 40, 40));
  restyle();
  m_zoomed = false;
  fitGraph();
}

void TopologyView::fitGraph() {
  if (!m_layout) return;
  fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
  // Never blow a tiny graph up past 1.5 times its natural size: discs would look like blobs.
  if (transform().m11() > 1.5) setTransform(QTransform::fromScale(1.5, 1.5));
}

void TopologyView::setProbabilities(std::vector<double> probability, std::size_t startIndex) {
  m_probability = std::move(probability);
  m_start = startIndex;
  restyle();
}

void TopologyView::setSampled(std::vector<double> frequency) {
  m_sampled = std::move(frequency);
  restyle();
}

double TopologyView::showDistribution(const QwalkResult& r, const std::vector<double>& sampled) {
  if (!m_layout) return 0;
  const ParamGraph& g = r.distribution.graph;
  const bool withSample = sampled.size() == g.size();
  std::vector<double> p(m_layout->graph.size(), 0.0), f;
  if (withSample) f.assign(p.size(), 0.0);
  for (std::size_t i = 0; i < g.size(); ++i) {
    const auto it = m_layout->indexOf.find(g.vertices[i]);
    if (it == m_layout->indexOf.end()) continue;
    p[it->second] = r.distribution.probability[i];
    if (withSample) f[it->second] = sampled[i];
  }
  const auto start = m_layout->indexOf.find(r.request.start);
  const double maxP = p.empty() ? 0 : *std::max_element(p.begin(), p.end());
  m_probability = std::move(p);
  m_sampled = std::move(f);
  m_start = start == m_layout->indexOf.end() ? 0 : start->second;
  restyle();
  return maxP;
}

void TopologyView::restyle() {
  if (m_items.empty()) return;
  const bool have = m_probability.size() == m_items.size();
  const double maxP = have ? *std::max_element(m_probability.begin(), m_probability.end()) : 0;
  const bool sampled = m_sampled.size() == m_items.size() && maxP > 0;
  double minP = maxP;
  if (have)
    for (double p : m_probability)
      if (p > 0) minP = std::min(minP, p);
  m_decades = maxP > 0 ? std::clamp(static_cast<int>(std::ceil(std::log10(maxP / minP) - 1e-9)), 1,
                                    kMaxDecades)
                       : kMaxDecades;
  auto radius = [&](double p) {
    return VertexItem::kMinRadius +
           (VertexItem::kMaxRadius - VertexItem::kMinRadius) * std::sqrt(std::max(0.0, p) / maxP);
  };
  for (std::size_t i = 0; i < m_items.size(); ++i) {
    if (!have || maxP <= 0) {
      m_items[i]->set(VertexItem::kMinRadius, Qt::lightGray, 0, i == m_start);
      continue;
    }
    const double p = m_probability[i];
    const double f = p > 0 ? std::max(0.0, (std::log10(p / maxP) + m_decades) / m_decades) : 0;
    const double ring = sampled && m_sampled[i] > 0 ? radius(m_sampled[i]) : 0;
    m_items[i]->set(radius(p), rampColor(f), ring, i == m_start);
    QString tip = tr("%1\nexact probability %2")
                      .arg(m_labels.value(static_cast<qsizetype>(i)), formatProbability(p));
    if (sampled) tip += tr("\nsampled frequency %1").arg(formatProbability(m_sampled[i]));
    m_items[i]->setToolTip(tip);
  }
}

double TopologyView::radiusOf(std::size_t index) const {
  return m_items.at(index)->radius();
}

QColor TopologyView::colorOf(std::size_t index) const {
  return m_items.at(index)->color();
}

QPoint TopologyView::viewPositionOf(std::size_t index) const {
  return mapFromScene(m_items.at(index)->pos());
}

void TopologyView::wheelEvent(QWheelEvent* event) {
  const double factor = std::pow(1.0015, event->angleDelta().y());
  const double zoom = transform().m11() * factor;
  if (zoom < 0.02 || zoom > 40) return;  // lost in space either way
  scale(factor, factor);
  m_zoomed = true;
  event->accept();
}

void TopologyView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  if (!m_zoomed) fitGraph();
}

void TopologyView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    for (QGraphicsItem* item : items(event->position().toPoint())) {
      if (auto* vertex = dynamic_cast<VertexItem*>(item)) {
        emit vertexClicked(vertex->index());
        event->accept();
        return;
      }
    }
  }
  QGraphicsView::mousePressEvent(event);  // empty space: start panning
}

}  // namespace opevo::ui
