#include "ui/widgets/screen_fit.h"

#include <QScreen>
#include <QWidget>

namespace opevo::ui {

namespace {

QSize fitted(const QWidget* window, QSize wanted) {
  const QScreen* screen = window->screen();
  if (!screen) return wanted;
  // The window manager's frame and title bar come on top of the size given here.
  const QSize room = screen->availableSize() - QSize(16, 40);
  return wanted.boundedTo(room.expandedTo(QSize(320, 240)));
}

}  // namespace

void resizeToFit(QWidget* window, QSize wanted) {
  window->resize(fitted(window, wanted));
}

void setMinimumToFit(QWidget* window, QSize wanted) {
  window->setMinimumSize(fitted(window, wanted));
}

}  // namespace opevo::ui
