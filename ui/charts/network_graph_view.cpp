#include "ui/charts/network_graph_view.h"

#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "ui/charts/arrow_head.h"
#include "ui/jobs/network_layout.h"

namespace opevo::ui {

// A layer's box with its text, drawn in one paint (three text items per box would triple the
// items of ResNet-18's scene).
class LayerItem : public QGraphicsItem {
 public:
  LayerItem(const NetworkLayout::Node& node, QSizeF size) : m_node(node), m_size(size) {
    setPos(node.center);
    setToolTip(tooltip());
  }
  QRectF boundingRect() const override {
    return QRectF(-m_size.width() / 2 - 1, -m_size.height() / 2 - 1, m_size.width() + 2,
                  m_size.height() + 2);
  }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override {
    const QRectF box(-m_size.width() / 2, -m_size.height() / 2, m_size.width(), m_size.height());
    painter->setRenderHint(QPainter::Antialiasing);
    const bool ownKernel = !m_node.step.isEmpty();
    painter->setPen(QPen(ownKernel ? QColor(60, 60, 60) : QColor(150, 150, 150), 1,
                         ownKernel ? Qt::SolidLine : Qt::DashLine));
    painter->setBrush(m_fill);
    painter->drawRoundedRect(box, 4, 4);
    const bool dark = m_fill.lightnessF() < 0.5;
    painter->setPen(dark ? Qt::white : Qt::black);
    QFont bold = painter->font();
    bold.setPointSizeF(7.5);
    bold.setBold(true);
    painter->setFont(bold);
    const QRectF top = box.adjusted(4, 2, -4, -box.height() / 2);
    const QFontMetricsF fm(bold);
    painter->drawText(top, Qt::AlignLeft | Qt::AlignVCenter,
                      fm.elidedText(m_node.name, Qt::ElideMiddle, top.width()));
    QFont plain = bold;
    plain.setBold(false);
    painter->setFont(plain);
    const QRectF bottom = box.adjusted(4, box.height() / 2, -4, -2);
    QString second = m_node.kind + QStringLiteral("  ") + m_node.shape;
    // The share is written once per kernel, on the layer that names it; its fused layers share
    // its colour.
    if (std::isfinite(m_share) && m_node.step == m_node.name)
      second = QString::number(100 * m_share, 'f', 1) + "%  " + second;
    painter->drawText(bottom, Qt::AlignLeft | Qt::AlignVCenter,
                      QFontMetricsF(plain).elidedText(second, Qt::ElideRight, bottom.width()));
  }
  void setShare(double share, QColor fill) {
    m_share = share;
    m_fill = fill;
    setToolTip(tooltip());
    update();
  }
  QColor fill() const { return m_fill; }

 private:
  QString tooltip() const {
    QString t = QStringLiteral("%1 (%2) %3").arg(m_node.name, m_node.kind, m_node.shape);
    if (m_node.task >= 0)
      t += QObject::tr("\nin the fused kernel of task %1").arg(m_node.step);
    else if (m_node.step.isEmpty())
      t += QObject::tr("\nno kernel of its own");
    else
      t += QObject::tr("\na fixed kernel (not tuned)");
    if (std::isfinite(m_share))
      t += QObject::tr("\n%1% of the network's latency").arg(100 * m_share, 0, 'f', 1);
    return t;
  }

  NetworkLayout::Node m_node;
  QSizeF m_size;
  double m_share = std::nan("");
  QColor m_fill = Qt::white;
};

NetworkGraphView::NetworkGraphView(QWidget* parent) : QGraphicsView(parent) {
  setScene(new QGraphicsScene(this));
  setRenderHint(QPainter::Antialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setBackgroundBrush(Qt::white);
}

NetworkGraphView::~NetworkGraphView() = default;

QColor NetworkGraphView::rampColor(double f) {
  f = std::clamp(f, 0.0, 1.0);
  // White through orange to dark red: the expensive layers stand out on a white page.
  const QColor stops[] = {QColor(255, 250, 240), QColor(253, 174, 97), QColor(215, 48, 39),
                          QColor(127, 0, 0)};
  const double x = f * 3;
  const int i = std::min(2, static_cast<int>(x));
  const double t = x - i;
  auto mix = [t](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * t)); };
  return QColor(mix(stops[i].red(), stops[i + 1].red()),
                mix(stops[i].green(), stops[i + 1].green()),
                mix(stops[i].blue(), stops[i + 1].blue()));
}

void NetworkGraphView::setNetworkLayout(std::shared_ptr<const NetworkLayout> layout) {
  scene()->clear();
  m_items.clear();
  m_shares.clear();
  m_layout = std::move(layout);
  if (!m_layout) return;
  const QPen edgePen(QColor(120, 120, 120), 1);
  for (const NetworkLayout::Edge& e : m_layout->edges) {
    scene()->addPath(e.path, edgePen)->setZValue(-1);
    if (const QPolygonF head = arrowHead(e.tip, e.from); !head.isEmpty())
      scene()->addPolygon(head, edgePen, QColor(120, 120, 120))->setZValue(-1);
  }
  for (const NetworkLayout::Node& n : m_layout->nodes) {
    auto* item = new LayerItem(n, m_layout->nodeSize);
    scene()->addItem(item);
    m_items.push_back(item);
  }
  scene()->setSceneRect(m_layout->bounds.adjusted(-20, -20, 20, 20));
  m_zoomed = false;
  fitGraph();
}

void NetworkGraphView::setShares(std::vector<double> shares) {
  m_shares = std::move(shares);
  m_shares.resize(m_items.size(), std::nan(""));
  double most = 0;
  for (double s : m_shares)
    if (std::isfinite(s)) most = std::max(most, s);
  for (std::size_t i = 0; i < m_items.size(); ++i) {
    const double s = m_shares[i];
    m_items[i]->setShare(s, std::isfinite(s) && most > 0 ? rampColor(s / most) : QColor(Qt::white));
  }
}

QColor NetworkGraphView::colorOf(std::size_t node) const {
  return node < m_items.size() ? m_items[node]->fill() : QColor();
}

void NetworkGraphView::fitGraph() {
  if (!m_layout) return;
  // A tall network (ResNet-18) fitted whole is unreadable: fit the width, at most 1:1, and let a
  // tall one scroll. Shrunk towards the view's height (down to 0.65), AlexNet's layer names were
  // 6 px high at 1280x800.
  const QRectF r = scene()->sceneRect();
  // Fitted to the room the view has with no scroll bar, less the vertical bar's where the graph
  // is taller than that room: never to the viewport as it is, which a bar narrows. There, at some
  // heights the fit brought the bar, the narrower fit took it away, and the view refitted without
  // end (the window froze, its event loop busy).
  const QSize room = maximumViewportSize();
  const auto fit = [&](double width) { return std::min(1.0, width / r.width()); };
  double k = fit(room.width());
  if (const int bar = barAt(k)) k = fit(room.width() - bar);
  setTransform(QTransform::fromScale(k, k));
  centerOn(r.center().x(), r.top() + viewport()->height() / (2 * k));
}

int NetworkGraphView::naturalWidth() const {
  if (!m_layout) return 0;
  return static_cast<int>(std::ceil(scene()->sceneRect().width())) + 2 * frameWidth() + barAt(1);
}

int NetworkGraphView::barAt(double k) const {
  return scene()->sceneRect().height() * k > maximumViewportSize().height()
             ? verticalScrollBar()->sizeHint().width()
             : 0;
}

void NetworkGraphView::wheelEvent(QWheelEvent* event) {
  const double factor = std::pow(1.0015, event->angleDelta().y());
  const double zoom = transform().m11() * factor;
  if (zoom < 0.05 || zoom > 8) return;
  scale(factor, factor);
  m_zoomed = true;
  event->accept();
}

void NetworkGraphView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  // The fit follows the width (a tall network scrolls): a height that changes (a status line
  // wrapping during a race, a scroll bar) keeps where the user scrolled to.
  if (!m_zoomed && event->size().width() != event->oldSize().width()) fitGraph();
}

}  // namespace opevo::ui
