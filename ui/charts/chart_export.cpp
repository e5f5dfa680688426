#include "ui/charts/chart_export.h"

#include <QFile>
#include <QPainter>
#include <QPixmap>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

#include "io/trials_csv.h"
#include "ui/controller/race_data.h"

namespace opevo::ui {

QString saveWidgetPng(QWidget* widget, const QString& path) {
  // Twice the screen's pixels: sharp when the figure is scaled into a document.
  QPixmap pixmap(widget->size() * 2);
  pixmap.setDevicePixelRatio(2);
  pixmap.fill(Qt::white);
  widget->render(&pixmap);
  if (!pixmap.save(path, "PNG")) return QObject::tr("Could not write %1").arg(path);
  return {};
}

QString saveWidgetSvg(QWidget* widget, const QString& path, const QString& title) {
  QSvgGenerator generator;
  generator.setFileName(path);
  generator.setSize(widget->size());
  generator.setViewBox(QRect(QPoint(0, 0), widget->size()));
  generator.setTitle(title);
  generator.setDescription(QObject::tr("OpEvo Studio chart"));
  QPainter painter;
  if (!painter.begin(&generator)) return QObject::tr("Could not write %1").arg(path);
  widget->render(&painter);
  painter.end();
  if (!QFile::exists(path)) return QObject::tr("Could not write %1").arg(path);
  return {};
}

QString saveTrialsCsv(const RaceData& data, const QString& path) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
    return QObject::tr("Could not write %1: %2").arg(path, file.errorString());
  // The one trials.csv format (core's io/trials_csv.h), as `opevo compare` and `opevo export`
  // write.
  std::string text = trialsCsvHeader();
  for (const TrialPoint& t : data.trials())
    text += trialsCsvRow(trialRecordOf(t, data.info().algorithms.value(t.algorithm)));
  file.write(text.data(), static_cast<qint64>(text.size()));
  if (!file.commit()) return QObject::tr("Could not write %1: %2").arg(path, file.errorString());
  return {};
}

}  // namespace opevo::ui
