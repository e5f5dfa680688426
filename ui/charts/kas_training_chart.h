#pragma once

#include <QChartView>
#include <vector>

#include "store/records.h"

class QValueAxis;

namespace opevo::ui {

// A candidate's training: test accuracy after each epoch, beside the baseline's (the backbone
// with its standard convolutions, dashed), as Canvas's early stop compares them.
class KasTrainingChart : public QChartView {
  Q_OBJECT

 public:
  explicit KasTrainingChart(QWidget* parent = nullptr);

  // Null, or a candidate not trained yet, shows the baseline alone and says why in the title.
  void setCandidate(const KasCandidateRow* candidate, const std::vector<double>& baselineCurve);
  int candidateEpochs() const { return m_epochs; }

 private:
  QValueAxis* m_x;
  QValueAxis* m_y;
  int m_epochs = 0;
};

}  // namespace opevo::ui
