#pragma once

#include <QWidget>

class QCheckBox;
class QTabWidget;
class QTimer;

namespace opevo::ui {

class RaceChartView;
class RaceData;

// The charts of a race (best speed vs trials, vs tuning time) with their options and exports.
// Both charts redraw from the RaceData on a 10 Hz timer when it has changed, so a burst of
// trials costs one redraw, and a quiet race none.
class RaceResultsWidget : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kRefreshIntervalMs = 100;

  explicit RaceResultsWidget(RaceData* data, QWidget* parent = nullptr);

  RaceChartView* trialsChart() const { return m_trialsChart; }
  RaceChartView* timeChart() const { return m_timeChart; }
  RaceChartView* currentChart() const;
  QTabWidget* tabs() const { return m_tabs; }
  void setLogX(bool on);
  void setLogY(bool on);
  void setShowRepeats(bool on);
  // Redraws both charts now (at the end of a race, for instance).
  void refreshNow();

  // Each returns an empty string or the message of what went wrong.
  QString exportPng(const QString& path) const;
  QString exportSvg(const QString& path) const;
  QString exportCsv(const QString& path) const;

 public slots:
  void exportPngDialog();
  void exportSvgDialog();
  void exportCsvDialog();

 signals:
  // An export's outcome, for the status bar.
  void message(const QString& text);

 private:
  void report(const QString& error, const QString& path);

  RaceData* m_data;
  QTabWidget* m_tabs;
  RaceChartView* m_trialsChart;
  RaceChartView* m_timeChart;
  QCheckBox* m_logX;
  QCheckBox* m_logY;
  QCheckBox* m_repeats;
  QTimer* m_timer;
};

}  // namespace opevo::ui
