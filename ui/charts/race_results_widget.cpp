#include "ui/charts/race_results_widget.h"

#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "engine/device_time.h"
#include "ui/charts/chart_export.h"
#include "ui/charts/race_chart_view.h"
#include "ui/controller/race_data.h"

namespace opevo::ui {

RaceResultsWidget::RaceResultsWidget(RaceData* data, QWidget* parent)
    : QWidget(parent),
      m_data(data),
      m_tabs(new QTabWidget(this)),
      m_options(new QWidget(this)),
      m_layout(new QVBoxLayout(this)),
      m_referenceNote(new QLabel(this)),
      m_deviceTime(new QLabel(this)),
      m_trialsChart(new RaceChartView(data, RaceChartView::XAxis::Trials, this)),
      m_timeChart(new RaceChartView(data, RaceChartView::XAxis::Seconds, this)),
      m_logX(new QCheckBox(tr("Log x"), this)),
      m_logY(new QCheckBox(tr("Log y"), this)),
      m_repeats(new QCheckBox(tr("Each repeat"), this)),
      m_timer(new QTimer(this)) {
  m_trialsChart->setObjectName(QStringLiteral("trialsChart"));
  m_timeChart->setObjectName(QStringLiteral("timeChart"));
  m_tabs->setObjectName(QStringLiteral("chartTabs"));
  m_tabs->addTab(m_trialsChart, tr("vs trials"));
  m_tabs->addTab(m_timeChart, tr("vs tuning time"));
  m_tabs->setDocumentMode(true);
  m_logX->setObjectName(QStringLiteral("logX"));
  m_logY->setObjectName(QStringLiteral("logY"));
  m_repeats->setObjectName(QStringLiteral("showRepeats"));
  m_repeats->setToolTip(tr("Draw every repeat as a faint line under the mean and its band"));

  // One button with a menu, not three: beside the check boxes, three kept the Runs page from
  // fitting an 800x600 screen.
  auto* save = new QPushButton(tr("Save"), this);
  save->setObjectName(QStringLiteral("saveResults"));
  auto* menu = new QMenu(save);
  QAction* png = menu->addAction(tr("Chart as PNG image…"));
  QAction* svg = menu->addAction(tr("Chart as SVG drawing…"));
  QAction* csv = menu->addAction(tr("Every trial as CSV…"));
  save->setMenu(menu);
  save->setToolTip(tr("Save the chart shown, or every trial of the race"));
  m_options->setObjectName(QStringLiteral("chartOptions"));
  auto* bar = new QHBoxLayout(m_options);
  bar->setContentsMargins(0, 0, 0, 0);
  bar->addWidget(m_logX);
  bar->addWidget(m_logY);
  bar->addWidget(m_repeats);
  bar->addStretch(1);
  bar->addWidget(save);
  auto* layout = m_layout;
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_options);
  layout->addWidget(m_tabs, 1);
  placeOptions();
  // Words wrap: a note in the legend was cut at 1024 pixels.
  m_referenceNote->setObjectName(QStringLiteral("referenceNote"));
  m_referenceNote->setWordWrap(true);
  m_referenceNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_referenceNote->hide();
  layout->addWidget(m_referenceNote);
  // Words wrap too: five algorithms' times are wider than the Runs page at 1024 pixels.
  m_deviceTime->setObjectName(QStringLiteral("deviceTime"));
  m_deviceTime->setWordWrap(true);
  m_deviceTime->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_deviceTime->hide();
  layout->addWidget(m_deviceTime);
  connect(m_data, &RaceData::wasReset, this, &RaceResultsWidget::updateReferenceNote);
  connect(m_data, &RaceData::wasReset, this, &RaceResultsWidget::updateDeviceTime);
  connect(m_data, &RaceData::infoChanged, this, &RaceResultsWidget::updateReferenceNote);
  connect(m_data, &RaceData::wasReset, this, &RaceResultsWidget::nameTimeTab);
  connect(m_data, &RaceData::infoChanged, this, &RaceResultsWidget::nameTimeTab);

  connect(m_logX, &QCheckBox::toggled, this, &RaceResultsWidget::setLogX);
  connect(m_logY, &QCheckBox::toggled, this, &RaceResultsWidget::setLogY);
  connect(m_repeats, &QCheckBox::toggled, this, &RaceResultsWidget::setShowRepeats);
  connect(png, &QAction::triggered, this, &RaceResultsWidget::exportPngDialog);
  connect(svg, &QAction::triggered, this, &RaceResultsWidget::exportSvgDialog);
  connect(csv, &QAction::triggered, this, &RaceResultsWidget::exportCsvDialog);
  connect(m_timer, &QTimer::timeout, this, [this] {
    // Only the chart on screen is redrawn; the other catches up when its tab is shown.
    currentChart()->refresh();
    updateDeviceTime();
  });
  connect(m_tabs, &QTabWidget::currentChanged, this, [this] { currentChart()->refresh(); });
  m_timer->start(kRefreshIntervalMs);
}

void RaceResultsWidget::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  placeOptions();
}

void RaceResultsWidget::placeOptions() {
  // Beside the tabs, not on a row of their own above them: at 1024x700 History's chart had about
  // 220 pixels of height, and its x axis's title was cut in half. Where tabs and options do not
  // both fit (the Runs page at 800x600), on their row again: beside them the tabs read "vs tu…".
  const bool beside =
      m_tabs->tabBar()->sizeHint().width() + m_options->sizeHint().width() + 16 <= width();
  if (beside == (m_tabs->cornerWidget(Qt::TopRightCorner) == m_options)) return;
  if (beside) {
    m_layout->removeWidget(m_options);
    m_tabs->setCornerWidget(m_options, Qt::TopRightCorner);
  } else {
    m_tabs->setCornerWidget(nullptr, Qt::TopRightCorner);
    m_layout->insertWidget(0, m_options);
  }
  m_options->show();
}

RaceChartView* RaceResultsWidget::currentChart() const {
  return m_tabs->currentWidget() == m_timeChart ? m_timeChart : m_trialsChart;
}

QString RaceResultsWidget::referenceNote() const {
  return m_referenceNote->isHidden() ? QString() : m_referenceNote->text();
}

void RaceResultsWidget::nameTimeTab() {
  const RaceData::Clock clock = m_data->clock();
  m_tabs->setTabText(m_tabs->indexOf(m_timeChart), clock == RaceData::Clock::DeviceByFile
                                                       ? tr("vs device time")
                                                       : tr("vs %1").arg(clockName(clock)));
  m_tabs->setTabToolTip(m_tabs->indexOf(m_timeChart),
                        tr("Best speed against %1").arg(clockName(clock)));
}

void RaceResultsWidget::updateReferenceNote() {
  const RaceData::Info& info = m_data->info();
  QString note = info.reference ? referenceNoteText(*info.reference, info.speedUnit) : QString();
  if (info.reference && info.reference->everyMultiplyAdd)
    // Named whole here: where the chart is narrow its legend names the library alone.
    note += tr(" The dotted line is %1, the library's fastest algorithm doing every multiply-add "
               "(%2x slower than its fastest by its own timing).")
                .arg(QString::fromStdString(info.reference->everyMultiplyAdd->name),
                     QString::number(info.reference->everyMultiplyAdd->slowerBy, 'f', 2));
  m_referenceNote->setText(note);
  m_referenceNote->setHidden(!info.reference);
}

QString RaceResultsWidget::deviceTimeText() const {
  return m_deviceTime->isHidden() ? QString() : m_deviceTime->text();
}

QString RaceResultsWidget::deviceTimeToolTip() const {
  return m_deviceTime->isHidden() ? QString() : m_deviceTime->toolTip();
}

void RaceResultsWidget::updateDeviceTime() {
  if (m_deviceTimeRevision == m_data->revision()) return;
  m_deviceTimeRevision = m_data->revision();
  const RaceData::Info& info = m_data->info();
  const auto text = [](double seconds) {
    return QString::fromStdString(opevo::deviceTimeText(seconds));
  };
  QStringList means, runs;
  bool severalRuns = false;
  for (int a = 0; a < info.algorithms.size(); ++a) {
    double sum = 0;
    int counted = 0;
    for (int r = 0; r < info.repeats; ++r) {
      const std::optional<double> seconds = m_data->deviceSeconds(a, r);
      if (!seconds) continue;
      sum += *seconds;
      ++counted;
      runs << tr("%1, repeat %2: %3").arg(info.algorithms[a]).arg(r + 1).arg(text(*seconds));
    }
    if (counted == 0) continue;
    severalRuns = severalRuns || counted > 1;
    means << tr("%1 %2").arg(info.algorithms[a], text(sum / counted));
  }
  if (means.isEmpty()) {
    m_deviceTime->clear();
    m_deviceTime->setToolTip(QString());
    m_deviceTime->hide();
    return;
  }
  // The spelling `opevo compare` and `opevo dataset` print (deviceTimeText), and its mean over
  // the repeats as compare's table has it.
  m_deviceTime->setText((severalRuns ? tr("Device time by the file, mean over the runs: %1")
                                     : tr("Device time by the file: %1"))
                            .arg(means.join(QStringLiteral(", "))));
  m_deviceTime->setToolTip(
      tr("What the trials measured so far cost the device that measured the file: each one's "
         "compile, benchmark and verification time, as Kernel Tuner's simulation mode charges "
         "them (opevo compare's device time). A replay's time budget counts this time, not the "
         "time the replay takes here.\n\n%1")
          .arg(runs.join(QLatin1Char('\n'))));
  m_deviceTime->show();
}

void RaceResultsWidget::setLogX(bool on) {
  m_logX->setChecked(on);
  m_trialsChart->setLogX(on);
  m_timeChart->setLogX(on);
}

void RaceResultsWidget::setLogY(bool on) {
  m_logY->setChecked(on);
  m_trialsChart->setLogY(on);
  m_timeChart->setLogY(on);
}

void RaceResultsWidget::setShowRepeats(bool on) {
  m_repeats->setChecked(on);
  m_trialsChart->setShowRepeats(on);
  m_timeChart->setShowRepeats(on);
}

void RaceResultsWidget::refreshNow() {
  m_trialsChart->refresh();
  m_timeChart->refresh();
  updateDeviceTime();
}

QString RaceResultsWidget::exportPng(const QString& path) const {
  currentChart()->refresh();
  return saveWidgetPng(currentChart(), path);
}

QString RaceResultsWidget::exportSvg(const QString& path) const {
  currentChart()->refresh();
  return saveWidgetSvg(currentChart(), path, m_data->info().label);
}

QString RaceResultsWidget::exportCsv(const QString& path) const {
  return saveTrialsCsv(*m_data, path);
}

void RaceResultsWidget::report(const QString& error, const QString& path) {
  emit message(error.isEmpty() ? tr("Saved %1").arg(QDir::toNativeSeparators(path)) : error);
}

void RaceResultsWidget::exportPngDialog() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Save chart as PNG"),
                                                    QStringLiteral("race.png"), tr("PNG (*.png)"));
  if (!path.isEmpty()) report(exportPng(path), path);
}

void RaceResultsWidget::exportSvgDialog() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Save chart as SVG"),
                                                    QStringLiteral("race.svg"), tr("SVG (*.svg)"));
  if (!path.isEmpty()) report(exportSvg(path), path);
}

void RaceResultsWidget::exportCsvDialog() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save trials as CSV"), QStringLiteral("trials.csv"), tr("CSV (*.csv)"));
  if (!path.isEmpty()) report(exportCsv(path), path);
}

}  // namespace opevo::ui
