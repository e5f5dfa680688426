#pragma once

#include <QDialog>
#include <QPointer>
#include <QString>
#include <vector>

#include "store/records.h"

class QLabel;
class QPushButton;
class QSpinBox;

namespace opevo::ui {

class EngineController;

// History's More trials…: finished runs given a new total of trials, as `opevo tune --resume N
// --trials M` gives one. The total is checked as it is typed (above what every run has spent);
// Continue hands the runs to the window's resume with it (goOn), and the engine stores it once it
// holds the runs, checking it again (resumeStoredRace). The dialog stays until the engine has the
// runs in hand, then closes; a refusal (the run held by another program, a total it spent) is
// said here, in the window's words, and what was typed stays.
class MoreTrialsDialog : public QDialog {
  Q_OBJECT

 public:
  struct Run {
    RunRecord run;
    int trials = 0;  // stored trials: what the run has spent
  };

  // Finished runs, one or several of one race (the page checks which).
  explicit MoreTrialsDialog(std::vector<Run> runs, QWidget* parent = nullptr);
  ~MoreTrialsDialog() override;

  // The window's engine, which resumes the runs: while it runs a race Continue is refused before
  // anything is asked of it; after Continue the dialog waits for its answer. None (a page on its
  // own): the dialog closes once it has handed the runs on.
  void setEngine(EngineController* engine);

  QSpinBox* totalBox() const { return m_total; }
  QPushButton* continueButton() const { return m_continue; }
  // The most trials any of the runs has: the total must be above it.
  int spent() const { return m_spent; }
  // Why the total typed cannot be taken, or why the resume refused it; empty when none.
  QString message() const;
  // Continue pressed, the engine's answer not in yet.
  bool busy() const { return m_waiting; }
  QSize sizeHint() const override;
  // Continue: checks, then hands the runs on to go on to the total typed.
  void extend();
  // Not while the engine takes the runs: what it answers is said here.
  void reject() override;

 signals:
  // The runs to go on, each record carrying the new total as its budget (goingOnTo), still stored
  // finished: resume them (RunsPage::resumeRun, resumeRace).
  void goOn(const std::vector<opevo::RunRecord>& runs);

 private:
  // Says why the total typed is refused (and turns Continue off), or nothing.
  void checkTotal();
  // Shows the message (or hides it, given none), the dialog fitted to it.
  void say(const QString& text);
  void setWorking(bool working);
  // The engine's answer to the resume: the runs in hand (they go on: the dialog closes), or a
  // refusal or failure before that (said here; empty when it ended otherwise).
  void answered(bool refused, const QString& why);

  std::vector<Run> m_runs;
  int m_spent = 0;
  std::int64_t m_mostSpent = 0;  // the run that has spent m_spent
  QSpinBox* m_total;
  QPushButton* m_continue;
  QPushButton* m_cancel;
  QLabel* m_error;
  QPointer<EngineController> m_engine;
  bool m_waiting = false;
};

}  // namespace opevo::ui
