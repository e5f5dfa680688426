#include "ui/widgets/layout_view.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPainter>
#include <QStringList>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace opevo::ui {

LayoutGrid::LayoutGrid(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("layoutGrid"));
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void LayoutGrid::setPicture(layout::LayoutPicture picture) {
  m_picture = std::move(picture);
  // Rank of each cell's offset among the cells drawn: the shade says "earlier in memory" even
  // when the plane is a thin slice of a large tensor.
  std::vector<std::size_t> order(m_picture.offset.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return m_picture.offset[a] < m_picture.offset[b];
  });
  m_rank.assign(order.size(), 0);
  for (std::size_t k = 0; k < order.size(); ++k) m_rank[order[k]] = static_cast<int>(k);
  update();
}

void LayoutGrid::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  const auto& p = m_picture;
  if (p.rows == 0 || p.cols == 0) return;
  const double cell =
      std::max(2.0, std::min((width() - 2.0) / double(p.cols), (height() - 2.0) / double(p.rows)));
  const double cells = double(p.offset.size());
  auto at = [&](std::int64_t y, std::int64_t x) { return std::size_t(y * p.cols + x); };
  for (std::int64_t y = 0; y < p.rows; ++y)
    for (std::int64_t x = 0; x < p.cols; ++x) {
      const std::size_t i = at(y, x);
      const QRectF r(1 + x * cell, 1 + y * cell, cell, cell);
      if (p.tile[i] < 0) {
        painter.fillRect(r, QColor(200, 200, 200));
        continue;
      }
      // Tiles get well-separated hues; memory order runs from light to dark within the picture.
      const int hue = int(std::fmod(p.tile[i] * 137.508, 360.0));
      const int value = 250 - int(110.0 * m_rank[i] / std::max(1.0, cells - 1));
      painter.fillRect(r, QColor::fromHsv(hue, 120, value));
    }
  if (cell >= 6) {
    painter.setPen(QPen(QColor(255, 255, 255, 140), 1));
    for (std::int64_t y = 1; y < p.rows; ++y)
      painter.drawLine(QPointF(1, 1 + y * cell), QPointF(1 + p.cols * cell, 1 + y * cell));
    for (std::int64_t x = 1; x < p.cols; ++x)
      painter.drawLine(QPointF(1 + x * cell, 1), QPointF(1 + x * cell, 1 + p.rows * cell));
  }
  painter.setPen(QPen(QColor(30, 30, 30), 2));
  for (std::int64_t y = 0; y < p.rows; ++y)
    for (std::int64_t x = 0; x < p.cols; ++x) {
      const int t = p.tile[at(y, x)];
      if (x + 1 < p.cols && p.tile[at(y, x + 1)] != t)
        painter.drawLine(QPointF(1 + (x + 1) * cell, 1 + y * cell),
                         QPointF(1 + (x + 1) * cell, 1 + (y + 1) * cell));
      if (y + 1 < p.rows && p.tile[at(y + 1, x)] != t)
        painter.drawLine(QPointF(1 + x * cell, 1 + (y + 1) * cell),
                         QPointF(1 + (x + 1) * cell, 1 + (y + 1) * cell));
    }
  painter.setPen(QPen(QColor(30, 30, 30), 1));
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(QRectF(1, 1, p.cols * cell, p.rows * cell));
}

LayoutView::LayoutView(QWidget* parent)
    : QWidget(parent),
      m_title(new QLabel(this)),
      m_primitives(new QLabel(this)),
      m_physical(new QLabel(this)),
      m_address(new QLabel(this)),
      m_grid(new LayoutGrid(this)),
      m_caption(new QLabel(this)) {
  const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  for (QLabel* l : {m_primitives, m_physical, m_address, m_caption}) {
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  }
  for (QLabel* l : {m_primitives, m_physical, m_address}) l->setFont(fixed);
  m_primitives->setObjectName(QStringLiteral("layoutPrimitives"));
  m_address->setObjectName(QStringLiteral("layoutAddress"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_title);
  layout->addWidget(m_primitives);
  layout->addWidget(m_physical);
  layout->addWidget(m_address);
  layout->addWidget(m_grid, 1);
  layout->addWidget(m_caption);
}

void LayoutView::showLayout(const QString& title, const layout::Layout& l,
                            const std::string& rowDim, const std::string& colDim) {
  layout::LayoutPicture picture = layout::layoutPicture(l, rowDim, colDim);
  m_title->setText(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()));
  m_primitives->setText(QString::fromStdString(l.describe()));
  QString shape;
  for (const layout::Dim& d : l.physical())
    shape += (shape.isEmpty() ? QString() : QStringLiteral(" x ")) +
             QStringLiteral("%1 %2").arg(QString::fromStdString(d.name)).arg(d.extent);
  m_physical->setText(tr("stored as %1 (%2 floats)").arg(shape).arg(l.size()));
  std::vector<std::string> names;
  QStringList shown;
  for (const layout::Dim& d : l.logical()) {
    names.push_back(d.name);
    shown << QString::fromStdString(d.name);
  }
  m_address->setText(tr("address of (%1) = %2")
                         .arg(shown.join(QStringLiteral(", ")),
                              QString::fromStdString(l.offsetExpression(names))));
  m_caption->setText(
      tr("Rows: %1 (%2 of %3), columns: %4 (%5 of %6), the other dims at 0. Colour: tile "
         "(%7 drawn, thick lines between them); shade: order in memory, light first.")
          .arg(QString::fromStdString(picture.rowDim))
          .arg(picture.rows)
          .arg(picture.rowExtent)
          .arg(QString::fromStdString(picture.colDim))
          .arg(picture.cols)
          .arg(picture.colExtent)
          .arg(picture.tiles));
  m_grid->setPicture(std::move(picture));
}

QString LayoutView::primitivesText() const {
  return m_primitives->text();
}

QString LayoutView::addressText() const {
  return m_address->text();
}

}  // namespace opevo::ui
