#include "net/ms_text.h"

#include <cmath>
#include <cstdio>

namespace opevo::net {

std::string msText(double ms) {
  char text[32];
  std::snprintf(text, sizeof text,
                ms != 0 && std::fabs(ms) < kSignificantDigitsBelowMs ? "%.3g" : "%.3f", ms);
  return text;
}

}  // namespace opevo::net
