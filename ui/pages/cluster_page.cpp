#include "ui/pages/cluster_page.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "cluster/cluster_endpoint.h"
#include "common/error.h"
#include "ui/controller/cluster_controller.h"
#include "ui/models/cluster_agent_model.h"
#include "ui/models/cluster_device_model.h"
#include "ui/models/cluster_queue_model.h"
#include "ui/widgets/cluster_connect_bar.h"
#include "ui/widgets/message_label.h"
#include "ui/widgets/table_view.h"

namespace opevo::ui {
namespace {

QString capitalized(QString text) {
  if (!text.isEmpty()) text[0] = text[0].toUpper();
  return text;
}

}  // namespace

ClusterPage::ClusterPage(QWidget* parent)
    : QWidget(parent),
      m_controller(new ClusterController(this)),
      m_agents(new ClusterAgentModel(m_roster, this)),
      m_devices(new ClusterDeviceModel(m_roster, this)),
      m_queues(new ClusterQueueModel(m_roster, this)),
      m_bar(new ClusterConnectBar(this)),
      m_messageLabel(makeMessageLabel(QStringLiteral("clusterMessage"), MessageKind::Error, this)),
      m_noteLabel(makeMessageLabel(QStringLiteral("clusterNote"), MessageKind::Note, this)),
      m_summary(new QLabel(this)),
      m_intervalMs(ClusterController::kDefaultIntervalMs) {
  m_summary->setObjectName(QStringLiteral("clusterSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

  QTableView* agents = makeTableView(m_agents, QStringLiteral("clusterAgents"), this);
  QTableView* devices = makeTableView(m_devices, QStringLiteral("clusterDevices"), this);
  QTableView* queues = makeTableView(m_queues, QStringLiteral("clusterQueues"), this);
  for (QTableView* t : {agents, devices, queues})
    t->horizontalHeader()->setStretchLastSection(true);
  // The device's name is the long one (a CPU's model and threads, a replay's file and GPU): it
  // takes what the others leave.
  devices->horizontalHeader()->setStretchLastSection(false);
  devices->horizontalHeader()->setSectionResizeMode(ClusterDeviceModel::DeviceColumn,
                                                    QHeaderView::Stretch);
  queues->horizontalHeader()->setSectionResizeMode(ClusterQueueModel::KindColumn,
                                                   QHeaderView::Stretch);
  queues->horizontalHeader()->setStretchLastSection(false);

  auto* split = new QSplitter(Qt::Vertical, this);
  split->setObjectName(QStringLiteral("clusterSplitter"));
  split->addWidget(section(tr("Agents"), agents));
  split->addWidget(section(tr("Devices"), devices));
  split->addWidget(section(tr("Queues"), queues));
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 3);
  split->setStretchFactor(2, 2);
  split->setChildrenCollapsible(false);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_bar);
  layout->addWidget(m_messageLabel);
  layout->addWidget(m_noteLabel);
  layout->addWidget(m_summary);
  layout->addWidget(split, 1);

  connect(m_bar, &ClusterConnectBar::connectRequested, this, &ClusterPage::connectToCluster);
  connect(m_bar, &ClusterConnectBar::disconnectRequested, this,
          &ClusterPage::disconnectFromCluster);
  connect(m_controller, &ClusterController::polled, this, &ClusterPage::onPolled);
  showSummary(nullptr);
}

ClusterPage::~ClusterPage() = default;

QWidget* ClusterPage::section(const QString& title, QTableView* table) {
  auto* w = new QWidget(this);
  auto* l = new QVBoxLayout(w);
  l->setContentsMargins(0, 0, 0, 0);
  l->addWidget(new QLabel(QStringLiteral("<b>%1</b>").arg(title), w));
  l->addWidget(table, 1);
  return w;
}

QString ClusterPage::message() const {
  return m_messageLabel->isVisible() ? m_messageLabel->text() : QString();
}

QString ClusterPage::summary() const {
  return m_summary->text();
}

bool ClusterPage::connectToCluster() {
  if (m_bar->address().isEmpty()) {
    showMessage(m_messageLabel,
                tr("Type the cluster's address first: HOST:PORT (opevo cluster serve listens on "
                   "127.0.0.1:6390 by default) or the path of its Unix socket."));
    return false;
  }
  // An address that is no address is said once, here, and nothing is watched.
  try {
    cluster::parseEndpoint(m_bar->address().toStdString(), "the address");
  } catch (const InputError& e) {
    showMessage(m_messageLabel, capitalized(QString::fromStdString(e.what())) + QLatin1Char('.'));
    return false;
  }
  showMessage(m_messageLabel, QString());
  showMessage(m_noteLabel, QString());
  m_roster.clear();
  m_agents->refresh(ClusterRoster::Change::Rows);
  m_devices->refresh(ClusterRoster::Change::Rows);
  m_queues->refresh(ClusterRoster::Change::Rows);
  m_heard = false;
  m_lastStatus = ClusterSnapshot::Status::Live;
  m_bar->setConnected(true);
  m_controller->watch(m_bar->target(), m_intervalMs);
  m_summary->setText(tr("Connecting to %1…").arg(m_bar->address()));
  return true;
}

void ClusterPage::disconnectFromCluster() {
  m_controller->unwatch();
  m_bar->setConnected(false);
  // What was read stays true only while it is watched.
  m_roster.clear();
  m_agents->refresh(ClusterRoster::Change::Rows);
  m_devices->refresh(ClusterRoster::Change::Rows);
  m_queues->refresh(ClusterRoster::Change::Rows);
  showMessage(m_messageLabel, QString());
  showMessage(m_noteLabel, QString());
  showSummary(nullptr);
  emit statusMessage(tr("Cluster: disconnected"));
}

void ClusterPage::onPolled(const ClusterSnapshotPtr& s) {
  using Status = ClusterSnapshot::Status;
  const ClusterRoster::Change change = m_roster.apply(*s);
  m_agents->refresh(change);
  m_devices->refresh(change);
  m_queues->refresh(change);

  QString error;
  switch (s->status) {
    case Status::Live:
      break;
    case Status::Unreachable:
      error = tr("%1. Is opevo cluster serve running there, and reachable from here? Trying "
                 "again every %2 s.")
                  .arg(capitalized(s->message))
                  .arg(double(m_intervalMs) / 1000.0);
      break;
    case Status::Refused:
    case Status::BadInput:
      error = capitalized(s->message) + QLatin1Char('.');
      break;
  }
  showMessage(m_messageLabel, error);
  if (s->status == Status::Refused || s->status == Status::BadInput) {
    // Asking again cannot help (a refused password stays refused): the page stops watching, so
    // the password file can be chosen and Connect pressed again.
    m_controller->unwatch();
    m_bar->setConnected(false);
  }
  showMessage(m_noteLabel, s->problems.isEmpty()
                               ? QString()
                               : tr("Agent records that could not be read: %1")
                                     .arg(s->problems.join(QStringLiteral("; "))));
  showSummary(s.get());
  if (!m_heard || s->status != m_lastStatus)
    emit statusMessage(
        s->status == Status::Live
            ? tr("Cluster %1: %2")
                  .arg(s->endpoint, m_roster.liveCount() == 1
                                        ? tr("1 live agent")
                                        : tr("%1 live agents").arg(m_roster.liveCount()))
            : tr("Cluster %1: not connected (the Cluster page says why)")
                  .arg(s->endpoint.isEmpty() ? m_bar->address() : s->endpoint));
  m_heard = true;
  m_lastStatus = s->status;
}

void ClusterPage::showSummary(const ClusterSnapshot* s) {
  if (!s) {
    m_summary->setText(
        tr("Not connected. Start a cluster with <i>opevo cluster serve</i> and agents with "
           "<i>opevo agent --cluster ADDRESS --backend …</i> on each node (docs/cluster.md), "
           "then connect here; the Runs page can then measure through it."));
    return;
  }
  // Reached and refused (a wrong password), or an address that is no address: said as such, not
  // as a cluster not reached yet.
  if (s->status == ClusterSnapshot::Status::Refused ||
      s->status == ClusterSnapshot::Status::BadInput) {
    m_summary->setText(
        tr("%1: not connected (the reason is above).").arg(m_bar->address().toHtmlEscaped()));
    return;
  }
  if (s->status != ClusterSnapshot::Status::Live && m_roster.polledMs() == 0) {
    m_summary->setText(tr("%1: not reached yet.").arg(m_bar->address()));
    return;
  }
  int devices = 0;
  long long trials = 0;
  // Trials count every agent listed: a gone agent's trials were done (the table shows them).
  for (const RosterAgent& a : m_roster.agents()) {
    trials += a.record.trialsDone();
    if (a.live) devices += static_cast<int>(a.record.devices.size());
  }
  long long waiting = 0, inFlight = 0;
  for (const cluster::TrialQueue& q : m_roster.queues()) {
    waiting += q.waiting;
    inFlight += q.inFlight;
  }
  const int gone = static_cast<int>(m_roster.agents().size()) - m_roster.liveCount();
  const int live = m_roster.liveCount();
  QString text = tr("<b>%1</b>: %2%3, %4, %5 trials done; %6 trials waiting, %7 being measured.")
                     .arg(s->endpoint.isEmpty() ? m_bar->address() : s->endpoint)
                     .arg(live == 1 ? tr("1 live agent") : tr("%1 live agents").arg(live))
                     .arg(gone > 0 ? tr(" (%1 gone)").arg(gone) : QString())
                     .arg(devices == 1 ? tr("1 device") : tr("%1 devices").arg(devices))
                     .arg(QLocale().toString(trials))
                     .arg(waiting)
                     .arg(inFlight);
  if (s->status != ClusterSnapshot::Status::Live)
    text += tr(" (as last read %1 ago)").arg(ageText(s->polledMs - m_roster.polledMs()));
  m_summary->setText(text);
}

void ClusterPage::saveState(QSettings& settings) const {
  settings.beginGroup(QStringLiteral("cluster"));
  settings.setValue(QStringLiteral("address"), m_bar->address());
  // The file's name only: the password stays in the file (or the environment).
  settings.setValue(QStringLiteral("passwordFile"), m_bar->passwordFile());
  settings.endGroup();
}

void ClusterPage::restoreState(QSettings& settings) {
  settings.beginGroup(QStringLiteral("cluster"));
  m_bar->setAddress(settings.value(QStringLiteral("address")).toString());
  m_bar->setPasswordFile(settings.value(QStringLiteral("passwordFile")).toString());
  settings.endGroup();
}

}  // namespace opevo::ui
