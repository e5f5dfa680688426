#pragma once

#include <QChartView>

#include "store/records.h"

class QLogValueAxis;
class QValueAxis;

namespace opevo::ui {

// How a candidate's schedule was tuned at each replaced layer: the best kernel time after each
// trial, one colour per layer, with the convolution it replaces at that layer as a dashed line of
// the same colour (a log time axis: layers differ by orders of magnitude).
class KasTuningChart : public QChartView {
  Q_OBJECT

 public:
  explicit KasTuningChart(QWidget* parent = nullptr);

  // Null, or a candidate not tuned yet, clears the chart and says why in its title.
  void setCandidate(const KasCandidateRow* candidate);
  int layerCount() const { return m_layers; }
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
  int m_layers = 0;
  State m_state = State::NoKernel;
  int m_seq = 0;
  bool m_compact = false;
};

}  // namespace opevo::ui
