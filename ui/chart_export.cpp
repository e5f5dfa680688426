#include "ui/chart_export.h"

#include <QFile>
#include <QPainter>
#include <QPixmap>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextStream>
#include <QWidget>

#include "ui/race_data.h"

namespace opevo::ui {
namespace {

// RFC 4180: quote a field that holds a separator, a quote or a line break.
QString csvField(QString text) {
  if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) ||
      text.contains(QLatin1Char('\n'))) {
    text.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + text + QLatin1Char('"');
  }
  return text;
}

}  // namespace

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
  QTextStream out(&file);
  out << "# " << data.info().label << "\n";
  out << "algorithm,repeat,trial,seconds,status,reason,speed,best,unit,config\n";
  for (const TrialPoint& t : data.trials()) {
    out << csvField(data.info().algorithms.value(t.algorithm)) << ',' << t.repeat + 1 << ','
        << t.seq << ',' << QString::number(t.seconds, 'g', 9) << ','
        << QString::fromUtf8(statusName(t.status).data(),
                             static_cast<qsizetype>(statusName(t.status).size()))
        << ',' << csvField(t.message) << ',' << QString::number(t.speed, 'g', 10) << ','
        << QString::number(t.best, 'g', 10) << ',' << csvField(data.info().speedUnit) << ','
        << csvField(t.config) << '\n';
  }
  out.flush();
  if (!file.commit()) return QObject::tr("Could not write %1: %2").arg(path, file.errorString());
  return {};
}

}  // namespace opevo::ui
