#pragma once

#include <QSize>

class QWidget;

namespace opevo::ui {

// Resizes a top-level window or dialog to `wanted`, or to what its screen has room for when that
// is less (a small screen, or a large scale factor: 1600x1000 at 200% leaves 800x500). A window
// larger than the screen hides its buttons past the edge, where nothing can scroll to them.
void resizeToFit(QWidget* window, QSize wanted);

// Gives a top-level window the minimum size `wanted`, or what its screen has room for when that is
// less: below its minimum a window's pages are crushed, and above the screen's room its edge, and
// the buttons there, are out of reach.
void setMinimumToFit(QWidget* window, QSize wanted);

}  // namespace opevo::ui
