#pragma once

#include <QDialog>
#include <QString>
#include <functional>
#include <vector>

#include "store/records.h"
#include "ui/jobs/latest_job.h"

class QLabel;
class QPushButton;
class QSpinBox;

namespace opevo::ui {

// History's More trials…: finished runs given a new total of trials, as `opevo tune --resume N
// --trials M` gives one. The total is checked as it is typed (above what every run has spent),
// then the store is changed off the GUI thread (extendStoredRuns, which checks it again as the
// command line does); a refusal is said here and what was typed stays. Once the runs are ready
// to go on the dialog closes and says so with `extended`, for the window to resume them.
class MoreTrialsDialog : public QDialog {
  Q_OBJECT

 public:
  struct Run {
    RunRecord run;
    int trials = 0;  // stored trials: what the run has spent
  };
  // What the background step hands back (defined where it is made).
  struct Extension;

  // Finished runs, one or several of one race (the page checks which).
  MoreTrialsDialog(const QString& storePath, std::vector<Run> runs, QWidget* parent = nullptr);
  ~MoreTrialsDialog() override;

  // Why the runs cannot go on now (a race running in the window), asked when Continue is pressed,
  // before anything is stored; empty: they can.
  void setGoOnCheck(std::function<QString()> check) { m_goOnCheck = std::move(check); }

  QSpinBox* totalBox() const { return m_total; }
  QPushButton* continueButton() const { return m_continue; }
  // The most trials any of the runs has: the total must be above it.
  int spent() const { return m_spent; }
  // Why the total typed cannot be taken, or why the store refused it; empty when none.
  QString message() const;
  bool busy() const { return m_job.busy(); }
  QSize sizeHint() const override;
  // Continue: checks, then gives the runs the total typed.
  void extend();
  // Not while the store is being changed: the runs it marks would go on with no one to resume
  // them (they would read interrupted).
  void reject() override;

 signals:
  // The runs as now stored (their new budget), ready to go on: resume them.
  void extended(const std::vector<opevo::RunRecord>& runs);

 private:
  // Says why the total typed is refused (and turns Continue off), or nothing.
  void checkTotal();
  // Shows the message (or hides it, given none), the dialog fitted to it.
  void say(const QString& text);
  void setWorking(bool working);

  QString m_storePath;
  std::vector<Run> m_runs;
  int m_spent = 0;
  std::int64_t m_mostSpent = 0;  // the run that has spent m_spent
  QSpinBox* m_total;
  QPushButton* m_continue;
  QPushButton* m_cancel;
  QLabel* m_error;
  std::function<QString()> m_goOnCheck;
  LatestJob<Extension> m_job;
};

}  // namespace opevo::ui
