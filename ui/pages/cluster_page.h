#pragma once

#include <QWidget>

#include "ui/controller/cluster_roster.h"
#include "ui/controller/cluster_types.h"

class QLabel;
class QSettings;
class QTableView;

namespace opevo::ui {

class ClusterAgentModel;
class ClusterConnectBar;
class ClusterController;
class ClusterDeviceModel;
class ClusterQueueModel;

// The Cluster page: a measurement cluster (opevo cluster serve, docs/cluster.md) as it stands,
// refreshed live: its agents with their heartbeat, trials done and rate, their devices and what
// each measures now, and the backlog of each device kind's queue. An agent whose heartbeat
// expired stays listed as gone. Polling runs on ClusterController's thread; an unreachable server
// or a refused password is said on the page and polling goes on. The Runs page measures through
// the cluster connected here.
class ClusterPage : public QWidget {
  Q_OBJECT

 public:
  explicit ClusterPage(QWidget* parent = nullptr);
  ~ClusterPage() override;

  ClusterController* controller() const { return m_controller; }
  ClusterConnectBar* connectBar() const { return m_bar; }
  const ClusterRoster& roster() const { return m_roster; }
  ClusterAgentModel* agentModel() const { return m_agents; }
  ClusterDeviceModel* deviceModel() const { return m_devices; }
  ClusterQueueModel* queueModel() const { return m_queues; }
  // The error on show (unreachable, refused, bad address); empty when none.
  QString message() const;
  QString summary() const;

  // How often a connected cluster is read; ClusterController::kDefaultIntervalMs unless changed.
  void setPollInterval(int ms) { m_intervalMs = ms; }

  // The address and the password file's name (never a password).
  void saveState(QSettings& settings) const;
  void restoreState(QSettings& settings);

 public slots:
  // Watches the cluster the bar names; false, with the reason on the page, without an address.
  bool connectToCluster();
  void disconnectFromCluster();

 signals:
  // Connected, lost, refused, back: once per change, not once per poll.
  void statusMessage(const QString& text);

 private:
  void onPolled(const ClusterSnapshotPtr& snapshot);
  void showSummary(const ClusterSnapshot* snapshot);
  QWidget* section(const QString& title, QTableView* table);

  ClusterController* m_controller;
  ClusterRoster m_roster;
  ClusterAgentModel* m_agents;
  ClusterDeviceModel* m_devices;
  ClusterQueueModel* m_queues;
  ClusterConnectBar* m_bar;
  QLabel* m_messageLabel;
  QLabel* m_noteLabel;
  QLabel* m_summary;
  int m_intervalMs;
  ClusterSnapshot::Status m_lastStatus = ClusterSnapshot::Status::Live;
  bool m_heard = false;  // a snapshot of the cluster watched has arrived
};

}  // namespace opevo::ui
