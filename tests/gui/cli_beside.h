#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

namespace opevo::ui::test {

// The opevo CLI (OPEVO_CLI, built with the tests) as a user runs it beside the window, on the
// window's database: what a test reads back from it.
struct CliRun {
  int exitCode = -1;  // -1: it crashed or did not finish in time
  QString out;        // standard output
  QString err;        // standard error
};

inline CliRun runCli(const QStringList& args, int timeoutMs = 240000) {
  QProcess cli;
  cli.start(QStringLiteral(OPEVO_CLI), args);
  const bool finished = cli.waitForFinished(timeoutMs);
  CliRun run;
  if (finished && cli.exitStatus() == QProcess::NormalExit) run.exitCode = cli.exitCode();
  run.out = QString::fromLocal8Bit(cli.readAllStandardOutput());
  run.err = QString::fromLocal8Bit(cli.readAllStandardError());
  // Why it did not finish or crashed, after what it wrote.
  if (!finished || cli.exitStatus() != QProcess::NormalExit)
    run.err += QStringLiteral("\n") + cli.errorString();
  return run;
}

}  // namespace opevo::ui::test
