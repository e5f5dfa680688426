#include "ui/widgets/screen_fit.h"

#include <QScreen>
#include <QWidget>

namespace opevo::ui {

void resizeToFit(QWidget* window, QSize wanted) {
  const QScreen* screen = window->screen();
  if (!screen) {
    window->resize(wanted);
    return;
  }
  // The window manager's frame and title bar come on top of the size given here.
  const QSize room = screen->availableSize() - QSize(16, 40);
  window->resize(wanted.boundedTo(room.expandedTo(QSize(320, 240))));
}

}  // namespace opevo::ui
