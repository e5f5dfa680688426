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

}  // namespace opevo
