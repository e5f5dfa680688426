#include "ui/charts/topology_view.h"

#include <QFontMetricsF>
#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QStyleOptionGraphicsItem>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "ui/jobs/graph_layout.h"
#include "ui/jobs/qwalk_runner.h"
#include "ui/widgets/display_format.h"

namespace opevo::ui {

// One vertex: a disc (exact probability), an optional ring (sampled frequency) and an outline
// on the start vertex. Its label is drawn by the view, in pixels, where it has room.
class VertexItem : public QGraphicsItem {
 public:
  static constexpr double kMaxRadius = 13;
  static constexpr double kMinRadius = 2.5;

  // discScale: the view's, read at paint time (discs stop growing past a zoom).
  VertexItem(std::size_t index, const double* discScale) : m_index(index), m_discScale(discScale) {
    setCacheMode(DeviceCoordinateCache);
  }
  std::size_t index() const { return m_index; }
  double radius() const { return m_radius; }
  double drawnRadius() const { return m_radius * *m_discScale; }
  QColor color() const { return m_color; }
  void set(double radius, QColor color, double ring, bool start) {
    prepareGeometryChange();
    m_radius = radius;
    m_color = color;
    m_ring = ring;
    m_start = start;
    update();
  }
  // The disc scale changed: the shape with it.
  void rescaled() {
    prepareGeometryChange();
    update();
  }
  QRectF boundingRect() const override {
    const double r = std::max(kMaxRadius, m_ring) + 3;
    return QRectF(-r, -r, 2 * r, 2 * r);
  }
  QPainterPath shape() const override {
    QPainterPath p;
    // A small vertex is still easy to click: at least 5 scene units, more when zoomed out.
    const double r = std::max(drawnRadius(), 5.0);
    p.addEllipse(QPointF(0, 0), r, r);
    return p;
  }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override {
    const double s = *m_discScale;
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(m_start ? QPen(Qt::black, 3 * s) : QPen(QColor(0, 0, 0, 90), 0.6 * s));
    painter->setBrush(m_color);
    painter->drawEllipse(QPointF(0, 0), m_radius * s, m_radius * s);
    if (m_ring > 0) {
      painter->setBrush(Qt::NoBrush);
      painter->setPen(QPen(QColor(0xd8, 0x1b, 0x60), 1.4 * s, Qt::DashLine));
      painter->drawEllipse(QPointF(0, 0), m_ring * s, m_ring * s);
    }
  }

 private:
  std::size_t m_index;
  const double* m_discScale;
  double m_radius = kMinRadius;
  QColor m_color = Qt::lightGray;
  double m_ring = 0;
  bool m_start = false;
};

namespace {

// Rectangles already taken on the viewport, bucketed by cell so a dense graph's labels are placed
// in about linear time.
class Occupancy {
 public:
  explicit Occupancy(QSize area)
      : m_columns(area.width() / kCell + 1),
        m_rows(area.height() / kCell + 1),
        m_cells(static_cast<std::size_t>(m_columns * m_rows)) {}
  bool free(const QRectF& r) const {
    bool clear = true;
    forCells(r, [&](std::vector<QRectF>& cell) {
      for (const QRectF& taken : cell)
        if (taken.intersects(r)) clear = false;
    });
    return clear;
  }
  void take(const QRectF& r) {
    forCells(r, [&](std::vector<QRectF>& cell) { cell.push_back(r); });
  }

 private:
  static constexpr int kCell = 48;
  template <typename F>
  void forCells(const QRectF& r, F&& f) const {
    const int x0 = std::clamp(static_cast<int>(r.left()) / kCell, 0, m_columns - 1);
    const int x1 = std::clamp(static_cast<int>(r.right()) / kCell, 0, m_columns - 1);
    const int y0 = std::clamp(static_cast<int>(r.top()) / kCell, 0, m_rows - 1);
    const int y1 = std::clamp(static_cast<int>(r.bottom()) / kCell, 0, m_rows - 1);
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) f(m_cells[static_cast<std::size_t>(y * m_columns + x)]);
  }
  int m_columns, m_rows;
  mutable std::vector<std::vector<QRectF>> m_cells;
};

}  // namespace

TopologyView::TopologyView(QWidget* parent) : QGraphicsView(parent) {
  setScene(new QGraphicsScene(this));
  setRenderHint(QPainter::Antialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  // The wheel anchors the zoom itself (wheelEvent); the scene reaches far past the graph so the
  // point under the pointer can stay there even at the graph's edge (a scene as tight as the
  // graph clamped the scroll, and the start vertex in a corner was pushed out of view).
  setTransformationAnchor(QGraphicsView::NoAnchor);
  setResizeAnchor(QGraphicsView::NoAnchor);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // Labels are placed over the whole viewport at once (drawForeground): a partial repaint or a
  // scrolled copy would keep labels placed for another view.
  setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
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
  m_graphBounds = QRectF();
  if (!m_layout) return;
  const ParamGraph& g = m_layout->graph;
  // Graphviz spaces vertices for its own node size; rescale so neighbours sit kEdgeLength apart
  // (the median edge), whatever the engine and the graph, and so that no two vertices are
  // closer than two of the largest discs: dot stacks a complete graph (a choice parameter's) in
  // ranks closer than its long edges, and the median alone drew four discs on top of each other.
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
  if (m_layout->closest > 0)
    scale = std::max(scale, (2 * VertexItem::kMaxRadius + 4) / m_layout->closest);
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
  QPen edgePen(QColor(0x9e, 0x9e, 0x9e), 1);
  edgePen.setCosmetic(true);  // one pixel at every zoom: a fitted small graph had thick bars
  auto* edgeItem = scene()->addPath(edges, edgePen);
  edgeItem->setZValue(-1);
  m_items.reserve(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    auto* item = new VertexItem(i, &m_discScale);
    item->setPos(m_positions[i]);
    scene()->addItem(item);
    m_items.push_back(item);
  }
  // Room for the discs and the labels under them.
  m_graphBounds = bounds.adjusted(-VertexItem::kMaxRadius - 4, -VertexItem::kMaxRadius - 4,
                                  VertexItem::kMaxRadius + 4, VertexItem::kMaxRadius + 18);
  const double reach = 20 * std::max({m_graphBounds.width(), m_graphBounds.height(), 500.0});
  scene()->setSceneRect(m_graphBounds.adjusted(-reach, -reach, reach, reach));
  restyle();
  m_zoomed = false;
  fitGraph();
}

void TopologyView::fitGraph() {
  if (!m_layout || m_graphBounds.isEmpty()) return;
  const QRectF area = viewport()->rect().adjusted(8, 8, -8, -8);
  if (area.width() <= 0 || area.height() <= 0) return;
  // Fills the view: a small graph spread out is one whose labels have room. Discs stop growing
  // past kMaxDiscZoom, so a two-vertex graph is not two blobs.
  const double zoom = std::min(
      {area.width() / m_graphBounds.width(), area.height() / m_graphBounds.height(), kMaxFitZoom});
  setTransform(QTransform::fromScale(zoom, zoom));
  centerOn(m_graphBounds.center());
  zoomChanged();
}

void TopologyView::zoomChanged() {
  const double discScale = std::min(1.0, kMaxDiscZoom / transform().m11());
  if (discScale == m_discScale) return;
  m_discScale = discScale;
  for (VertexItem* item : m_items) item->rescaled();
}

std::vector<std::pair<std::size_t, QRectF>> TopologyView::placedLabels() const {
  std::vector<std::pair<std::size_t, QRectF>> placed;
  if (m_items.empty() || static_cast<std::size_t>(m_labels.size()) != m_items.size()) return placed;
  const double zoom = transform().m11();
  // Neighbours closer than a short label: no label but the start's would have room.
  const bool crowded = kEdgeLength * zoom < 24;
  const QRect area = viewport()->rect();
  const QFontMetricsF metrics(font());
  // The labels placed, every disc, and the discs of the vertices already given their turn.
  Occupancy labels(area.size()), discs(area.size()), likelierDiscs(area.size());
  std::vector<std::size_t> visible;
  std::vector<QRectF> discOf(m_items.size());
  for (std::size_t i = 0; i < m_items.size(); ++i) {
    const QPointF at = mapFromScene(m_items[i]->pos());
    if (!area.adjusted(-40, -40, 40, 40).contains(at.toPoint())) continue;
    visible.push_back(i);
    const double r = std::max(2.0, m_items[i]->drawnRadius() * zoom);
    discOf[i] = QRectF(at.x() - r, at.y() - r, 2 * r, 2 * r);
    discs.take(discOf[i]);
  }
  // The start vertex first, then the likeliest: where labels crowd, the ones that matter show.
  const bool have = m_probability.size() == m_items.size();
  std::stable_sort(visible.begin(), visible.end(), [&](std::size_t a, std::size_t b) {
    if ((a == m_start) != (b == m_start)) return a == m_start;
    return have && m_probability[a] > m_probability[b];
  });
  const double maxP = have ? *std::max_element(m_probability.begin(), m_probability.end()) : 0;
  for (std::size_t i : visible) {
    const QPointF at = mapFromScene(m_items[i]->pos());
    const double r = m_items[i]->drawnRadius() * zoom;
    const QString& text = m_labels[static_cast<qsizetype>(i)];
    const double w = metrics.horizontalAdvance(text) + 2, h = metrics.height();
    // Below the disc, else above, beside it or at a corner: tried only below, the likeliest
    // vertices (large discs, close together around the start) had their labels blocked by each
    // other's discs while far-off vertices of 1e-7 were labelled.
    const double gap = r + 1, corner = gap * 0.7;
    const QRectF candidates[] = {
        QRectF(at.x() - w / 2, at.y() + gap, w, h),          // below
        QRectF(at.x() - w / 2, at.y() - gap - h, w, h),      // above
        QRectF(at.x() + gap + 1, at.y() - h / 2, w, h),      // right
        QRectF(at.x() - gap - 1 - w, at.y() - h / 2, w, h),  // left
        QRectF(at.x() + corner, at.y() + corner, w, h),
        QRectF(at.x() - corner - w, at.y() + corner, w, h),
        QRectF(at.x() + corner, at.y() - corner - h, w, h),
        QRectF(at.x() - corner - w, at.y() - corner - h, w, h),
    };
    const auto fits = [&](const QRectF& box, const Occupancy& blocking) {
      return area.contains(box.toAlignedRect()) && labels.free(box) && blocking.free(box);
    };
    const QRectF* chosen = nullptr;
    if (!crowded || i == m_start) {
      for (const QRectF& box : candidates)
        if (fits(box, discs)) {
          chosen = &box;
          break;
        }
      // A vertex within two decades of the likeliest may cover the discs of less likely ones
      // (its label has a backing): those are the labels a reader of the walk looks for.
      if (!chosen && (i == m_start || (have && m_probability[i] >= maxP / 100)))
        for (const QRectF& box : candidates)
          if (fits(box, likelierDiscs)) {
            chosen = &box;
            break;
          }
      // The start vertex is always named, over a likelier neighbour's disc if it must be.
      if (!chosen && i == m_start) chosen = &candidates[0];
    }
    likelierDiscs.take(discOf[i]);
    if (!chosen) continue;
    labels.take(*chosen);
    placed.emplace_back(i, *chosen);
  }
  return placed;
}

std::vector<std::size_t> TopologyView::labelledVertices() const {
  std::vector<std::size_t> out;
  for (const auto& [index, box] : placedLabels()) out.push_back(index);
  return out;
}

void TopologyView::drawForeground(QPainter* painter, const QRectF&) {
  const auto placed = placedLabels();
  if (placed.empty()) return;
  painter->save();
  painter->resetTransform();  // labels in pixels: readable at every zoom
  painter->setFont(font());
  painter->setPen(QColor(0x21, 0x21, 0x21));
  for (const auto& [index, box] : placed) {
    // A label may lie over edges, or over a less likely vertex's disc: a backing keeps it
    // readable.
    painter->fillRect(box, QColor(255, 255, 255, 200));
    painter->drawText(box, Qt::AlignHCenter | Qt::AlignTop,
                      m_labels[static_cast<qsizetype>(index)]);
  }
  painter->restore();
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
  viewport()->update();  // the labels' places follow the discs' sizes
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

void TopologyView::zoomAt(QPointF viewPoint, double factor) {
  const double zoom = transform().m11() * factor;
  if (zoom < 0.02 || zoom > 40) return;  // lost in space either way
  // The scene point under the pointer stays under it: zoom, then scroll it back.
  const QPointF scenePoint = mapToScene(viewPoint.toPoint());
  scale(factor, factor);
  const QPointF moved = mapFromScene(scenePoint) - viewPoint;
  horizontalScrollBar()->setValue(horizontalScrollBar()->value() + qRound(moved.x()));
  verticalScrollBar()->setValue(verticalScrollBar()->value() + qRound(moved.y()));
  m_zoomed = true;
  zoomChanged();
}

void TopologyView::wheelEvent(QWheelEvent* event) {
  zoomAt(event->position(), std::pow(1.0015, event->angleDelta().y()));
  event->accept();
}

void TopologyView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  if (!m_zoomed) fitGraph();
}

void TopologyView::showEvent(QShowEvent* event) {
  QGraphicsView::showEvent(event);
  if (!m_zoomed) fitGraph();  // a graph set while the page was hidden was fitted to no size
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
