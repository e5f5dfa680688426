#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cpu/operator_buffers.h"
#include "net/end_to_end.h"

namespace opevo::net {
namespace {

TEST(NetworkError, IsTheKernelMeasureForOutputsOfUnitScale) {
  const std::vector<float> ref{0.5f, -0.25f, 0.0f, 1.0f};
  const std::vector<float> out{0.5f, -0.2501f, 0.0002f, 1.0f};
  EXPECT_DOUBLE_EQ(maxNetworkError(out, ref), maxRelativeError(out, ref));
}

// ResNet-50's random-weight outputs: an RMS in the thousands, one element near zero carrying the
// rounding of the large terms it was summed from. The kernel measure fails that correct run; the
// network measure holds it against the output's scale, and still fails an error of that scale.
TEST(NetworkError, MeasuresElementsNearZeroAgainstTheOutputsScale) {
  std::vector<float> ref(1000, 8000.0f), out(1000, 8000.0f);
  ref[7] = -8.4502f;
  out[7] = -8.4414f;
  EXPECT_GT(maxRelativeError(out, ref), kVerifyTolerance / 2);
  EXPECT_LT(maxNetworkError(out, ref), 1e-5);
  out[7] = 30.0f;  // a wrong value, off by 0.5% of the scale
  EXPECT_GT(maxNetworkError(out, ref), kVerifyTolerance);
}

TEST(NetworkError, NanAndMismatchedSizesAreTheWorst) {
  const std::vector<float> ref{1.0f, 2.0f};
  EXPECT_EQ(maxNetworkError({1.0f, NAN}, ref), INFINITY);
  EXPECT_EQ(maxNetworkError({1.0f}, ref), INFINITY);
}

}  // namespace
}  // namespace opevo::net
