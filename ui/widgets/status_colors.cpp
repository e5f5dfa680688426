#include "ui/widgets/status_colors.h"

#include <QGuiApplication>
#include <QPalette>

namespace opevo::ui {

QColor statusColor(StatusColor kind) {
  const bool dark = QGuiApplication::palette().color(QPalette::Base).lightness() < 128;
  switch (kind) {
    case StatusColor::Error:
      return dark ? QColor(0xff, 0x8a, 0x80) : QColor(0x8e, 0x00, 0x00);
    case StatusColor::Warning:
      return dark ? QColor(0xff, 0xb7, 0x4d) : QColor(0xa0, 0x50, 0x00);
    case StatusColor::Good:
      return dark ? QColor(0x81, 0xc7, 0x84) : QColor(0x2e, 0x7d, 0x32);
    case StatusColor::Muted:
      return QColor(0x90, 0x90, 0x90);
    case StatusColor::ErrorBackground:
      return dark ? QColor(0x4a, 0x1c, 0x1c) : QColor(0xfd, 0xec, 0xea);
  }
  return {};
}

}  // namespace opevo::ui
