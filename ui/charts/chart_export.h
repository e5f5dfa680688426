#pragma once

#include <QString>

class QWidget;

namespace opevo::ui {

class RaceData;

// Each returns an empty string on success, else the message to show (naming the file).
QString saveWidgetPng(QWidget* widget, const QString& path);
// Vector output through QSvgGenerator: the chart is painted again into the SVG, not a bitmap.
QString saveWidgetSvg(QWidget* widget, const QString& path, const QString& title);
// One row per trial: algorithm, repeat, trial, seconds, status, reason, speed, best, config.
QString saveTrialsCsv(const RaceData& data, const QString& path);

}  // namespace opevo::ui
