#include "agent/agent.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <thread>

#include "agent/trial_handlers.h"
#include "backends/cluster_backend.h"
#include "cluster/cluster_keys.h"
#include "cluster/device_kind.h"
#include "cluster/trial_messages.h"
#include "common/error.h"
#include "replay/replay_measurer.h"
#include "store/store.h"

namespace opevo::agent {

struct Agent::Device {
  cluster::ClusterDevice info;
  std::unique_ptr<cluster::TrialHandler> handler;
  std::unique_ptr<cluster::TrialConsumer> consumer;
  std::thread thread;
};

namespace {

std::string hostName() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

Agent::Agent(AgentOptions options) : m_options(std::move(options)) {
  m_record.host = hostName();
  m_record.pid = static_cast<long>(getpid());
  m_record.id =
      m_options.name.empty() ? m_record.host + "-" + std::to_string(m_record.pid) : m_options.name;
  m_record.version = OPEVO_VERSION;
  m_record.started = Store::nowUtc();
  std::vector<cluster::ClusterDevice> found;
  std::shared_ptr<const ReplayDataset> dataset;
  if (m_options.backend.rfind("replay:", 0) == 0) {
    dataset = std::make_shared<const ReplayDataset>(loadReplayDataset(m_options.backend.substr(7)));
    cluster::ClusterDevice d;
    d.backend = "replay";
    d.kind = cluster::replayKind(*dataset);
    d.name = ReplayMeasurer(dataset).label();
    d.delayMs = m_options.delayMs;
    found.push_back(std::move(d));
    m_record.backend = "replay";
  } else {
    if (m_options.delayMs > 0)
      throw InputError("--delay-ms simulates measurement time for replay agents only; a " +
                       m_options.backend + " agent measures for real");
    found = localClusterDevices(m_options.backend);
    m_record.backend = m_options.backend;
  }
  for (std::size_t i = 0; i < found.size(); ++i) {
    auto d = std::make_unique<Device>();
    d->info = found[i];
    if (dataset)
      d->handler = std::make_unique<ReplayHandler>(dataset, m_options.delayMs);
    else
      d->handler = std::make_unique<DeviceHandler>(m_options.backend);
    cluster::ConsumerOptions c;
    c.kind = d->info.kind;
    c.consumer = m_record.id + "/" + std::to_string(i);
    c.agentId = m_record.id;
    c.deviceName = d->info.name;
    c.reclaimAfterSeconds = m_options.reclaimAfterSeconds;
    cluster::RetryPolicy policy;
    policy.cancel = &m_stop;
    policy.notice = [this](const std::string& text) { say(text); };
    d->consumer = std::make_unique<cluster::TrialConsumer>(m_options.endpoint, m_options.password,
                                                           c, *d->handler, policy);
    m_devices.push_back(std::move(d));
  }
}

Agent::~Agent() {
  m_stop = true;
  for (auto& d : m_devices)
    if (d->thread.joinable()) d->thread.join();
}

void Agent::say(const std::string& text) {
  std::lock_guard lock(m_sayMutex);
  // Every consumer and the heartbeat see the same outage: one line for it is enough.
  const long long now = cluster::nowMs();
  if (text == m_lastSaid && now - m_lastSaidMs < 2000) return;
  m_lastSaid = text;
  m_lastSaidMs = now;
  if (m_options.quiet) return;
  const std::time_t t = std::time(nullptr);
  char stamp[16];
  std::strftime(stamp, sizeof stamp, "%H:%M:%S", std::localtime(&t));
  std::fprintf(stderr, "%s agent %s: %s\n", stamp, m_record.id.c_str(), text.c_str());
}

void Agent::beat(cluster::RedisConnection& redis) {
  m_record.beatMs = cluster::nowMs();
  m_record.devices.clear();
  for (const auto& d : m_devices) {
    cluster::ClusterDevice info = d->info;
    info.trialsDone = d->consumer->done();
    info.current = d->consumer->currentTrial();
    m_record.devices.push_back(std::move(info));
  }
  // Lives a few beats: one late beat is no death.
  cluster::publishAgent(redis, m_record, std::max(5.0, 5 * m_options.heartbeatSeconds));
}

void Agent::run(const std::atomic<bool>& stop) {
  cluster::RedisConnection redis(m_options.endpoint, m_options.password);
  cluster::RetryPolicy policy;
  policy.notice = [this](const std::string& text) { say(text); };
  policy.cancel = &stop;
  try {
    cluster::retryUnreachable(policy, [&] { beat(redis); });
  } catch (const cluster::RetryCancelled&) {
    return;
  }
  for (const auto& d : m_devices) {
    say("measuring " + d->info.name +
        (d->info.delayMs ? " (simulated " + std::to_string(d->info.delayMs) + " ms per trial)"
                         : std::string()) +
        " for the cluster at " + m_options.endpoint.text() + ", stream " +
        cluster::trialsStream(d->info.kind));
    cluster::TrialConsumer* consumer = d->consumer.get();
    d->thread = std::thread([this, consumer] {
      try {
        consumer->run();
      } catch (const cluster::ClusterAuthError& e) {
        std::lock_guard lock(m_sayMutex);
        if (m_authError.empty()) m_authError = e.what();
        m_stop = true;
      }
    });
  }
  // Touched well within the reclaim time, so a live agent's slow trial is never taken over.
  const double touchEvery = std::min(m_options.heartbeatSeconds, m_options.reclaimAfterSeconds / 4);
  auto lastBeat = std::chrono::steady_clock::now();
  while (!stop.load() && !m_stop.load()) {
    cluster::sleepUnlessCancelled(touchEvery, &stop);
    try {
      for (const auto& d : m_devices) {
        const std::string entry = d->consumer->currentEntry();
        if (!entry.empty())
          cluster::touchEntry(redis, cluster::trialsStream(d->info.kind),
                              d->consumer->options().consumer, entry);
      }
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - lastBeat).count() >=
          m_options.heartbeatSeconds) {
        beat(redis);
        lastBeat = std::chrono::steady_clock::now();
      }
    } catch (const cluster::ClusterUnreachable& e) {
      say(std::string(e.what()) + "; the heartbeat tries again");
    } catch (const cluster::ClusterAuthError&) {
      throw;
    } catch (const std::exception& e) {
      say(std::string("heartbeat: ") + e.what());
    }
  }
  m_stop = true;
  for (auto& d : m_devices)
    if (d->thread.joinable()) d->thread.join();
  if (!m_authError.empty()) throw cluster::ClusterAuthError(m_authError);
  try {
    cluster::withdrawAgent(redis, m_record.id);
  } catch (const std::exception&) {
    // Its record expires by itself.
  }
  long long done = 0;
  for (const auto& d : m_devices) done += d->consumer->done();
  say("stopped after " + std::to_string(done) + " trials");
}

}  // namespace opevo::agent
