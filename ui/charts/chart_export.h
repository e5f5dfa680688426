#pragma once

#include <QString>

class QWidget;

namespace opevo::ui {

class RaceData;

// Each returns an empty string on success, else the message to show, naming the file and the
// reason. A failed write leaves no file (core's io/export_file.h).
QString saveWidgetPng(QWidget* widget, const QString& path);
// Vector output through QSvgGenerator: the chart is painted again into the SVG, not a bitmap.
QString saveWidgetSvg(QWidget* widget, const QString& path, const QString& title);
// trials.csv (core's io/trials_csv.h), every trial of the race.
QString saveTrialsCsv(const RaceData& data, const QString& path);

}  // namespace opevo::ui
