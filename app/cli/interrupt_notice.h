#pragma once

#include <atomic>
#include <stdexcept>
#include <string>

namespace opevo::cli {

// For the stretch after tuning (reference timing, the side-by-side timing, the end-to-end run),
// where nothing measured can be lost: Ctrl-C or SIGTERM prints `message` (what is stored and how
// to go on) and exits with status 130 at once, where the default action ended the program without
// a word.
class InterruptNotice {
 public:
  explicit InterruptNotice(const std::string& message);
  ~InterruptNotice();
  InterruptNotice(const InterruptNotice&) = delete;
  InterruptNotice& operator=(const InterruptNotice&) = delete;

  // For the next step, with no moment where a signal would take the default action. With `stop`
  // (a step that can end early, which must outlive this notice), the first signal sets it and
  // prints `first` (what happens now); a second one ends the program with `message`.
  void rearm(const std::string& message, std::atomic<bool>* stop = nullptr,
             const std::string& first = {});
};

// A step the user interrupted after what it had done was reported: main prints the message and
// exits with status 130, as the shell does for Ctrl-C.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace opevo::cli
