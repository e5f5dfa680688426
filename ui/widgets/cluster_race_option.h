#pragma once

#include <QWidget>
#include <optional>

#include "ui/controller/cluster_target.h"

class QCheckBox;
class QLabel;

namespace opevo::ui {

class ClusterController;

// On the Runs page: measure the race through the cluster connected on the Cluster page, its
// agents doing the work (a replay served by replay agents, an operator by cpu/cuda/hip agents)
// while this machine tunes and keeps the store. Enabled only while a cluster is connected.
class ClusterRaceOption : public QWidget {
  Q_OBJECT

 public:
  explicit ClusterRaceOption(QWidget* parent = nullptr);

  // The Cluster page's controller: which cluster is connected, and its live agents.
  void follow(ClusterController* controller);
  // The cluster to measure through: set when checked (which needs a connected cluster).
  std::optional<ClusterTarget> target() const;
  bool isChecked() const;
  // False when no cluster is connected.
  bool setChecked(bool checked);
  QCheckBox* checkBox() const { return m_check; }

 signals:
  void toggled(bool checked);

 private:
  void showState();

  QCheckBox* m_check;
  QLabel* m_detail;
  ClusterController* m_controller = nullptr;
};

}  // namespace opevo::ui
