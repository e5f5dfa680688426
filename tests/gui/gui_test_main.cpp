#include <gtest/gtest.h>

#include <QApplication>
#include <QTemporaryDir>

#include "gui_test_support.h"

int main(int argc, char** argv) {
  // gtest_discover_tests lists the tests at build time, where there is no display and no
  // QT_QPA_PLATFORM; offscreen unless the caller chose a platform (xcb to watch the tests).
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  // A developer's own database (opevo-studio --db's variable) must not stand in for the tests'.
  qunsetenv("OPEVO_DB");
  // Folders of their own: a kernel cache left warm by an earlier run would make trials instant and
  // a race end before a test can stop it.
  QTemporaryDir home;
  opevo::ui::test::useFoldersIn(home);
  ::testing::InitGoogleTest(&argc, argv);
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("opevo-tests"));
  QApplication::setApplicationName(QStringLiteral("OpEvo Studio tests"));
  return RUN_ALL_TESTS();
}
