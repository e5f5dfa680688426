#include "common/size_limits.h"

#include <cstdio>

namespace opevo {

std::string tensorTooLarge(double elements) {
  if (elements <= kMaxTensorElements) return "";
  char text[160];
  std::snprintf(text, sizeof text,
                "holds %.3g elements (%.0f GiB of fp32), more than the 2^32 (16 GiB) one tensor "
                "may hold",
                elements, elements * 4 / 1073741824.0);
  return text;
}

}  // namespace opevo
