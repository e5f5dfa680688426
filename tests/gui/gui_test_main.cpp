#include <gtest/gtest.h>

#include <QApplication>

int main(int argc, char** argv) {
  // gtest_discover_tests lists the tests at build time, where there is no display and no
  // QT_QPA_PLATFORM; offscreen unless the caller chose a platform (xcb to watch the tests).
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  ::testing::InitGoogleTest(&argc, argv);
  QApplication app(argc, argv);
  return RUN_ALL_TESTS();
}
