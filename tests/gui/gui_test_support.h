#pragma once

#include <QAbstractItemModel>
#include <QElapsedTimer>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QtGlobal>
#include <algorithm>
#include <functional>

namespace opevo::ui::test {

// Points the user's data, config and cache folders (XDG_*) into home, for this process and the
// programs it starts: the window records races in the data folder, keeps its layout in the
// config folder and built kernels in the cache, and a test or benchmark must neither read nor
// touch the developer's (a warm kernel cache makes trials instant). Call before the first window.
inline void useFoldersIn(const QTemporaryDir& home) {
  qputenv("XDG_DATA_HOME", (home.path() + QStringLiteral("/data")).toLocal8Bit());
  qputenv("XDG_CONFIG_HOME", (home.path() + QStringLiteral("/config")).toLocal8Bit());
  qputenv("XDG_CACHE_HOME", (home.path() + QStringLiteral("/cache")).toLocal8Bit());
}

// Spins the event loop until pred holds or the time is up; QTRY_* report to QTest, not GTest.
inline bool waitUntil(const std::function<bool()>& pred, int timeoutMs = 10000) {
  QElapsedTimer timer;
  timer.start();
  while (!pred()) {
    if (timer.elapsed() > timeoutMs) return false;
    QTest::qWait(10);
  }
  return true;
}

// Measures how long the GUI thread goes without running its event loop: a 5 ms precise timer
// records the largest gap between two of its ticks while alive. A gap well above 5 ms is time
// in which the window could not repaint or answer a click.
class StallProbe {
 public:
  StallProbe() {
    m_timer.setTimerType(Qt::PreciseTimer);
    QObject::connect(&m_timer, &QTimer::timeout, [this] {
      const qint64 now = m_clock.elapsed();
      m_longest = std::max(m_longest, now - m_last);
      m_last = now;
    });
    m_clock.start();
    m_timer.start(5);
  }
  qint64 longestMs() const { return m_longest; }

 private:
  QElapsedTimer m_clock;
  QTimer m_timer;
  qint64 m_last = 0;
  qint64 m_longest = 0;
};

// Collects what QAbstractItemModelTester (Warning mode) reports while alive: one warning in the
// qt.modeltest category per broken model rule; a test expects none. Other warnings (the offscreen
// platform's "does not support propagateSizeHints") pass through to the previous handler.
class ModelTestFailures {
 public:
  ModelTestFailures() {
    s_messages.clear();
    s_previous = qInstallMessageHandler(&ModelTestFailures::handle);
  }
  ~ModelTestFailures() { qInstallMessageHandler(s_previous); }
  ModelTestFailures(const ModelTestFailures&) = delete;
  ModelTestFailures& operator=(const ModelTestFailures&) = delete;

  const QStringList& messages() const { return s_messages; }

 private:
  static void handle(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (context.category && qstrcmp(context.category, "qt.modeltest") == 0 && type != QtDebugMsg)
      s_messages << message;
    else if (s_previous)
      s_previous(type, context, message);
  }
  static inline QStringList s_messages;
  static inline QtMessageHandler s_previous = nullptr;
};

// Probability column as numbers, in the table's row order.
inline std::vector<double> column(const QAbstractItemModel& model, int column, int role) {
  std::vector<double> values;
  for (int r = 0; r < model.rowCount(); ++r)
    values.push_back(model.data(model.index(r, column), role).toDouble());
  return values;
}

}  // namespace opevo::ui::test
