#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace opevo {

// The largest sizes an operator or a network may ask for. A dimension, a field such as a
// kernel's size or padding, lands in the generated kernels as a 32-bit `int` constant; a tensor
// is allocated whole on the host and the device, so one past 16 GiB of fp32 is refused before any
// allocation rather than failing every trial with std::bad_alloc (or, overflowing int64, passing
// for a small one).
inline constexpr std::int64_t kMaxDimension = 2147483647;   // INT32_MAX
inline constexpr double kMaxTensorElements = 4294967296.0;  // 2^32: 16 GiB of fp32

// The product of `dims` in double, exact enough to compare with the limit and never wrapping.
inline double elementCount(const std::vector<std::int64_t>& dims) {
  double n = 1;
  for (std::int64_t d : dims) n *= double(d);
  return n;
}

// Why a tensor of `elements` is refused ("" when it is not): "holds 1.0e+12 elements (3,725 GiB
// of fp32), more than the 2^32 (16 GiB) one tensor may hold".
std::string tensorTooLarge(double elements);

}  // namespace opevo
