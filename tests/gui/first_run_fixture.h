// A window as a new user first sees it, for the tests of what new users found walking it: on a
// database of its own and an empty operators folder.
#pragma once

#include <gtest/gtest.h>

#include <QComboBox>
#include <QTemporaryDir>
#include <memory>
#include <string>

#include "gui_test_support.h"
#include "ui/main_window.h"
#include "ui/pages/history_page.h"
#include "ui/pages/topology_page.h"

namespace opevo::ui::test {

// A window on a database of its own (empty unless a test stores runs in it first) and an empty
// operators folder, at the size of a 1024x700 screen.
class FirstRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    m_db = m_dir.filePath(QStringLiteral("runs.db"));
    qputenv("OPEVO_DB", m_db.toLocal8Bit());
    qputenv("OPEVO_OPERATORS_DIR", m_dir.filePath(QStringLiteral("operators")).toLocal8Bit());
  }
  void TearDown() override {
    m_window.reset();
    qunsetenv("OPEVO_DB");
    qunsetenv("OPEVO_OPERATORS_DIR");
  }
  void open(QSize size = {1024, 700}) {
    m_window = std::make_unique<MainWindow>();
    m_window->resize(size);
    m_window->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(m_window.get()));
  }
  // History has read the store (the first-run note follows what it found).
  bool historyRead() {
    return waitUntil([&] { return !m_window->historyPage()->busy(); }) && (QTest::qWait(50), true);
  }
  bool topologySettled() {
    return waitUntil([&] { return !m_window->topologyPage()->busy(); }, 60000);
  }
  template <typename T>
  T* child(const char* name) {
    return m_window->findChild<T*>(QString::fromLatin1(name));
  }
  // As std::string: a failed comparison then prints the text.
  std::string topologyOperator() {
    return child<QComboBox>("topologyOperator")->currentText().toStdString();
  }
  std::string topologyParameter() {
    return child<QComboBox>("topologyParam")->currentText().toStdString();
  }

  QTemporaryDir m_dir;
  QString m_db;
  std::unique_ptr<MainWindow> m_window;
};

}  // namespace opevo::ui::test
