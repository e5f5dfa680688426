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
  // For a step that can end early: the first signal sets `stop` and prints `first` (what happens
  // now); a second one ends the program as above.
  InterruptNotice(const std::string& message, std::atomic<bool>& stop, const std::string& first);
  ~InterruptNotice();
  InterruptNotice(const InterruptNotice&) = delete;
  InterruptNotice& operator=(const InterruptNotice&) = delete;
};

// A step the user interrupted after what it had done was reported: main prints the message and
// exits with status 130, as the shell does for Ctrl-C.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace opevo::cli
