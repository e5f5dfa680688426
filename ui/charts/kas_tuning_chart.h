#pragma once

#include <QChartView>

#include "store/records.h"

class QLineSeries;
class QLogValueAxis;
class QValueAxis;

namespace opevo::ui {

class PlotNote;

// How a candidate's schedule was tuned at each replaced layer: the best kernel time known after
// each trial, one colour per layer, from the start schedule at trial 0 (a square), with the
// convolution it replaces at that layer as a dashed line of the same colour (a log time axis:
// layers differ by orders of magnitude). The curve ends at the time the kernel is counted with
// (the layer's "ms": the start schedule when no trial beat it), as the Source tab and the table
// say. A layer tuned over N trials has N + 1 points, trial 0 being the start schedule: the axis
// title says so even when short, and the legend names the square and the dashed lines (a user
// read "tuned over 4 trials" beside five points as an off-by-one, and could not tell what the
// unnamed dashed lines were). With nothing to draw, it shows a sentence instead of empty axes.
class KasTuningChart : public QChartView {
  Q_OBJECT

 public:
  explicit KasTuningChart(QWidget* parent = nullptr);

  // Null, or a candidate not tuned yet, clears the chart and says why in its title.
  void setCandidate(const KasCandidateRow* candidate);
  int layerCount() const { return m_layers; }
  // For tests: layer i's solid curve (trial, ms), and the sentence shown instead of axes (empty
  // while the axes show).
  QList<QPointF> layerCurve(int layer) const;
  QString placeholder() const;
  // The names the legend shows, in its order.
  QStringList legendNames() const;
  // The trial axis's range.
  QPointF trialRange() const;
  // Smaller than this, the titles are the short ones.
  static constexpr int kCompactWidth = 480;
  static constexpr int kCompactHeight = 260;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  QValueAxis* m_x;
  QLogValueAxis* m_y;
  enum class State { NoKernel, Failed, NotTuned, Tuned };
  void setTitles();
  PlotNote* m_note;
  QList<QLineSeries*> m_curves;
  int m_layers = 0;
  State m_state = State::NoKernel;
  int m_seq = 0;
  bool m_compact = false;
};

}  // namespace opevo::ui
