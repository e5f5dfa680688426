#pragma once

#include <QChartView>
#include <vector>

#include "ui/controller/network_types.h"

class QLineSeries;
class QValueAxis;

namespace opevo::ui {

class PlotNote;

// Where a contender's trials went: for each task, the trials it had received against the
// network's trials, a step per unit the scheduler gave it. A gradient scheduler's lines part
// after the warm-up; round-robin's stay together. Hovering a line names its task.
class TaskTrialsChart : public QChartView {
  Q_OBJECT

 public:
  explicit TaskTrialsChart(QWidget* parent = nullptr);

  void setContender(const std::vector<NetworkTaskInfo>& tasks, const ContenderState* state);
  int lineCount() const { return static_cast<int>(m_lines.size()); }
  // The note over an empty plot ("No trials yet"); empty while hidden.
  QString emptyNote() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  // The legend lists every task where its rows fit the chart's height; a shorter chart (an
  // 800x600 screen, ResNet-18's many tasks) hides it rather than show a cut list, and a line
  // names its task when hovered either way.
  void fitLegend();

  std::vector<QLineSeries*> m_lines;
  QValueAxis* m_x;
  QValueAxis* m_y;
  PlotNote* m_emptyNote;
};

}  // namespace opevo::ui
