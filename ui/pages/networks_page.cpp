#include "ui/pages/networks_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QGraphicsOpacityEffect>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <nlohmann/json.hpp>

#include "common/machine_load.h"
#include "net/chain_choice.h"
#include "net/ms_text.h"
#include "net/network_json.h"
#include "net/tuning_budget.h"
#include "store/store.h"
#include "ui/charts/network_curve_chart.h"
#include "ui/charts/network_graph_view.h"
#include "ui/charts/task_trials_chart.h"
#include "ui/controller/network_controller.h"
#include "ui/jobs/network_layout.h"
#include "ui/models/network_task_model.h"
#include "ui/widgets/message_label.h"
#include "ui/widgets/network_setup_panel.h"
#include "ui/widgets/pair_or_tabs.h"

namespace opevo::ui {
namespace {

// A latency as `opevo net` prints it (net/ms_text.h), without the unit.
QString ms(double value) {
  return QString::fromStdString(net::msText(value));
}

// What a finished contender measured after its tuning, for the status line (empty: nothing).
QString finishedLine(const ContenderState& c) {
  if (!c.endToEndError.isEmpty())
    return NetworksPage::tr("%1: tuned and stored, but its end-to-end run on the device failed: %2")
        .arg(c.label, c.endToEndError);
  // Without libtorch nothing was checked, and nothing found wrong: resultLines says why once
  // (each of six contenders read "(NOT verified)", as if its output were wrong).
  if (std::isfinite(c.endToEndMs) && !c.checked)
    return NetworksPage::tr("%1: %2 ms end to end").arg(c.label).arg(ms(c.endToEndMs));
  if (std::isfinite(c.endToEndMs) && c.device.isEmpty())
    return NetworksPage::tr("%1: %2 ms end to end (%3)")
        .arg(c.label)
        .arg(ms(c.endToEndMs))
        .arg(c.verified ? NetworksPage::tr("verified against libtorch")
                        : NetworksPage::tr("output DIFFERS from libtorch's"));
  if (std::isfinite(c.endToEndMs)) {
    // Checked on the device against the same network on each task's plain reference kernel.
    QString line =
        NetworksPage::tr("%1: %2 ms end to end on %3 (%4)")
            .arg(c.label)
            .arg(ms(c.endToEndMs))
            .arg(c.device)
            .arg(c.verified ? NetworksPage::tr("matches its plain reference kernels")
                            : NetworksPage::tr("DIFFERS from its plain reference kernels"));
    if (std::isfinite(c.libraryNetworkMs) && c.libraryNetworkMs > 0)
      line += NetworksPage::tr(", %1x the libraries' network")
                  .arg(c.endToEndMs / c.libraryNetworkMs, 0, 'f', 2);
    return line;
  }
  // Not run end to end (hip): the tasks' sum against their libraries', as `opevo net tune` prints.
  if (std::isfinite(c.sumOfLibrariesMs) && !c.curveEstimateMs.empty())
    return NetworksPage::tr("%1: weight x best summed over the tasks %2 ms, their libraries %3 ms")
        .arg(c.label)
        .arg(ms(c.curveEstimateMs.back()))
        .arg(ms(c.sumOfLibrariesMs));
  return {};
}

// What ran after a contender's tuned network on this CPU to compare with it, as `opevo net runs
// ID` says it, and the network kept (empty where nothing ran): a network of tuned kernels can
// lose to the untuned one in the chain, through its layouts' conversions.
QString comparisonLine(const ContenderState& c) {
  const net::NetworkComparison& k = c.comparison;
  if (!std::isfinite(c.endToEndMs) || c.endToEndMs <= 0) return {};
  // An output that differs is never kept (net/chain_choice.h); said, as the tuned one's is.
  auto differs = [](const net::StoredEndToEnd& e) {
    return e.referenceMs && !e.verified ? NetworksPage::tr(", output DIFFERS from libtorch's")
                                        : QString();
  };
  QStringList parts;
  // A race runs one untuned network per mode and template set: the contenders after the first
  // say whose it was.
  const QString runBy =
      k.untunedRunBy ? NetworksPage::tr("run %1's, ").arg(k.untunedRunBy) : QString();
  if (const auto& u = k.untuned)
    parts << NetworksPage::tr("untuned %1 ms (%2tuned / untuned %3%4)")
                 .arg(ms(u->ms), runBy)
                 .arg(c.endToEndMs / u->ms, 0, 'f', 2)
                 .arg(differs(*u));
  else if (k.untunedIsTuned)
    parts << NetworksPage::tr("every task's chosen configuration is its untuned one");
  else if (!k.untunedError.empty())
    parts << NetworksPage::tr("untuned not run end to end (%1)")
                 .arg(QString::fromStdString(k.untunedError));
  // The page joins its lines with "; ": the parts of this one take commas.
  const QString untunedTasks = NetworksPage::tr("%1 of %2 tasks untuned")
                                   .arg(k.mixedUntunedTasks.size())
                                   .arg(c.taskTrials.size());
  if (const auto& m = k.mixed)
    parts << NetworksPage::tr("each task's faster of the two %1 ms (%2, %3 of the tuned time%4)")
                 .arg(ms(m->ms), untunedTasks)
                 .arg(m->ms / c.endToEndMs, 0, 'f', 2)
                 .arg(differs(*m));
  else if (!k.mixedError.empty())
    parts << NetworksPage::tr("each task's faster of the two (%1) not run end to end (%2)")
                 .arg(untunedTasks, QString::fromStdString(k.mixedError));
  // The tuned network beside a faster figure above reads as a slip without the rule.
  if (k.kept && k.kept->choice == net::NetworkChoice::Tuned)
    parts << NetworksPage::tr(
                 "kept the tuned network (no other ran over %1% faster; opevo net export %2 "
                 "writes it)")
                 .arg((net::kEndToEndNoise - 1) * 100, 0, 'f', 0)
                 .arg(c.networkId);
  else if (k.kept)
    parts << NetworksPage::tr("kept the %1 network (opevo net export %2 writes it)")
                 .arg(QString::fromUtf8(net::networkChoiceName(k.kept->choice).data()))
                 .arg(c.networkId);
  if (parts.isEmpty()) return {};
  return NetworksPage::tr("%1: %2").arg(c.label, parts.join(QStringLiteral(", ")));
}

}  // namespace

struct NetworksPage::Picture {
  QString text;    // the network text it was made from
  QString source;  // the preset or file it was read from
  net::ParamOverrides params;
  QString description;
  std::vector<NetworkTaskInfo> tasks;
  std::shared_ptr<const NetworkLayout> layout;
  QString error;
  // Whether the preset or file still gives this text (a stored run's file may have changed or
  // stopped reading since), and why not where it does not read.
  bool sourceGivesText = true;
  QString sourceError;
  // requireEveryLayerRead's refusal: a choice is refused, a stored run's network is shown.
  QString unreadError;
};

NetworksPage::NetworksPage(QWidget* parent)
    : QWidget(parent),
      m_setup(new NetworkSetupPanel),
      m_controller(new NetworkController(this)),
      m_graph(new NetworkGraphView),
      m_tasks(new NetworkTaskModel(this)),
      m_table(new QTableView),
      m_curves(new NetworkCurveChart),
      m_trials(new TaskTrialsChart),
      m_contender(new QComboBox),
      m_tunes(new QLabel),
      m_status(new QLabel),
      m_budgetNote(
          makeMessageLabel(QStringLiteral("networkBudgetNote"), MessageKind::Note, nullptr)),
      m_machineNote(
          makeMessageLabel(QStringLiteral("networkMachineNote"), MessageKind::Note, nullptr)),
      m_loadNote(&busyMachineNote),
      m_top(new QSplitter(Qt::Horizontal)) {
  m_graph->setObjectName(QStringLiteral("networkGraph"));
  m_table->setObjectName(QStringLiteral("taskTable"));
  m_table->setModel(m_tasks);
  m_table->verticalHeader()->hide();
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // Sized by fitTable, which narrows it where the window is. Elided in the middle: the front
  // tells "layer2" from "layer3", the end "conv1" from "downsample.conv" (at the front, ResNet's
  // "….0.conv1" hid the layer; the tooltip names it whole).
  m_table->horizontalHeader()->setSectionResizeMode(NetworkTaskModel::TaskColumn,
                                                    QHeaderView::Interactive);
  m_table->setTextElideMode(Qt::ElideMiddle);
  m_contender->setObjectName(QStringLiteral("contenderBox"));
  m_contender->setToolTip(tr("Whose tasks the table, the colours and the trials chart show"));
  // Until a race or a stored run gives it contenders it was a blank box beside "Show".
  // Short: a box is never narrower than its placeholder, and a longer one widened the page past an
  // 800x600 screen (MainWindowTest.OnAnEightHundredBySixHundredScreenNoSetupFormIsCut).
  m_contender->setPlaceholderText(tr("none yet: start a race or show a run"));
  m_status->setObjectName(QStringLiteral("networkStatus"));
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* tableSide = new QWidget;
  auto* tableLayout = new QVBoxLayout(tableSide);
  tableLayout->setContentsMargins(0, 0, 0, 0);
  auto* showRow = new QHBoxLayout;
  showRow->addWidget(new QLabel(tr("Show")));
  showRow->addWidget(m_contender, 1);
  tableLayout->addLayout(showRow);
  // The Winograd contender takes the matrix-vector box as every contender does, where `net tune
  // --template winograd` leaves the dense layers direct: each contender says what it tunes.
  m_tunes->setObjectName(QStringLiteral("contenderTunes"));
  m_tunes->setWordWrap(true);
  m_tunes->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_tunes->hide();
  tableLayout->addWidget(m_tunes);
  tableLayout->addWidget(m_table, 1);

  // The table needs its eight columns whole; the graph zooms and pans (fitTable).
  m_top->addWidget(m_graph);
  m_top->addWidget(tableSide);
  m_top->setSizes({340, 640});
  // Named, the window keeps their sizes between sessions (as it keeps every named splitter's).
  m_top->setObjectName(QStringLiteral("networkTopSplitter"));
  auto* bottom = m_bottom =
      new PairOrTabs(m_curves, tr("Latency"), m_trials, tr("Trials per task"), 300);
  bottom->setObjectName(QStringLiteral("networkCharts"));
  // Side by side the charts share the width equally: split by their size hints, the latency
  // plot (the race's result) had 240 pixels of 640 at 1024x700, the trials chart the rest.
  bottom->setEqualShares();
  auto* right = new QSplitter(Qt::Vertical);
  right->setObjectName(QStringLiteral("networkChartsSplitter"));
  right->addWidget(m_top);
  right->addWidget(bottom);
  right->setSizes({420, 330});
  auto* rightSide = new QWidget;
  auto* rightLayout = new QVBoxLayout(rightSide);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  rightLayout->addWidget(m_budgetNote);
  rightLayout->addWidget(m_machineNote);
  rightLayout->addWidget(m_status);
  rightLayout->addWidget(right, 1);

  // The panel scrolls its form itself, keeping Start, Stop and the stored runs in view.
  auto* split = new QSplitter(Qt::Horizontal);
  split->setObjectName(QStringLiteral("networkFormSplitter"));
  split->addWidget(m_setup);
  split->addWidget(rightSide);
  split->setStretchFactor(1, 1);
  auto* layout = new QHBoxLayout(this);
  layout->addWidget(split);

  connect(m_setup, &NetworkSetupPanel::networkChanged, this, [this] {
    if (m_controller->busy()) return;  // the race's network stays on show
    QString error;
    const auto params = m_setup->params(&error);
    if (!params) {
      m_setup->setNetworkValid(false);
      setStatus(error, true);
      m_statusAboutNetwork = true;
      markStale(true);
      return;
    }
    const std::string source = m_setup->network().toStdString();
    std::string text;
    try {
      text = net::networkText(source);
    } catch (const std::exception& e) {
      refuseNetwork(QString::fromStdString(source), QString::fromUtf8(e.what()));
      return;
    }
    loadPicture(source, text, *params);
  });
  connect(m_setup, &NetworkSetupPanel::startRequested, this, &NetworksPage::start);
  connect(m_setup, &NetworkSetupPanel::stopRequested, this, &NetworksPage::stop);
  connect(m_setup, &NetworkSetupPanel::resumeRequested, this, &NetworksPage::resume);
  connect(m_setup, &NetworkSetupPanel::showRequested, this, &NetworksPage::showStored);
  connect(m_setup, &NetworkSetupPanel::resumeRefused, this,
          [this](const QString& message) { setStatus(message); });
  connect(m_setup, &NetworkSetupPanel::runsReloaded, this, &NetworksPage::checkRunStatus);
  connect(m_setup, &NetworkSetupPanel::deletionRefused, this,
          [this](const QString& message) { setStatus(message, true); });
  connect(m_setup, &NetworkSetupPanel::networkRunDeleted, this,
          [this](const QString& message, std::int64_t id) {
            // A deleted run's tasks and curves leave the page with it.
            if (m_snapshot && !m_controller->busy())
              for (const ContenderState& c : m_snapshot->contenders)
                if (c.networkId == id) {
                  clearResults();
                  break;
                }
            setStatus(message);
            emit statusMessage(message);
          });
  connect(m_controller, &NetworkController::busyChanged, m_setup, &NetworkSetupPanel::setBusy);
  connect(m_controller, &NetworkController::updated, this, &NetworksPage::showSnapshot);
  connect(m_controller, &NetworkController::finished, this, [this](const NetworkOutcome& o) {
    switch (o.end) {
      case NetworkOutcome::End::Finished: {
        bool failed = false;
        const QStringList lines = resultLines(&failed);
        setStatus(lines.isEmpty() ? tr("Finished.") : lines.join(QStringLiteral("; ")), failed);
        const int stored = m_snapshot ? static_cast<int>(m_snapshot->contenders.size()) : 0;
        // Spelled out: tr's %n is plural only with a translation loaded.
        emit statusMessage(stored == 1
                               ? tr("Network race finished: 1 network run stored")
                               : tr("Network race finished: %1 network runs stored").arg(stored));
        break;
      }
      case NetworkOutcome::End::Stopped:
        setStatus(o.message);
        if (m_snapshot && m_snapshot->contenders.size() == 1)
          noteRunStatus(shownRunId(), RunStatus::Interrupted);
        emit statusMessage(tr("Network race stopped; Resume continues it"));
        break;
      case NetworkOutcome::End::Failed:
        setStatus(tr("Failed: %1").arg(o.message), true);
        m_statusAboutNetwork = true;  // as often as not the network's file (an unknown op)
        emit statusMessage(tr("Network race failed (see the Networks page)"));
        break;
    }
    // The race's run selected, so that Resume continues the run just stopped (it kept the run
    // selected before, and resumed that).
    m_setup->reloadRuns(shownRunId());
    emit raceEnded();
  });
  connect(m_contender, &QComboBox::currentIndexChanged, this, &NetworksPage::showContender);
  for (QSpinBox* box : {m_setup->trialsBox(), m_setup->unitBox()})
    connect(box, &QSpinBox::valueChanged, this, &NetworksPage::updateBudgetNote);
  for (QCheckBox* box :
       {m_setup->gradientBox(), m_setup->roundRobinBox(), m_setup->topologicalBox()})
    connect(box, &QCheckBox::toggled, this, &NetworksPage::updateBudgetNote);
  emit m_setup->networkChanged();
}

NetworksPage::~NetworksPage() = default;

QWidget* NetworksPage::chartsOnShow() const {
  if (!m_bottom->tabbed()) return m_bottom;
  return m_curves->isVisibleTo(m_bottom) ? static_cast<QWidget*>(m_curves) : m_trials;
}

void NetworksPage::setStorePath(const QString& path) {
  m_setup->setStorePath(path);
}

void NetworksPage::setStatus(const QString& text, bool error) {
  m_status->setText(text);
  m_status->setStyleSheet(error ? QStringLiteral("color: #b00020;") : QString());
  m_statusError = error;
  m_statusAboutNetwork = false;  // until the caller says it is
  m_statusRun = 0;               // until the caller notes the stored run it states
}

void NetworksPage::noteRunStatus(std::int64_t id, RunStatus status) {
  m_statusRun = id;
  m_statusRunState = status;
}

void NetworksPage::checkRunStatus() {
  // The walk: `opevo net tune --resume 2` finished run 2, and the page still said "Stopped:
  // network run 2 ... Resume continues it".
  if (!m_statusRun || m_controller->busy()) return;
  const std::int64_t id = m_statusRun;
  const auto& runs = m_setup->storedRuns();
  const auto it =
      std::find_if(runs.begin(), runs.end(), [id](const NetworkRecord& r) { return r.id == id; });
  if (it == runs.end()) {
    setStatus(tr("Network run %1 is no longer stored (another program deleted it).").arg(id));
    return;
  }
  if (it->status == m_statusRunState) return;
  const std::string_view now = runStatusName(it->status);
  setStatus(tr("Network run %1 is %2 now (another program changed it since); Show reads it as "
               "it stands.")
                .arg(id)
                .arg(QString::fromUtf8(now.data(), static_cast<qsizetype>(now.size()))));
  noteRunStatus(id, it->status);
}

QString NetworksPage::shownParamsText() const {
  QStringList parts;
  for (const auto& [name, value] : m_shownParams)
    parts << QStringLiteral("%1=%2").arg(QString::fromStdString(name)).arg(value);
  return parts.isEmpty() ? tr("the network's own params") : parts.join(QStringLiteral(", "));
}

void NetworksPage::markStale(bool stale) {
  // Greyed rather than cleared: the shapes stay readable for comparison, but not as the
  // params' (the walk read batch=4's shapes under "batch=0").
  m_table->setEnabled(!stale);
  if (!stale) {
    m_graph->setGraphicsEffect(nullptr);
  } else if (!m_graph->graphicsEffect()) {
    auto* faded = new QGraphicsOpacityEffect;
    faded->setOpacity(0.35);
    m_graph->setGraphicsEffect(faded);
  }
  if (stale && m_graph->networkLayout()) {
    setStatus(tr("%1 — the table and graph still show %2").arg(m_status->text(), shownParamsText()),
              true);
    m_statusAboutNetwork = true;
  }
}

void NetworksPage::loadPicture(std::string source, std::string text, net::ParamOverrides params) {
  m_pictureJob.start(
      [source = std::move(source), text = std::move(text), params = std::move(params)] {
        auto p = std::make_shared<Picture>();
        p->text = QString::fromStdString(text);
        p->source = QString::fromStdString(source);
        p->params = params;
        try {
          const net::Network n = net::networkFromText(text, source, params);
          try {
            net::requireEveryLayerRead(n, source);
          } catch (const std::exception& e) {
            p->unreadError = QString::fromUtf8(e.what());
          }
          const net::TaskGraph g = net::extractTasks(n);
          p->description = QString::fromStdString(
              n.description.empty() ? n.name : n.name + ": " + n.description);
          p->tasks = networkTaskInfo(n, g);
          p->layout = layoutNetwork(n, g);
        } catch (const std::exception& e) {
          p->error = QString::fromUtf8(e.what());
        }
        // A stored run's network comes from the store; the file it names may say otherwise now.
        try {
          const std::string now = net::networkText(source);
          // Would the file start a new run? (A stored run's dead layer was let in then.)
          if (now != text)
            net::requireEveryLayerRead(net::networkFromText(now, source, params), source);
          p->sourceGivesText = now == text && p->unreadError.isEmpty();
          if (now == text) p->sourceError = p->unreadError;
        } catch (const std::exception& e) {
          p->sourceGivesText = false;
          p->sourceError = QString::fromUtf8(e.what());
        }
        return std::shared_ptr<const Picture>(p);
      },
      [this](std::shared_ptr<const Picture> p) {
        if (!p->error.isEmpty()) {
          refuseNetwork(p->source, p->error);
          return;
        }
        const bool stored =
            m_controller->busy() || (m_snapshot && p->text == m_snapshot->networkText);
        if (!stored && !p->unreadError.isEmpty()) {
          refuseNetwork(p->source, p->unreadError);
          return;
        }
        const bool statusAboutNetwork = m_statusAboutNetwork;  // before the note below
        if (stored && !p->sourceGivesText) {
          // A shown run's file changed or stopped reading since (the walk: Show chose the file
          // that failed again, and Start raced it, "unknown op"): the picture is the run's
          // network from the store, the box keeps its choice, and a file that does not read
          // leaves it.
          const QString file = QFileInfo(p->source).fileName();
          const QString why =
              p->sourceError.isEmpty()
                  ? tr("%1 has changed since; the picture is the run's network as stored").arg(file)
                  : tr("%1 no longer reads (%2); the picture is the run's network as stored")
                        .arg(file, p->sourceError);
          if (!p->sourceError.isEmpty()) m_setup->showNetwork(m_setup->network(), p->source);
          const std::int64_t run = m_statusRun;
          const RunStatus state = m_statusRunState;
          setStatus(tr("%1 — %2").arg(m_status->text(), why), m_statusError);
          m_statusAboutNetwork = true;
          if (run) noteRunStatus(run, state);
        } else {
          m_setup->setNetworkValid(true);
          m_shownSource = p->source;
          m_shownParams = p->params;
          markStale(false);
        }
        if (stored) {
          // A resumed or shown run's network: the box names it, as it names a started race's.
          if (p->sourceGivesText) m_setup->showNetwork(p->source, {});
        } else if (m_snapshot &&
                   (p->text != m_snapshot->networkText || p->params != m_snapshot->params)) {
          // Another network (or params) than the race on show measured: its results go.
          clearResults();
        }
        m_pictureText = p->text;
        m_taskInfo = p->tasks;
        m_tasks->setTasks(p->tasks);
        updateBudgetNote();
        m_graph->setNetworkLayout(p->layout);
        // A red line about a network that reads now (a file fixed and chosen again) goes too.
        if (!m_controller->busy() && (!m_snapshot || statusAboutNetwork) &&
            (!stored || p->sourceGivesText))
          setStatus(p->description);
        showContender();
        fitTable(true);
      });
}

void NetworksPage::refuseNetwork(const QString& source, const QString& error) {
  if (m_controller->busy() || m_shownSource.isEmpty() || source == m_shownSource ||
      source != m_setup->network()) {
    // Nothing else to fall back on (or not the box's choice): Start waits for a fix.
    m_setup->setNetworkValid(false);
    setStatus(error, true);
    m_statusAboutNetwork = true;
    // The same network under params it cannot take ("batch=0"): the picture is of others.
    if (source == m_shownSource) markStale(true);
    return;
  }
  // The picture, the table and the results still show the network before: the box names it
  // again, and Start races it, not the file that did not read.
  m_setup->showNetwork(m_shownSource, source);
  m_setup->setNetworkValid(true);
  setStatus(tr("%1 (still showing %2)").arg(error, QFileInfo(m_shownSource).fileName()), true);
  m_statusAboutNetwork = true;
}

void NetworksPage::clearResults() {
  m_snapshot.reset();
  m_contender->clear();
  m_curves->clear();
  showContender();
}

QStringList NetworksPage::resultLines(bool* failed) const {
  QStringList lines;
  if (!m_snapshot) return lines;
  QString unchecked;  // why there was no libtorch to check against
  QStringList taskNames = m_snapshot->taskNames;
  if (taskNames.isEmpty())
    for (const NetworkTaskInfo& t : m_taskInfo) taskNames << t.name;
  for (const ContenderState& c : m_snapshot->contenders) {
    QString line = finishedLine(c);
    // Run end to end, a task its trials found no working kernel for ran its untuned
    // configuration: the latency is not that of a tuned network.
    QStringList untuned;
    if (std::isfinite(c.endToEndMs))
      for (std::size_t t = 0; t < c.taskBestMs.size() && t < m_taskInfo.size(); ++t)
        if (!std::isfinite(c.taskBestMs[t]) && t < c.taskTrials.size() && c.taskTrials[t] > 0)
          untuned << m_taskInfo[t].name;
    if (!line.isEmpty() && !untuned.isEmpty())
      line += tr(" (%1 untuned: no working kernel in its trials)")
                  .arg(untuned.join(QStringLiteral(", ")));
    if (!line.isEmpty()) lines << line;
    if (const QString compared = comparisonLine(c); !compared.isEmpty()) lines << compared;
    // The twins' closing round, as `opevo net runs ID` says it: which tasks measured their
    // twins' final bests after the scheduler's units (a finished run of 13 of 16 trials said
    // only that the rest had nothing left to measure).
    if (const QString closing = closingRoundText(c, taskNames); !closing.isEmpty())
      lines << (m_snapshot->contenders.size() == 1
                    ? tr("closing round: %1").arg(closing)
                    : tr("closing round of %1: %2").arg(c.label, closing));
    *failed = *failed || !c.endToEndError.isEmpty() ||
              (std::isfinite(c.endToEndMs) && c.checked && !c.verified);
    if (unchecked.isEmpty() && std::isfinite(c.endToEndMs) && !c.checked)
      unchecked = c.referenceMissing.isEmpty() ? tr("no libtorch reference") : c.referenceMissing;
  }
  // As `opevo net tune` says it: "no libtorch reference: cannot start 'opevo-torch' ...".
  if (!unchecked.isEmpty()) lines << tr("Not checked: %1").arg(unchecked);
  // A budget too small for every task ends with no latency: said, not a silent "Finished."
  if (!m_snapshot->contenders.empty()) {
    const auto& front = m_snapshot->contenders.front();
    const std::vector<int>& trials = front.taskTrials;
    const auto none = std::count(trials.begin(), trials.end(), 0);
    // Timed end to end, the untuned tasks ran their default configurations: the figure above is
    // the network's with them, which "no latency for the network" contradicted.
    if (none > 0)
      lines << (std::isfinite(front.endToEndMs)
                    ? tr("%1 of %2 tasks got no trial (the budget ran out first): the end-to-end "
                         "time runs them on their default configurations, and no sum over tasks "
                         "is given")
                    : tr("%1 of %2 tasks got no trial (the budget ran out first): no latency for "
                         "the network"))
                   .arg(none)
                   .arg(trials.size());
  }
  if (m_snapshot->referenceMs)
    lines << tr("%1: %2 ms").arg(m_snapshot->referenceName).arg(ms(*m_snapshot->referenceMs));
  return lines;
}

std::int64_t NetworksPage::shownRunId() const {
  if (!m_snapshot || m_snapshot->contenders.empty()) return 0;
  const int i = std::max(0, m_contender->currentIndex());
  return i < static_cast<int>(m_snapshot->contenders.size())
             ? m_snapshot->contenders[static_cast<std::size_t>(i)].networkId
             : m_snapshot->contenders.front().networkId;
}

void NetworksPage::start() {
  QString error;
  std::optional<NetworkSpec> spec = m_setup->spec(&error);
  if (!spec) {
    setStatus(error, true);
    return;
  }
  clearResults();
  // The note above says why; the status repeats it where the eye is at Start.
  setStatus(tasksLeftOut() > 0 ? tr("Starting, with tasks that will get no trial (see above)…")
                               : tr("Starting…"));
  const bool onThisCpu = spec->backend == "cpu";
  if (!m_controller->start(std::move(*spec))) {
    setStatus(tr("A network race is running."), true);
    return;
  }
  // As `opevo net tune` warns: on a loaded machine CPU timings wait for other processes (an
  // AlexNet race read 40 ms here, 9.65 ms from the CLI a moment later), and the page said nothing.
  const std::string busy = onThisCpu && m_loadNote ? m_loadNote() : std::string();
  showMessage(m_machineNote,
              busy.empty() ? QString() : tr("Note: %1.").arg(QString::fromStdString(busy)));
}

void NetworksPage::stop() {
  m_controller->stop();
  setStatus(tr("Stopping: the trials in hand are committed…"));
}

void NetworksPage::resume(std::int64_t networkId) {
  NetworkSpec spec;
  spec.resume = networkId;
  spec.storePath = m_setup->storePath().toStdString();
  clearResults();
  showMessage(m_machineNote, QString());  // the last start's; the resumed run's backend is stored
  setStatus(tr("Resuming network run %1…").arg(networkId));
  m_controller->start(std::move(spec));
}

struct NetworksPage::Stored {
  NetworkSnapshotPtr snapshot;
  RunStatus status = RunStatus::Running;
  QString error;        // why it could not be read
  QString resultError;  // why its stored result does not read (its tasks shown from their trials)
};

void NetworksPage::showStored(std::int64_t networkId) {
  if (m_controller->busy()) return;  // the race on show stays
  setStatus(tr("Reading network run %1…").arg(networkId));
  m_storedJob.start(
      [path = m_setup->storePath().toStdString(), networkId] {
        auto out = std::make_shared<Stored>();
        try {
          const Store store(path, Store::Opening::ExistingOnly);
          const net::StoredNetworkRun run = net::readStoredNetworkRun(store, networkId);
          out->status = run.status;
          out->resultError = QString::fromStdString(run.resultError);
          out->snapshot = std::make_shared<const NetworkSnapshot>(storedSnapshot(run));
        } catch (const std::exception& e) {
          out->error = QString::fromUtf8(e.what());
        }
        return std::shared_ptr<const Stored>(out);
      },
      [this, networkId](std::shared_ptr<const Stored> stored) {
        if (m_controller->busy()) return;  // a race started meanwhile: its page
        if (!stored->error.isEmpty()) {
          setStatus(tr("Network run %1 could not be read: %2").arg(networkId).arg(stored->error),
                    true);
          return;
        }
        clearResults();
        showSnapshot(stored->snapshot);
        const ContenderState& c = m_snapshot->contenders.front();
        // A finished run may leave trials unspent (the twins' closing reserve under topological,
        // tasks whose spaces ran out): "38 of 40 trials" alone read as a run stopped early.
        const QString head =
            stored->status == RunStatus::Finished && c.trials < c.budget
                ? tr("Network run %1, finished with %2 of its %3 trials (the rest had nothing "
                     "left to measure)")
                      .arg(networkId)
                      .arg(c.trials)
                      .arg(c.budget)
                : tr("Network run %1, %2 of %3 trials").arg(networkId).arg(c.trials).arg(c.budget);
        switch (stored->status) {
          case RunStatus::Finished: {
            if (!stored->resultError.isEmpty()) {
              setStatus(tr("%1: %2").arg(head, stored->resultError), true);
              break;
            }
            bool failed = false;
            const QStringList lines = resultLines(&failed);
            setStatus(lines.isEmpty() ? tr("%1, finished.").arg(head)
                                      : tr("%1: %2").arg(head, lines.join(QStringLiteral("; "))),
                      failed);
            break;
          }
          case RunStatus::Running:
            setStatus(
                tr("%1 so far: another program is tuning it (Show again reads on)").arg(head));
            break;
          default:
            setStatus(tr("%1: %2; Resume continues it")
                          .arg(head, QString::fromUtf8(runStatusName(stored->status).data())));
            break;
        }
        noteRunStatus(networkId, stored->status);
      });
}

void NetworksPage::showSnapshot(NetworkSnapshotPtr snapshot) {
  m_snapshot = std::move(snapshot);
  const NetworkSnapshot& s = *m_snapshot;
  if (m_contender->count() != static_cast<int>(s.contenders.size())) {
    m_setup->reloadRuns(s.contenders.empty() ? 0 : s.contenders.front().networkId);
    const QSignalBlocker block(m_contender);
    m_contender->clear();
    for (const ContenderState& c : s.contenders)
      m_contender->addItem(tr("%1 (network run %2)").arg(c.label).arg(c.networkId));
    // A box with a placeholder keeps no item current as items come: the first contender is shown.
    if (m_contender->count() > 0) m_contender->setCurrentIndex(0);
  }
  if (s.networkText != m_pictureText && !s.networkText.isEmpty()) {
    // A resumed run's network, which the form may not show: its picture and tasks.
    m_pictureText = s.networkText;
    loadPicture(s.source, s.networkText.toStdString(), s.params);
  }
  if (!s.activity.isEmpty()) {
    int trials = 0, budget = 0;
    for (const ContenderState& c : s.contenders) {
      trials += c.trials;
      budget += c.budget;
    }
    setStatus(tr("%1 — %2 of %3 trials").arg(s.activity).arg(trials).arg(budget));
  }
  m_curves->setSnapshot(s);
  showContender();
}

void NetworksPage::showContender() {
  const int i = m_contender->currentIndex();
  const ContenderState* c =
      m_snapshot && i >= 0 && i < static_cast<int>(m_snapshot->contenders.size())
          ? &m_snapshot->contenders[i]
          : nullptr;
  m_tasks->setState(c);
  m_trials->setContender(m_taskInfo, c);
  m_tunes->setText(c ? c->tunes : QString());
  m_tunes->setVisible(c && !c->tunes.isEmpty());
  const NetworkLayout* layout = m_graph->networkLayout();
  if (!layout) return;
  std::vector<double> shares(layout->nodes.size(), std::nan(""));
  if (c && !c->stepMs.empty()) {
    // Measured end to end: every kernel's own share, fixed ones included.
    std::map<QString, double> step;
    double total = 0;
    for (const auto& [name, ms] : c->stepMs) {
      step[name] += ms;  // a task's layout conversions count as its own
      total += ms;
    }
    std::vector<double> taskShares(m_taskInfo.size(), 0.0);
    for (std::size_t k = 0; k < shares.size(); ++k) {
      const NetworkLayout::Node& node = layout->nodes[k];
      if (auto it = step.find(node.step); it != step.end() && total > 0) {
        shares[k] = it->second / total;
        // Each step counted once, on the layer that names it: its task's complex layer.
        if (node.task >= 0 && node.task < static_cast<int>(taskShares.size()) &&
            node.step == node.name)
          taskShares[static_cast<std::size_t>(node.task)] += shares[k];
      }
    }
    m_tasks->setMeasuredShares(std::move(taskShares));
  } else if (c) {
    // While tuning: each of a task's occurrences takes its share of the task's (the table's).
    for (std::size_t k = 0; k < shares.size(); ++k) {
      const int t = layout->nodes[k].task;
      if (t >= 0 && t < static_cast<int>(m_taskInfo.size()))
        shares[k] = m_tasks->share(t) / m_taskInfo[t].weight;
    }
  }
  m_graph->setShares(std::move(shares));
  fitTable();  // a Best column filled in is wider than its "–"
}

namespace {

// The budget as each scheduler raced hands it out (core's net::tasksReached, which `opevo net
// tune` says too): gradient and round-robin reach ceil(Trials / Unit) tasks, topological every
// task Trials can give one trial. The page warns of the scheduler that reaches fewest.
struct BudgetReach {
  std::size_t reached = 0;
  int trialsForAll = 0;
};

BudgetReach budgetReach(const NetworkSetupPanel& setup, std::size_t tasks) {
  net::NetworkTuningPlan plan;
  plan.trials = setup.trialsBox()->value();
  plan.unit = static_cast<std::size_t>(std::max(1, setup.unitBox()->value()));
  std::vector<net::SchedulerKind> raced;
  if (setup.gradientBox()->isChecked()) raced.push_back(net::SchedulerKind::Gradient);
  if (setup.roundRobinBox()->isChecked()) raced.push_back(net::SchedulerKind::RoundRobin);
  if (setup.topologicalBox()->isChecked()) raced.push_back(net::SchedulerKind::Topological);
  if (raced.empty()) raced.push_back(net::SchedulerKind::Gradient);  // Start refuses it anyway
  BudgetReach worst{tasks, 0};
  for (const net::SchedulerKind kind : raced) {
    plan.scheduler = kind;
    worst.reached = std::min(worst.reached, net::tasksReached(tasks, plan));
    worst.trialsForAll = std::max(worst.trialsForAll, net::trialsToReachAll(tasks, plan));
  }
  return worst;
}

}  // namespace

int NetworksPage::tasksLeftOut() const {
  const std::size_t tasks = m_taskInfo.size();
  return static_cast<int>(tasks - budgetReach(*m_setup, tasks).reached);
}

void NetworksPage::updateBudgetNote() {
  // The walk: AlexNet at 16 trials in units of 4 tuned 4 of its 8 tasks, the latency chart never
  // drew a line, and the race ended "finished" without a word.
  const int left = tasksLeftOut();
  if (left == 0) {
    showMessage(m_budgetNote, {});
    return;
  }
  const int tasks = static_cast<int>(m_taskInfo.size());
  const BudgetReach reach = budgetReach(*m_setup, m_taskInfo.size());
  // Spelled out: tr's %n is plural only with a translation loaded ("4 task(s)" otherwise).
  const QString none =
      left == 1 ? tr("1 task will get no trial") : tr("%1 tasks will get no trial").arg(left);
  showMessage(m_budgetNote, tr("%1 trials in units of %2 reach %3 of the %4 tasks: %5, and the "
                               "network's latency needs a kernel for every task. Set Trials to "
                               "at least %6.")
                                .arg(m_setup->trialsBox()->value())
                                .arg(m_setup->unitBox()->value())
                                .arg(tasks - left)
                                .arg(tasks)
                                .arg(none)
                                .arg(reach.trialsForAll));
}

void NetworksPage::fitTable(bool giveBack) {
  // At 1024x700 the table got 410 px for the 475 its columns need, and Share went behind a
  // scroll bar: the graph gives up what the table lacks, down to a width where a layer's box
  // still shows (it zooms and pans). ResNet's names ("layer2.0.downsample.conv") still left Best
  // and Share cut off: the task names, elided at the front, give up the rest.
  constexpr int kGraphLeast = 120;
  const QList<int> sizes = m_top->sizes();
  if (sizes.size() != 2 || sizes[1] <= 0) return;  // not laid out yet, or the table collapsed
  QHeaderView* header = m_table->horizontalHeader();
  const QAbstractItemView* view = m_table;  // QTableView hides its sizeHintForColumn
  const auto hint = [&](int c) {
    return std::max(view->sizeHintForColumn(c), header->sectionSizeHint(c));
  };
  int need = 2 * m_table->frameWidth() + m_table->verticalScrollBar()->sizeHint().width() + 2;
  for (int c = 0; c < m_tasks->columnCount(); ++c) need += hint(c);
  // The stretched last column is never narrower than the header's default section size.
  need += std::max(0, header->defaultSectionSize() - hint(NetworkTaskModel::ShareColumn));
  const int total = sizes[0] + sizes[1];
  const int table = std::min(need, total - kGraphLeast);
  // The table grows to its need; past it, a graph narrower than 1:1 (AlexNet's names read at
  // 0.967 where the splitter's earlier sizes left it a scroll bar short) takes back what the
  // table has beyond its need. Whatever order the page's layout, its table's contents and this
  // fit came in, the result is the same; a user's drag stands until the next load or resize.
  const int shown = giveBack ? std::max(table, std::min(sizes[1], total - m_graph->naturalWidth()))
                             : std::max(table, sizes[1]);
  if (shown != sizes[1]) m_top->setSizes({total - shown, shown});
  const int task = hint(NetworkTaskModel::TaskColumn);
  const int least = std::min(task, 10 * fontMetrics().averageCharWidth());
  header->resizeSection(NetworkTaskModel::TaskColumn,
                        std::max(least, task - std::max(0, need - shown)));
}

void NetworksPage::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // Once the splitters inside have taken their new sizes.
  QMetaObject::invokeMethod(this, &NetworksPage::fitTableAndGraph, Qt::QueuedConnection);
}

}  // namespace opevo::ui
