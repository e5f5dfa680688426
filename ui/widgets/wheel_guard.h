#pragma once

#include <QObject>

namespace opevo::ui {

// Installed on the application: a spin box or combo box turns with the mouse wheel only once it
// has the keyboard focus (a click or Tab). Scrolling a long form otherwise stopped on whichever
// field came under the pointer and stepped it: the Runs form's seed became 0 with nothing to say
// so. The wheel over an unfocused field scrolls the form instead, and the wheel no longer gives
// such fields the focus.
class WheelGuard : public QObject {
  Q_OBJECT

 public:
  explicit WheelGuard(QObject* parent = nullptr);
  bool eventFilter(QObject* watched, QEvent* event) override;
};

}  // namespace opevo::ui
