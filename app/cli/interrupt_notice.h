#pragma once

#include <string>

namespace opevo::cli {

// For the stretch after tuning (reference timing, the end-to-end run), where stopping cleanly is
// not possible mid-step but nothing measured can be lost: Ctrl-C or SIGTERM prints `message`
// (what is stored and how to go on) and exits with status 130 at once, where the default action
// ended the program without a word.
class InterruptNotice {
 public:
  explicit InterruptNotice(const std::string& message);
  ~InterruptNotice();
  InterruptNotice(const InterruptNotice&) = delete;
  InterruptNotice& operator=(const InterruptNotice&) = delete;
};

}  // namespace opevo::cli
