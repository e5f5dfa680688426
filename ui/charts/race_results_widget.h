#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QTabWidget;
class QTimer;
class QVBoxLayout;

namespace opevo::ui {

class RaceChartView;
class RaceData;

// The charts of a race (best speed vs trials, vs time) with their options and exports.
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
  // Under the charts while a library line is drawn: which timing it is, that it was taken apart
  // from the kernels, and the side-by-side figure once there is one. Empty when hidden.
  QString referenceNote() const;
  // Under the charts in a replay's race: each algorithm's device time so far by the file (the
  // mean over its runs, as `opevo compare` prints it), each run's in the tooltip. Empty when
  // hidden (a race on a device).
  QString deviceTimeText() const;
  QString deviceTimeToolTip() const;
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

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  // The options (log axes, each repeat, Save) beside the tabs where they fit, else on a row of
  // their own above them.
  void placeOptions();
  void report(const QString& error, const QString& path);
  void updateReferenceNote();
  // The time tab says which time its chart shows (RaceData::clock): a replay's is the device's.
  void nameTimeTab();
  // Redone when the race's data changed since it was last written.
  void updateDeviceTime();

  RaceData* m_data;
  QTabWidget* m_tabs;
  QWidget* m_options;
  QVBoxLayout* m_layout;
  QLabel* m_referenceNote;
  QLabel* m_deviceTime;
  quint64 m_deviceTimeRevision = 0;
  RaceChartView* m_trialsChart;
  RaceChartView* m_timeChart;
  QCheckBox* m_logX;
  QCheckBox* m_logY;
  QCheckBox* m_repeats;
  QTimer* m_timer;
};

}  // namespace opevo::ui
