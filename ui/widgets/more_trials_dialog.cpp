#include "ui/widgets/more_trials_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QStringList>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>
#include <limits>
#include <set>
#include <utility>

#include "engine/budget.h"
#include "engine/run_status.h"
#include "io/run_import.h"
#include "ui/controller/engine_controller.h"
#include "ui/controller/race_types.h"
#include "ui/controller/resumed_race.h"
#include "ui/widgets/message_label.h"

namespace opevo::ui {

namespace {

// Wide enough that a replay's device (its file and GPU) takes two lines, not five.
constexpr int kWidth = 460;

// A total as large as the spin box takes: far above any budget a run is given.
constexpr int kMostTrials = 100'000'000;

QString idsOf(const std::vector<MoreTrialsDialog::Run>& runs) {
  QStringList ids;
  for (const auto& r : runs) ids << QString::number(r.run.id);
  return ids.join(QStringLiteral(", "));
}

// "Run 12, opevo on RTX 2080 Ti: finished (trials), 60 trials", or the race's runs together.
QString whatText(const std::vector<MoreTrialsDialog::Run>& runs, int spent) {
  const RunRecord& first = runs.front().run;
  if (runs.size() == 1)
    return QObject::tr("Run %1, %2 on %3: %4, %n trials.", nullptr, spent)
        .arg(first.id)
        .arg(QString::fromStdString(measuredBy(first)), QString::fromStdString(first.device),
             QString::fromStdString(runStatusText(first)));
  std::set<std::string> seen;
  QStringList algorithms;
  for (const auto& r : runs)
    if (seen.insert(measuredBy(r.run)).second)
      algorithms << QString::fromStdString(measuredBy(r.run));
  return QObject::tr("Runs %1 of one race, %2 on %3: finished, at most %n trials each.", nullptr,
                     spent)
      .arg(idsOf(runs), algorithms.join(QStringLiteral(", ")),
           QString::fromStdString(first.device));
}

}  // namespace

MoreTrialsDialog::MoreTrialsDialog(std::vector<Run> runs, QWidget* parent)
    : QDialog(parent),
      m_runs(std::move(runs)),
      m_total(new QSpinBox(this)),
      m_continue(new QPushButton(this)),
      m_cancel(new QPushButton(tr("Cancel"), this)),
      m_error(makeMessageLabel(QStringLiteral("moreTrialsError"), MessageKind::Error, this)) {
  setObjectName(QStringLiteral("moreTrialsDialog"));
  setWindowTitle(tr("More trials"));
  for (const Run& r : m_runs)
    if (r.trials >= m_spent) {
      m_spent = r.trials;
      m_mostSpent = r.run.id;
    }
  const bool several = m_runs.size() > 1;
  auto* what = new QLabel(whatText(m_runs, m_spent), this);
  what->setObjectName(QStringLiteral("moreTrialsRuns"));
  what->setWordWrap(true);
  m_total->setObjectName(QStringLiteral("moreTrialsTotal"));
  m_total->setRange(1, kMostTrials);
  m_total->setGroupSeparatorShown(true);
  // Twice what it has: a step that shows on the curve, and well above what it spent.
  m_total->setValue(static_cast<int>(std::min<long long>(
      kMostTrials, std::max<long long>(2LL * m_spent, static_cast<long long>(m_spent) + 1))));
  m_total->setToolTip(tr("The run's new budget: its stored trials count towards it"));
  auto* form = new QFormLayout;
  form->addRow(several ? tr("New total of trials, each:") : tr("New total of trials:"), m_total);
  // The command on a line of its own: wrapped, Qt broke it after a hyphen ("--" / "trials N").
  auto* how = new QLabel(
      several ? tr("They go on together as their race, on the Runs page, each from its stored "
                   "trials with its own algorithm, settings and seed, in the same runs: no stored "
                   "trial is measured again.")
              : tr("It goes on from its stored trials on the Runs page, with its own algorithm, "
                   "settings and seed, in the same run: no stored trial is measured again. On "
                   "the command line:<br><tt>opevo tune --resume %1 --trials N</tt>")
                    .arg(m_runs.front().run.id),
      this);
  how->setWordWrap(true);
  // A run whose tuner had nothing left to try may end at once: said, or More trials reads broken.
  QStringList spentSpaces;
  for (const Run& r : m_runs)
    if (r.run.endReason == EndReason::Exhausted) spentSpaces << QString::number(r.run.id);
  QLabel* exhausted = makeMessageLabel(QStringLiteral("moreTrialsNote"), MessageKind::Note, this);
  if (!spentSpaces.isEmpty())
    showMessage(exhausted,
                (spentSpaces.size() == 1
                     ? tr("Run %1 ended because its tuner found no new configuration to try: it "
                          "may end again at once.")
                     : tr("Runs %1 ended because their tuners found no new configuration to try: "
                          "they may end again at once."))
                    .arg(spentSpaces.join(QStringLiteral(", "))));
  m_continue->setObjectName(QStringLiteral("moreTrialsContinue"));
  m_continue->setText(several ? tr("Continue %n runs", nullptr, static_cast<int>(m_runs.size()))
                              : tr("Continue run"));
  m_continue->setDefault(true);
  auto* buttons = new QDialogButtonBox(this);
  buttons->addButton(m_continue, QDialogButtonBox::AcceptRole);
  buttons->addButton(m_cancel, QDialogButtonBox::RejectRole);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(what);
  layout->addLayout(form);
  layout->addWidget(how);
  layout->addWidget(exhausted);
  layout->addWidget(m_error);
  layout->addWidget(buttons);
  // Continue does not close the dialog: it closes once the engine has taken the runs, and stays
  // open with what was typed when it refuses them.
  connect(buttons, &QDialogButtonBox::accepted, this, &MoreTrialsDialog::extend);
  connect(buttons, &QDialogButtonBox::rejected, this, &MoreTrialsDialog::reject);
  connect(m_total, &QSpinBox::valueChanged, this, &MoreTrialsDialog::checkTotal);
  setMinimumWidth(kWidth);
  checkTotal();
  m_total->selectAll();
  m_total->setFocus();
}

MoreTrialsDialog::~MoreTrialsDialog() = default;

void MoreTrialsDialog::setEngine(EngineController* engine) {
  if (m_engine) disconnect(m_engine, nullptr, this, nullptr);
  m_engine = engine;
  if (!engine) return;
  connect(engine, &EngineController::updated, this, [this](const EngineUpdatePtr& update) {
    if (update->runsInHand()) answered(false, QString());
  });
  connect(engine, &EngineController::finished, this, [this](const RaceOutcome& outcome) {
    answered(outcome.end == RaceOutcome::End::Refused,
             outcome.end == RaceOutcome::End::Refused || outcome.end == RaceOutcome::End::Failed
                 ? outcome.message
                 : QString());
  });
}

QSize MoreTrialsDialog::sizeHint() const {
  // The wrapped texts' heights are taken at the hint's width (QWidget::adjustSize): at their own
  // narrower one they asked for more lines than the dialog then showed, and the spare height
  // opened gaps between them.
  return QDialog::sizeHint().expandedTo(QSize(kWidth, 0));
}

QString MoreTrialsDialog::message() const {
  return m_error->isHidden() ? QString() : m_error->text();
}

void MoreTrialsDialog::say(const QString& text) {
  if (text == message()) return;  // each keystroke checks the total again
  showMessage(m_error, text);
  // A top-level window does not grow for a wrapped label's height by itself: the message was
  // squeezed into two clipped lines over the text above it.
  adjustSize();
}

void MoreTrialsDialog::checkTotal() {
  // The engine checks it too (resumeStoredRace); said here as it is typed, in the same words.
  const bool spentAlready = m_total->value() <= m_spent;
  m_continue->setEnabled(!spentAlready && !m_waiting);
  if (spentAlready)
    say((m_runs.size() > 1
             ? tr("Run %1 has %2 trials already (the most of these runs): the new total "
                  "counts them, so give more than %2.")
             : tr("Run %1 has %2 trials already: the new total counts them, so give more "
                  "than %2."))
            .arg(m_mostSpent)
            .arg(m_spent));
  else
    say(QString());
}

void MoreTrialsDialog::setWorking(bool working) {
  m_total->setReadOnly(working);
  m_cancel->setEnabled(!working);
  m_continue->setEnabled(!working && m_total->value() > m_spent);
}

void MoreTrialsDialog::extend() {
  if (m_waiting || m_total->value() <= m_spent) return;
  // Refused before anything is asked: the resume would be refused by the busy engine.
  if (m_engine && m_engine->busy()) {
    say(m_runs.size() > 1 ? tr("A race is running on the Runs page: stop it or wait for its end, "
                               "then continue these runs.")
                          : tr("A race is running on the Runs page: stop it or wait for its end, "
                               "then continue run %1.")
                                .arg(m_runs.front().run.id));
    return;
  }
  say(QString());
  std::vector<RunRecord> records;
  for (const Run& r : m_runs) records.push_back(r.run);
  Budget total;
  total.trials = m_total->value();
  m_waiting = true;
  setWorking(true);
  emit goOn(goingOnTo(std::move(records), total));
  // Whoever resumes them started the window's engine (it was idle): its answer comes. Else there
  // is none to wait for: a page on its own, or a resume the Runs page refused (it says why).
  if (!m_engine || !m_engine->busy()) answered(false, QString());
}

void MoreTrialsDialog::answered(bool refused, const QString& why) {
  if (!m_waiting) return;
  m_waiting = false;
  setWorking(false);
  if (why.isEmpty()) {
    accept();
    return;
  }
  QString text = why;
  text[0] = text[0].toUpper();
  if (!text.endsWith(QLatin1Char('.'))) text += QLatin1Char('.');
  // A refusal comes before the runs are changed (resumeStoredRace: all or none).
  say(refused ? tr("%1 Nothing was changed.").arg(text) : text);
}

void MoreTrialsDialog::reject() {
  if (m_waiting) return;
  QDialog::reject();
}

}  // namespace opevo::ui
