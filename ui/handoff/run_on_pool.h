#pragma once

#include <functional>

namespace opevo::ui {

// Runs `work` on Qt's global thread pool. The work and everything it captured travel to the
// pool thread through a queue under a std::mutex, not inside a runnable that Qt queues: Qt's pool
// synchronises with futexes inside libQt6Core, which a ThreadSanitizer build cannot see when Qt
// itself is not instrumented (Debian's is not), so it would report every hand-over as a race.
// The runnable Qt queues carries no data at all.
void runOnPool(std::function<void()> work);

}  // namespace opevo::ui
