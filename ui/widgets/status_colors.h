#pragma once

#include <QColor>

namespace opevo::ui {

// The colours the tables give a row's state, in one place. Each reads on the application's
// palette: the dark red of a light theme is nearly invisible on a dark one, so a dark base gets a
// lighter shade of the same hue.
enum class StatusColor {
  Error,            // refused, failed, wrong
  Warning,          // done, but not as it should have (a diverged training, a run cut off)
  Good,             // working now
  Muted,            // gone (an agent whose heartbeat expired)
  ErrorBackground,  // behind a cell whose value is refused
};
QColor statusColor(StatusColor kind);

}  // namespace opevo::ui
