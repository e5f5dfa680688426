#include "ui/charts/task_trials_chart.h"

#include <QChart>
#include <QCursor>
#include <QFontMetrics>
#include <QLineSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>

#include "ui/charts/plot_note.h"
#include "ui/charts/race_chart_view.h"

namespace opevo::ui {

TaskTrialsChart::TaskTrialsChart(QWidget* parent)
    : QChartView(parent),
      m_x(new QValueAxis),
      m_y(new QValueAxis),
      m_emptyNote(new PlotNote(chart(), palette().color(QPalette::PlaceholderText))) {
  m_emptyNote->setText(tr("No trials yet"));
  setRenderHint(QPainter::Antialiasing);
  chart()->setTitle(tr("Trials each task received"));
  chart()->legend()->setAlignment(Qt::AlignRight);
  QFont small = chart()->legend()->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  chart()->legend()->setFont(small);
  m_x->setTitleText(tr("trials (whole network)"));
  // Short: a longer vertical title was elided on a short chart.
  m_y->setTitleText(tr("trials"));
  m_x->setLabelFormat(QStringLiteral("%d"));
  m_y->setLabelFormat(QStringLiteral("%d"));
  chart()->addAxis(m_x, Qt::AlignBottom);
  chart()->addAxis(m_y, Qt::AlignLeft);
  setMinimumHeight(200);
}

void TaskTrialsChart::setContender(const std::vector<NetworkTaskInfo>& tasks,
                                   const ContenderState* state) {
  if (m_lines.size() != tasks.size()) {
    chart()->removeAllSeries();
    m_lines.clear();
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      auto* line = new QLineSeries;
      line->setName(tasks[i].name);
      line->setColor(RaceChartView::colorOf(static_cast<int>(i)));
      chart()->addSeries(line);
      line->attachAxis(m_x);
      line->attachAxis(m_y);
      connect(line, &QLineSeries::hovered, this, [name = tasks[i].name](const QPointF&, bool on) {
        if (on)
          QToolTip::showText(QCursor::pos(), name);
        else
          QToolTip::hideText();
      });
      m_lines.push_back(line);
    }
    fitLegend();
  }
  std::vector<QList<QPointF>> points(tasks.size());
  for (auto& p : points) p.append({0, 0});
  // Room for a few units before any: integer ticks, not 0, 0, 1, 1.
  double xMax = 8, yMax = 4;
  m_emptyNote->setText(state && !state->unitTask.empty() ? QString() : tr("No trials yet"));
  if (state) {
    std::vector<int> had(tasks.size(), 0);
    int network = 0;
    for (std::size_t u = 0; u < state->unitTask.size(); ++u) {
      const auto t = static_cast<std::size_t>(state->unitTask[u]);
      if (t >= tasks.size()) continue;
      network += state->unitTrials[u];
      points[t].append(
          {static_cast<double>(network - state->unitTrials[u]), static_cast<double>(had[t])});
      had[t] += state->unitTrials[u];
      points[t].append({static_cast<double>(network), static_cast<double>(had[t])});
      yMax = std::max(yMax, static_cast<double>(had[t]));
    }
    for (std::size_t t = 0; t < tasks.size(); ++t)
      points[t].append({static_cast<double>(network), static_cast<double>(had[t])});
    xMax = std::max({xMax, static_cast<double>(state->budget), static_cast<double>(network)});
  }
  for (std::size_t t = 0; t < tasks.size(); ++t) m_lines[t]->replace(points[t]);
  m_x->setRange(0, xMax);
  m_y->setRange(0, yMax);
  m_x->applyNiceNumbers();
  m_y->applyNiceNumbers();
}

QString TaskTrialsChart::emptyNote() const {
  return m_emptyNote->text();
}

void TaskTrialsChart::resizeEvent(QResizeEvent* event) {
  QChartView::resizeEvent(event);
  fitLegend();
}

void TaskTrialsChart::fitLegend() {
  // A legend row is a line of its font with Qt's spacing about it; the title and the chart's
  // margins take the rest.
  const QFontMetrics legend(chart()->legend()->font()), title(chart()->titleFont());
  const int needed =
      static_cast<int>(m_lines.size()) * (legend.height() + 6) + 2 * title.height() + 40;
  chart()->legend()->setVisible(needed <= height());
}

}  // namespace opevo::ui
