#include "ui/controller/cluster_poller.h"

#include <QTimer>
#include <exception>

#include "cluster/cluster_errors.h"
#include "cluster/redis_connection.h"
#include "cluster/trial_messages.h"
#include "common/error.h"

namespace opevo::ui {

ClusterPoller::ClusterPoller(QObject* parent) : QObject(parent), m_timer(new QTimer(this)) {
  // A child: it moves to the poll thread with the poller and fires there.
  connect(m_timer, &QTimer::timeout, this, &ClusterPoller::poll);
}

ClusterPoller::~ClusterPoller() = default;

void ClusterPoller::watch(const ClusterTarget& target, int intervalMs, quint64 generation) {
  m_target = target;
  m_generation = generation;
  m_redis.reset();  // another cluster, or the same with another password
  m_timer->start(intervalMs);
  poll();
}

void ClusterPoller::unwatch() {
  m_timer->stop();
  m_redis.reset();
}

void ClusterPoller::poll() {
  using Status = ClusterSnapshot::Status;
  auto s = std::make_shared<ClusterSnapshot>();
  s->generation = m_generation;
  try {
    if (!m_redis) {
      const cluster::ClusterEndpoint endpoint =
          cluster::parseEndpoint(m_target.address, "the cluster address");
      cluster::ConnectOptions options;
      options.connectTimeoutSeconds = kConnectTimeoutSeconds;
      options.commandTimeoutSeconds = kCommandTimeoutSeconds;
      m_redis =
          std::make_unique<cluster::RedisConnection>(endpoint, readPassword(m_target), options);
    }
    s->endpoint = QString::fromStdString(m_redis->endpoint().text());
    std::vector<std::string> problems;
    // A broken link closes the connection; the next command opens a fresh one.
    s->agents = cluster::liveAgents(*m_redis, &problems);
    s->queues = cluster::trialQueues(*m_redis);
    for (const std::string& p : problems) s->problems << QString::fromStdString(p);
  } catch (const cluster::ClusterAuthError&) {
    s->status = Status::Refused;
    s->message = QString::fromStdString(passwordRefused(m_target, s->endpoint.toStdString()));
    // Read again next time: the user may have fixed the file meanwhile.
    m_redis.reset();
  } catch (const InputError& e) {
    s->status = Status::BadInput;
    s->message = QString::fromUtf8(e.what());
    m_redis.reset();
  } catch (const cluster::ClusterUnreachable& e) {
    s->status = Status::Unreachable;
    s->message = QString::fromUtf8(e.what());
  } catch (const std::exception& e) {
    // A reply we did not expect (a shared Redis with a key of ours of another type): say it,
    // and look again at the next poll.
    s->status = Status::Unreachable;
    s->message = QString::fromUtf8(e.what());
    m_redis.reset();
  }
  s->polledMs = cluster::nowMs();
  emit polled(std::move(s));
}

}  // namespace opevo::ui
