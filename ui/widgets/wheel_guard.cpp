#include "ui/widgets/wheel_guard.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>

namespace opevo::ui {
namespace {

QWidget* guarded(QObject* o) {
  if (auto* spin = qobject_cast<QAbstractSpinBox*>(o)) return spin;
  if (auto* combo = qobject_cast<QComboBox*>(o)) return combo;
  return nullptr;
}

}  // namespace

WheelGuard::WheelGuard(QObject* parent) : QObject(parent) {}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Polish) {
    // Qt's default for these fields is WheelFocus: the wheel would focus them and then turn them.
    if (QWidget* w = guarded(watched); w && (w->focusPolicy() & Qt::WheelFocus) == Qt::WheelFocus)
      w->setFocusPolicy(Qt::StrongFocus);
  } else if (event->type() == QEvent::Wheel) {
    if (QWidget* w = guarded(watched); w && !w->hasFocus()) {
      // Ignored and filtered out: QApplication then offers the wheel to the field's parents, the
      // form's scroll area among them.
      event->ignore();
      return true;
    }
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace opevo::ui
