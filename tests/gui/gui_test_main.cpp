#include <gtest/gtest.h>

#include <QApplication>
#include <QTemporaryDir>

int main(int argc, char** argv) {
  // gtest_discover_tests lists the tests at build time, where there is no display and no
  // QT_QPA_PLATFORM; offscreen unless the caller chose a platform (xcb to watch the tests).
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  // The window records races in the user's data folder, keeps its layout in the config folder and
  // built kernels in the cache: tests get folders of their own, so they neither read nor touch
  // the developer's. A kernel cache left warm by an earlier run would make trials instant and a
  // race end before a test can stop it.
  QTemporaryDir home;
  qputenv("XDG_DATA_HOME", (home.path() + QStringLiteral("/data")).toLocal8Bit());
  qputenv("XDG_CONFIG_HOME", (home.path() + QStringLiteral("/config")).toLocal8Bit());
  qputenv("XDG_CACHE_HOME", (home.path() + QStringLiteral("/cache")).toLocal8Bit());
  ::testing::InitGoogleTest(&argc, argv);
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("opevo-tests"));
  QApplication::setApplicationName(QStringLiteral("OpEvo Studio tests"));
  return RUN_ALL_TESTS();
}
