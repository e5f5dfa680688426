#pragma once

#include <QChartView>
#include <QColor>
#include <QList>
#include <QPointF>
#include <QStringList>
#include <utility>
#include <vector>

#include "engine/curve_stats.h"

class QAbstractAxis;
class QAbstractSeries;
class QAreaSeries;

class QLineSeries;

namespace opevo::ui {

class LogAxisLabels;
class PlotNote;
class RaceData;

// One chart of a race: best speed against trials or against time (RaceData::clock). Per algorithm,
// one colour: the mean across repeats as a line, +/- one standard deviation as a translucent band,
// and each repeat as a faint line on request; the dataset's optimum as a dashed reference.
// refresh() recomputes everything from the RaceData and hands each series its points in one
// replace(), so a timer can call it at a fixed rate however fast trials arrive.
class RaceChartView : public QChartView {
  Q_OBJECT

 public:
  enum class XAxis { Trials, Seconds };

  RaceChartView(RaceData* data, XAxis xAxis, QWidget* parent = nullptr);

  // Does nothing when the data has not changed since the last call (unless forced).
  void refresh(bool force = false);
  void setLogX(bool on);
  void setLogY(bool on);
  void setShowRepeats(bool on);
  bool logX() const { return m_logX; }
  bool logY() const { return m_logY; }
  // The labels drawn between a log y axis's decades (for tests; empty on a linear axis).
  QStringList logYLabels() const;
  bool showRepeats() const { return m_showRepeats; }

  // For tests and the screenshot tour: points of an algorithm's mean line, and of its band, one
  // per trial (or time) drawn: a step's corner, at the x of the point it rises to, is not counted.
  int meanPointCount(int algorithm) const;
  int bandPointCount(int algorithm) const;
  // The text a hover over the mean line at x shows.
  QString describeMean(int algorithm, double x) const;
  // The reference line's legend entry as shown now; empty without one.
  QString referenceLegend() const;
  // The legend of the library's fastest algorithm doing every multiply-add; empty when not drawn.
  QString everyMultiplyAddLegend() const;
  // The whole descriptions a hover over those lines, or their legend entries, shows.
  QString referenceTip() const;
  QString everyMultiplyAddTip() const;

  // The note centred on the plot while there is no trial to draw ("No trials yet…"); empty while
  // hidden.
  QString emptyNote() const;
  // What that note says while the chart draws no run at all (History with none selected, where
  // "No trials yet" read as if the store had none); by default "No trials yet" too.
  void setNoRunNote(const QString& text);

  // Where the legend is: below the plot while its entries fit there on one row, else on the
  // right, one entry per line.
  Qt::Alignment legendAlignment() const;
  // Whether the library lines' entries name the library alone ("246 TFLOPS: cuDNN"), their whole
  // descriptions not fitting below the plot.
  bool shortLegend() const { return m_shortLegend; }

  // The n-th colour of the charts' palette (contenders, layers: whatever a chart numbers).
  static QColor colorOf(int index);
  // The colours of a race's algorithms: each algorithm keeps its own from race to race (opevo-m
  // is the same green beside autotvm as beside random), distinct within the race.
  static std::vector<QColor> colorsOf(const QStringList& algorithms);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  struct AlgorithmSeries {
    QLineSeries* mean = nullptr;
    QLineSeries* upper = nullptr;
    QLineSeries* lower = nullptr;
    QAreaSeries* band = nullptr;
    std::vector<QLineSeries*> repeats;
    Band stats;
  };

  void rebuild();
  void makeAxes();
  void attach(QAbstractSeries* series);
  double clampY(double y) const;
  // One repeat's faint line, from its curve's steps.
  QList<QPointF> repeatLine(const RunCurve& curve) const;
  void showTip(const QString& text, bool state);
  void placeLegend();
  // The library lines' legend entries (the reference's, then every multiply-add's; empty where
  // not drawn), with whole descriptions or the library's name alone.
  std::pair<QString, QString> libraryLineNames(bool shortForm) const;
  void nameLibraryLines(bool shortForm);
  // The width one row of legend entries takes below the plot, the library lines named so.
  int legendRowWidth(bool shortForm) const;

  RaceData* m_data;
  XAxis m_xAxis;
  std::vector<AlgorithmSeries> m_series;
  QLineSeries* m_optimum = nullptr;
  QLineSeries* m_reference = nullptr;
  QLineSeries* m_everyMultiplyAdd = nullptr;
  QLineSeries* m_stage = nullptr;  // joint layout tuning's stage boundary
  QAbstractAxis* m_axisX = nullptr;
  QAbstractAxis* m_axisY = nullptr;
  LogAxisLabels* m_logLabels;  // between a log y axis's decades
  // Over an empty plot, whose axes (0 to 1, 0 to 10) would otherwise read as a result.
  PlotNote* m_emptyNote;
  QString m_noRunNote;
  bool m_logX = false;
  bool m_logY = false;
  bool m_showRepeats = false;
  bool m_shortLegend = false;
  bool m_nearTip = false;  // the tip shown is a mean's, a band's or the optimum's (mouseMoveEvent)
  quint64 m_shownRevision = ~quint64{0};
  double m_minPositive = 1;  // the smallest positive speed seen; log axes cannot show 0
};

}  // namespace opevo::ui
