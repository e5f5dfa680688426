#include "ui/charts/kas_dag_view.h"

#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QGraphicsSimpleTextItem>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "ui/charts/arrow_head.h"
#include "ui/charts/kas_dag_layout.h"

namespace opevo::ui {
namespace {

QColor fillOf(kas::PrimitiveKind kind) {
  if (kas::isFc(kind)) return QColor(253, 208, 162);  // the only weights: they stand out
  switch (kas::primitiveClass(kind)) {
    case kas::PrimitiveClass::Input:
      return QColor(230, 230, 230);
    case kas::PrimitiveClass::Rearrangement:
      return QColor(198, 219, 239);
    case kas::PrimitiveClass::Arithmetic:
      return QColor(255, 243, 214);
    case kas::PrimitiveClass::Blending:
      return QColor(199, 233, 192);
  }
  return Qt::white;
}

// A node's box with its two lines, drawn in one paint.
class DagNodeItem : public QGraphicsItem {
 public:
  DagNodeItem(const KasDagLayout::Node& node, const QFont& font) : m_node(node), m_font(font) {
    setPos(node.center);
    setToolTip(QStringLiteral("%1 → %2").arg(node.title, node.shape));
  }
  QRectF boundingRect() const override {
    const QSizeF s = m_node.size;
    return QRectF(-s.width() / 2 - 1, -s.height() / 2 - 1, s.width() + 2, s.height() + 2);
  }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override {
    const QSizeF s = m_node.size;
    const QRectF box(-s.width() / 2, -s.height() / 2, s.width(), s.height());
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(QColor(70, 70, 70), 1));
    painter->setBrush(fillOf(m_node.kind));
    painter->drawRoundedRect(box, 4, 4);
    painter->setPen(Qt::black);
    QFont bold = m_font;
    bold.setBold(true);
    painter->setFont(bold);
    painter->drawText(box.adjusted(0, 2, 0, -box.height() / 2), Qt::AlignHCenter | Qt::AlignBottom,
                      m_node.title);
    painter->setFont(m_font);
    painter->drawText(box.adjusted(0, box.height() / 2, 0, -2), Qt::AlignHCenter | Qt::AlignTop,
                      m_node.shape);
  }

 private:
  KasDagLayout::Node m_node;
  QFont m_font;
};

}  // namespace

KasDagView::KasDagView(QWidget* parent) : QGraphicsView(parent) {
  setScene(new QGraphicsScene(this));
  setRenderHint(QPainter::Antialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setBackgroundBrush(Qt::white);
  setMinimumSize(160, 160);
  setToolTip(
      tr("The kernel's micro-DAG: blue boxes rearrange, orange ones compute (the darker, "
         "fc, holds the weights), green ones blend two tensors"));
}

void KasDagView::setNote(const QString& note) {
  scene()->clear();
  m_layout.reset();
  if (note.isEmpty()) return;
  auto* text = scene()->addSimpleText(note);
  text->setBrush(QColor(110, 110, 110));
  scene()->setSceneRect(text->boundingRect().adjusted(-10, -10, 10, 10));
  resetTransform();
}

void KasDagView::setDagLayout(std::shared_ptr<const KasDagLayout> layout) {
  scene()->clear();
  m_layout = std::move(layout);
  if (!m_layout) return;
  const QPen edgePen(QColor(110, 110, 110), 1);
  QFont small = m_layout->font;
  small.setPointSizeF(small.pointSizeF() * 0.85);
  for (const KasDagLayout::Edge& e : m_layout->edges) {
    scene()->addPath(e.path, edgePen)->setZValue(-1);
    if (const QPolygonF head = arrowHead(e.tip, e.from); !head.isEmpty())
      scene()->addPolygon(head, edgePen, QColor(110, 110, 110))->setZValue(-1);
    if (!e.label.isEmpty()) {
      auto* label = scene()->addSimpleText(e.label, small);
      label->setBrush(QColor(90, 90, 90));
      label->setPos(e.path.pointAtPercent(0.6) + QPointF(3, -label->boundingRect().height() / 2));
    }
  }
  for (const KasDagLayout::Node& n : m_layout->nodes)
    scene()->addItem(new DagNodeItem(n, m_layout->font));
  scene()->setSceneRect(scene()->itemsBoundingRect().adjusted(-8, -8, 8, 8));
  fitDag();
}

void KasDagView::fitDag() {
  if (!m_layout) return;
  const QRectF r = scene()->sceneRect();
  // A small kernel is drawn 1:1; a tall one shrinks to fit, but not past legibility (then it
  // scrolls).
  const double k = std::clamp(
      std::min(viewport()->width() / r.width(), viewport()->height() / r.height()), 0.6, 1.0);
  resetTransform();
  scale(k, k);
  centerOn(r.center());
}

void KasDagView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  fitDag();
}

void KasDagView::wheelEvent(QWheelEvent* event) {
  const double factor = std::pow(1.0015, event->angleDelta().y());
  const double zoom = transform().m11() * factor;
  if (zoom < 0.1 || zoom > 6) return;
  scale(factor, factor);
  event->accept();
}

}  // namespace opevo::ui
