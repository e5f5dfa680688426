#pragma once

namespace opevo::ui {

// The calling thread (an engine or network thread, and the OpenMP threads XGBoost starts from it,
// which inherit its niceness) yields the CPU to the GUI thread: on a two-core machine a busy model
// fit otherwise starves the window for a few hundred milliseconds. Linux's nice is per thread;
// elsewhere this does nothing.
void lowerEnginePriority();

}  // namespace opevo::ui
