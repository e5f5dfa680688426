#include "ui/charts/chart_export.h"

#include <QFile>
#include <QPainter>
#include <QPixmap>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>
#include <algorithm>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/trials_csv.h"
#include "store/store.h"
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

namespace {

// Every trial of the race's runs as the store has them, in order of measurement. The store does
// not keep the tuner's time per trial: that column reads 0, as in `opevo export`.
std::vector<TrialPoint> storedTrials(const RaceData& data) {
  Store store(data.info().storePath.toStdString());
  std::vector<TrialPoint> points;
  for (int a = 0; a < data.info().algorithms.size(); ++a)
    for (int r = 0; r < data.info().repeats; ++r) {
      const RunCurve& curve = data.curve(a, r);
      if (curve.trials == 0) continue;
      const std::optional<RunRecord> run = store.run(curve.run);
      if (!run) throw std::runtime_error("run " + std::to_string(curve.run) + " is not stored");
      for (TrialPoint& p : storedTrialPoints(*run, store.trials(run->id), a, r))
        points.push_back(std::move(p));
    }
  std::stable_sort(points.begin(), points.end(),
                   [](const TrialPoint& x, const TrialPoint& y) { return x.order < y.order; });
  return points;
}

}  // namespace

QString saveTrialsCsv(const RaceData& data, const QString& path) {
  // The window keeps the latest trials only: the others are read back from the store.
  std::vector<TrialPoint> stored;
  if (!data.hasAllTrials()) {
    try {
      stored = storedTrials(data);
    } catch (const std::exception& e) {
      return QObject::tr("Could not read the race's trials from %1: %2")
          .arg(data.info().storePath, QString::fromUtf8(e.what()));
    }
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
    return QObject::tr("Could not write %1: %2").arg(path, file.errorString());
  // The one trials.csv format (core's io/trials_csv.h), as `opevo compare` and `opevo export`
  // write.
  std::string text = trialsCsvHeader();
  const auto write = [&](const TrialPoint& t) {
    text += trialsCsvRow(trialRecordOf(t, data.info().algorithms.value(t.algorithm)));
  };
  if (data.hasAllTrials())
    std::for_each(data.trials().begin(), data.trials().end(), write);
  else
    std::for_each(stored.begin(), stored.end(), write);
  file.write(text.data(), static_cast<qint64>(text.size()));
  if (!file.commit()) return QObject::tr("Could not write %1: %2").arg(path, file.errorString());
  return {};
}

}  // namespace opevo::ui
