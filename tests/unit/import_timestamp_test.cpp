// What `opevo import` makes of a file's timestamps.
#include <gtest/gtest.h>

#include "io/run_import.h"

namespace opevo {
namespace {

// T4 and Kernel Tuner write "2023-12-22 09:54:05.502007+00:00"; the store and the window read
// "2023-12-22T09:54:05.502Z".
TEST(ImportTimestamp, ImportedTimestampsTakeTheStoresForm) {
  EXPECT_EQ(utcTimestamp("2023-12-22 09:54:05.502007+00:00"), "2023-12-22T09:54:05.502Z");
  EXPECT_EQ(utcTimestamp("2026-11-27T21:55:20.322Z"), "2026-11-27T21:55:20.322Z");
  EXPECT_EQ(utcTimestamp("2023-12-22T01:30:00+02:00"), "2023-12-21T23:30:00.000Z");
  EXPECT_EQ(utcTimestamp("2023-12-22 09:54:05"), "2023-12-22T09:54:05.000Z");
  EXPECT_EQ(utcTimestamp("yesterday"), "yesterday");
  EXPECT_EQ(utcTimestamp(""), "");
}

}  // namespace
}  // namespace opevo
