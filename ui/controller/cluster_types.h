#pragma once

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

#include "cluster/agent_registry.h"
#include "cluster/trial_queues.h"

namespace opevo::ui {

// One look at the cluster, taken on the poll thread and handed to the GUI whole. Immutable once
// sent.
struct ClusterSnapshot {
  enum class Status {
    Live,         // read: agents and queues below are the cluster's now
    Unreachable,  // no server there, or the link broke; polling goes on
    Refused,      // the password was refused, or one is needed and none is set
    BadInput,     // the address or the password file is wrong
  };
  quint64 generation = 0;  // which watch() it answers; older ones are dropped
  Status status = Status::Live;
  QString endpoint;  // the address as parsed ("unix:/run/opevo.sock"); empty if it did not parse
  QString message;   // why it is not Live
  // This machine's clock (ms since the epoch) when read: agents stamp heartbeats with theirs,
  // so an age is only as good as the clocks agree (NTP on a cluster).
  long long polledMs = 0;
  std::vector<cluster::AgentRecord> agents;  // the live ones, as registered
  std::vector<cluster::TrialQueue> queues;
  QStringList problems;  // agent records that could not be read
};

using ClusterSnapshotPtr = std::shared_ptr<const ClusterSnapshot>;

}  // namespace opevo::ui

Q_DECLARE_METATYPE(opevo::ui::ClusterSnapshotPtr)
