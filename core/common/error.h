#pragma once

#include <stdexcept>
#include <string>

namespace opevo {

// A user's bad input: a malformed spec, file or flag. Front ends print what() on one line and
// exit with status 2; nothing already stored is touched when one is thrown.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// The machine refused what a command needs (a disk with no room left, a folder it may not write):
// neither the user's input nor a bug. Front ends print what() as it is and exit with status 1.
class SystemError : public std::runtime_error {
 public:
  explicit SystemError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace opevo
