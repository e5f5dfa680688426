#include "ui/charts/probability_legend.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

#include "ui/charts/topology_view.h"
#include "ui/widgets/display_format.h"

namespace opevo::ui {

ProbabilityLegend::ProbabilityLegend(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("probabilityLegend"));
}

void ProbabilityLegend::setScale(double maxP, int decades) {
  m_max = maxP;
  m_decades = std::max(1, decades);
  update();
}

void ProbabilityLegend::setSampledWalks(int walks) {
  m_walks = walks;
  update();
}

QStringList ProbabilityLegend::sizeValues() const {
  QStringList out;
  for (double f : kSizeFractions)
    out << (m_max > 0  ? QString::number(m_max * f, 'g', 3)
            : f == 1.0 ? tr("max")
                       : QStringLiteral("max/%1").arg(static_cast<int>(std::lround(1 / f))));
  return out;
}

QSize ProbabilityLegend::sizeHint() const {
  const QFontMetrics fm = fontMetrics();
  int text = 0;
  for (const QString& t : {tr("start vertex (click to move)"), tr("sampled (1,000,000 walks)"),
                           QStringLiteral("0.0000000000 x")})
    text = std::max(text, fm.horizontalAdvance(t));
  return {text + 44, fm.height() * 14 + 230};  // room for every line drawn below
}

void ProbabilityLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QFontMetrics fm = fontMetrics();
  const int line = fm.height();
  int y = 4;
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.drawText(4, y + fm.ascent(), tr("Exact probability"));
  p.setFont(font());
  y += line + 6;
  // The colour ramp, top = likeliest, with a label per decade (per two over more than three).
  const int barTop = y, barHeight = 150, barWidth = 18;
  for (int i = 0; i < barHeight; ++i) {
    p.setPen(TopologyView::rampColor(1.0 - double(i) / (barHeight - 1)));
    p.drawLine(8, barTop + i, 8 + barWidth, barTop + i);
  }
  // Text and frame from the palette, muted by transparency rather than a fixed grey, so that a
  // dark theme shows them as well as a light one.
  const QColor ink = palette().color(QPalette::WindowText);
  QColor muted = ink;
  muted.setAlphaF(0.75);
  p.setPen(ink);
  p.setBrush(Qt::NoBrush);
  p.drawRect(8, barTop, barWidth, barHeight);
  for (int d = 0; d <= m_decades; d += m_decades > 3 ? 2 : 1) {
    const int ty = barTop + static_cast<int>(double(d) / m_decades * (barHeight - 1));
    p.drawLine(8 + barWidth, ty, 12 + barWidth, ty);
    // Three digits: a scale, not a table (the exact values are in the vertices' tooltips).
    const QString text = m_max > 0 ? QString::number(m_max * std::pow(10.0, -d), 'g', 3)
                                   : (d == 0 ? tr("max") : QStringLiteral("max × 1e-%1").arg(d));
    p.drawText(16 + barWidth, ty + fm.ascent() / 2 - 1, text);
  }
  y = barTop + barHeight + line + fm.ascent() / 2 + 6;
  p.drawText(4, y, tr("Area ∝ probability"));
  y += 8;
  // Each disc with the probability it stands for: three unlabelled circles said only "bigger is
  // likelier".
  const QStringList values = sizeValues();
  int step = 34;
  for (const QString& v : values) step = std::max(step, fm.horizontalAdvance(v) + 8);
  int x = 8;
  for (int i = 0; i < 3; ++i) {
    const double f = kSizeFractions[i];
    const double r = 2.5 + 10.5 * std::sqrt(f);
    const double cx = x + std::max(13, step / 2);
    p.setBrush(TopologyView::rampColor(std::max(0.0, 1 + std::log10(f) / m_decades)));
    p.setPen(QPen(QColor(0, 0, 0, 90), 0.6));
    p.drawEllipse(QPointF(cx, y + 15), r, r);
    p.setPen(ink);
    const int w = fm.horizontalAdvance(values[i]);
    p.drawText(static_cast<int>(cx) - w / 2, y + 30 + fm.ascent(), values[i]);
    x += step;
  }
  y += 36 + 2 * line;
  p.setBrush(Qt::lightGray);
  p.setPen(QPen(Qt::black, 3));
  p.drawEllipse(QPointF(16, y - 4), 7, 7);
  p.setPen(ink);
  p.drawText(32, y, tr("start vertex (click to move)"));
  y += line + 8;
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(QColor(0xd8, 0x1b, 0x60), 1.4, Qt::DashLine));
  p.drawEllipse(QPointF(16, y - 4), 7, 7);
  p.setPen(ink);
  p.drawText(32, y,
             m_walks > 0 ? tr("sampled (%1 walks)").arg(groupDigits(std::to_string(m_walks)))
                         : tr("sampled (none yet)"));
  y += line + 8;
  p.setPen(muted);
  p.drawText(
      QRect(4, y, width() - 8, line * 4), Qt::TextWordWrap,
      tr("Wheel: zoom about the pointer. Drag: pan. Labels show where they have room; zoom in "
         "to give crowded ones room."));
}

}  // namespace opevo::ui
