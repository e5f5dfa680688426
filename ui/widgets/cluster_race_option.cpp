#include "ui/widgets/cluster_race_option.h"

#include <QCheckBox>
#include <QLabel>
#include <QVBoxLayout>

#include "ui/controller/cluster_controller.h"

namespace opevo::ui {

ClusterRaceOption::ClusterRaceOption(QWidget* parent)
    : QWidget(parent),
      m_check(new QCheckBox(tr("Through the cluster's agents"), this)),
      m_detail(new QLabel(this)) {
  m_check->setObjectName(QStringLiteral("clusterRace"));
  m_check->setToolTip(
      tr("Each trial goes to the cluster's agents serving the device (or the replayed dataset); "
         "this machine tunes and keeps the history. Connect on the Cluster page."));
  m_detail->setObjectName(QStringLiteral("clusterRaceDetail"));
  m_detail->setWordWrap(true);
  m_detail->setTextFormat(Qt::PlainText);
  m_detail->setIndent(20);  // under the check box's text, not its box
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(m_check);
  layout->addWidget(m_detail);
  connect(m_check, &QCheckBox::toggled, this, &ClusterRaceOption::toggled);
  showState();
}

void ClusterRaceOption::follow(ClusterController* controller) {
  m_controller = controller;
  connect(controller, &ClusterController::targetChanged, this, &ClusterRaceOption::showState);
  connect(controller, &ClusterController::polled, this, &ClusterRaceOption::showState);
  showState();
}

std::optional<ClusterTarget> ClusterRaceOption::target() const {
  if (!m_check->isChecked() || !m_controller) return std::nullopt;
  return m_controller->target();
}

bool ClusterRaceOption::isChecked() const {
  return m_check->isChecked();
}

bool ClusterRaceOption::setChecked(bool checked) {
  if (checked && !m_check->isEnabled()) return false;
  m_check->setChecked(checked);
  return true;
}

void ClusterRaceOption::showState() {
  const bool connected = m_controller && m_controller->target();
  m_check->setEnabled(connected);
  // A race never goes to a cluster the user has left.
  if (!connected) m_check->setChecked(false);
  if (!connected) {
    m_detail->setText(tr("Connect to a cluster on the Cluster page to measure on its agents."));
    return;
  }
  const ClusterTarget& t = *m_controller->target();
  const ClusterSnapshotPtr& s = m_controller->latest();
  QString state;
  if (!s)
    state = tr("connecting");
  else if (s->status != ClusterSnapshot::Status::Live)
    state = tr("not reachable now");
  else
    state = s->agents.size() == 1 ? tr("1 live agent") : tr("%1 live agents").arg(s->agents.size());
  m_detail->setText(QStringLiteral("%1: %2").arg(QString::fromStdString(t.address), state));
}

}  // namespace opevo::ui
