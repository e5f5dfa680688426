// How the command line writes speeds: four significant digits, no exponent for large figures.
#include "engine/speed_unit.h"

#include <gtest/gtest.h>

namespace opevo {
namespace {

TEST(SpeedNumber, FourDigitsAndNoExponentForLargeSpeeds) {
  EXPECT_EQ(speedNumber(10084.4), "10084");  // %.4g wrote 1.008e+04
  EXPECT_EQ(speedNumber(1234567), "1234567");
  EXPECT_EQ(speedNumber(9999.4), "9999");
  EXPECT_EQ(speedNumber(9999.6), "10000");  // %.4g rounds it up to "1e+04"
  EXPECT_EQ(speedNumber(10084.4, 6), "10084.4");
  EXPECT_EQ(speedNumber(245.31), "245.3");
  EXPECT_EQ(speedNumber(3.14159), "3.142");
  EXPECT_EQ(speedNumber(0.012345), "0.01235");
  EXPECT_EQ(speedNumber(0), "0");
}

TEST(SpeedUnit, OnePerBackendAndFlopRates) {
  EXPECT_EQ(deviceSpeedUnit("cpu"), "GFLOP/s");
  EXPECT_EQ(deviceSpeedUnit("cuda"), "TFLOPS");
  EXPECT_DOUBLE_EQ(speedIn("GFLOP/s", 2e9, 1000), 2.0);
  EXPECT_DOUBLE_EQ(flopsPerSecondIn("GB/s"), 0);
}

}  // namespace
}  // namespace opevo
