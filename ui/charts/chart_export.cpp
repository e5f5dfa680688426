#include "ui/charts/chart_export.h"

#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>
#include <algorithm>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "io/export_file.h"
#include "io/trials_csv.h"
#include "store/history.h"
#include "store/store.h"
#include "ui/controller/race_data.h"

namespace opevo::ui {

namespace {

// Into the user's file through io/export_file.h (all or nothing), with the reason when it fails.
QString writeExport(const QString& path, const QByteArray& bytes) {
  try {
    writeExportBytes(QFile::encodeName(path).toStdString(),
                     std::string_view(bytes.constData(), bytes.size()));
    return {};
  } catch (const ExportWriteError& e) {
    return QObject::tr("Could not write %1: %2")
        .arg(QDir::toNativeSeparators(path), QString::fromStdString(e.reason()));
  }
}

// Every trial of the race's runs as the store has them (core's trialRecords, as `opevo export`
// reads them), in order of measurement, under the window's names of their algorithms and its
// repeats (a resumed run keeps its own place in the window's race).
std::vector<TrialRecord> storedTrials(const RaceData& data) {
  Store store(data.info().storePath.toStdString(), Store::Opening::ExistingOnly);
  std::vector<TrialRecord> records;
  for (int a = 0; a < data.info().algorithms.size(); ++a)
    for (int r = 0; r < data.info().repeats; ++r) {
      const RunCurve& curve = data.curve(a, r);
      if (curve.trials == 0) continue;
      const std::optional<RunRecord> run = store.run(curve.run);
      if (!run) throw std::runtime_error("run " + std::to_string(curve.run) + " is not stored");
      // Each under its run's own algorithm and space, as `opevo export` writes them.
      for (TrialRecord& t : trialRecords(*run, store.trials(run->id))) {
        t.repeat = r;
        records.push_back(std::move(t));
      }
    }
  std::stable_sort(records.begin(), records.end(),
                   [](const TrialRecord& x, const TrialRecord& y) { return x.order < y.order; });
  return records;
}

}  // namespace

QString saveWidgetPng(QWidget* widget, const QString& path) {
  // Twice the screen's pixels: sharp when the figure is scaled into a document.
  QPixmap pixmap(widget->size() * 2);
  pixmap.setDevicePixelRatio(2);
  pixmap.fill(Qt::white);
  widget->render(&pixmap);
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (!pixmap.save(&buffer, "PNG"))
    return QObject::tr("Could not write %1: the chart could not be encoded as PNG")
        .arg(QDir::toNativeSeparators(path));
  return writeExport(path, bytes);
}

QString saveWidgetSvg(QWidget* widget, const QString& path, const QString& title) {
  // Painted into memory first: QSvgGenerator does not report a failed write to a file.
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&buffer);
  generator.setSize(widget->size());
  generator.setViewBox(QRect(QPoint(0, 0), widget->size()));
  generator.setTitle(title);
  generator.setDescription(QObject::tr("OpEvo Studio chart"));
  QPainter painter;
  if (!painter.begin(&generator))
    return QObject::tr("Could not write %1: the chart could not be painted as SVG")
        .arg(QDir::toNativeSeparators(path));
  widget->render(&painter);
  painter.end();
  return writeExport(path, bytes);
}

QString saveTrialsCsv(const RaceData& data, const QString& path) {
  // A stored race is read back from the store, even when the window still holds every trial: it
  // keeps the latest trials only, and the store's file is the one `opevo export` writes. A race
  // that is not stored has its every trial here, each with what device_seconds adds up (its build
  // and its measurement). So does a race the window holds whole whose store cannot be read now: a
  // full disk, which cannot even open it, does not stop its save elsewhere.
  std::vector<TrialRecord> records;
  bool read = false;
  if (!data.info().storePath.isEmpty()) {
    try {
      records = storedTrials(data);
      read = true;
    } catch (const std::exception& e) {
      if (!data.hasAllTrials())
        return QObject::tr("Could not read the race's trials from %1: %2")
            .arg(data.info().storePath, QString::fromUtf8(e.what()));
    }
  }
  if (!read)
    for (const TrialPoint& t : data.trials()) {
      // The algorithm's own name and its space, as `opevo export` writes a stored run's; the
      // curve's name where the window was not told them.
      const auto a = static_cast<std::size_t>(t.algorithm);
      const RaceData::Info& info = data.info();
      records.push_back(a < info.runs.size()
                            ? trialRecordOf(t, info.runs[a].algorithm, info.runs[a].space)
                            : trialRecordOf(t, info.algorithms.value(t.algorithm), QString()));
    }
  // The one trials.csv format (core's io/trials_csv.h), as `opevo compare` and `opevo export`
  // write.
  return writeExport(path, QByteArray::fromStdString(trialsCsv(records)));
}

}  // namespace opevo::ui
