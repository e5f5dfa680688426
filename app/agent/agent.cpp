#include "agent/agent.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <memory>
#include <thread>

#include "agent/trial_handlers.h"
#include "backends/backend_factory.h"
#include "backends/cluster_backend.h"
#include "cluster/cluster_keys.h"
#include "cluster/device_kind.h"
#include "cluster/trial_messages.h"
#include "common/error.h"
#include "replay/replay_measurer.h"
#include "space/text.h"
#include "store/store.h"

namespace opevo::agent {

struct Agent::Device {
  cluster::ClusterDevice info;
  std::unique_ptr<cluster::TrialHandler> handler;
  std::unique_ptr<cluster::TrialConsumer> consumer;
  std::thread thread;
  std::atomic<bool> finished{false};  // its thread's run() has returned
};

namespace {

// What a device agent times on (AgentRecord::hardware): the cores, or the GPUs it sees.
std::string hardwareOf(const std::string& backend) {
  if (backend == "cpu") return "cpu";
  const char* visible =
      std::getenv(backend == "hip" ? "HIP_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES");
  return backend + ":" + (visible && *visible ? visible : "all");
}

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
    m_record.hardware = hardwareOf(m_options.backend);
    // Every trial is compiled and timed here: a machine without a working compiler or its
    // opevo-worker would fail them all, so it refuses to serve, saying why (as a local run does
    // before it stores anything).
    try {
      requireMeasuringPrograms(m_options.backend, BackendOptions());
    } catch (const std::exception& e) {
      throw InputError("this machine cannot measure " + m_options.backend + " trials: " + e.what());
    }
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

std::optional<std::string> Agent::beat(cluster::RedisConnection& redis) {
  m_record.beatMs = cluster::nowMs();
  m_record.devices.clear();
  for (const auto& d : m_devices) {
    cluster::ClusterDevice info = d->info;
    info.trialsDone = d->consumer->done();
    info.current = d->consumer->currentTrial();
    m_record.devices.push_back(std::move(info));
  }
  // Lives a few beats: one late beat is no death.
  const double ttl = std::max(5.0, 5 * m_options.heartbeatSeconds);
  const auto held = cluster::claimAgent(redis, m_record, ttl);
  if (!held) return std::nullopt;
  // The id of an agent of this host whose process is gone (killed, and started again at once):
  // its record has not expired yet, and is ours to take.
  if (held->host == m_record.host && held->pid > 0 &&
      ::kill(static_cast<pid_t>(held->pid), 0) != 0 && errno == ESRCH) {
    cluster::claimAgent(redis, m_record, ttl, true);
    say("took over the id " + m_record.id + " from agent pid " + std::to_string(held->pid) +
        ", which is no longer running");
    return std::nullopt;
  }
  char ago[32];
  std::snprintf(ago, sizeof ago, "%.1f s ago",
                double(std::max(0LL, cluster::nowMs() - held->beatMs)) / 1000.0);
  return "another live agent is registered as '" + m_record.id + "' on the cluster at " +
         m_options.endpoint.text() + " (on " + held->host + ", pid " + std::to_string(held->pid) +
         ", heartbeat " + ago + "): give this one another --name";
}

void Agent::run(const std::atomic<bool>& stop) {
  cluster::RedisConnection redis(m_options.endpoint, m_options.password);
  cluster::RetryPolicy policy;
  policy.notice = [this](const std::string& text) { say(text); };
  policy.cancel = &stop;
  try {
    const auto taken = cluster::retryUnreachable(policy, [&] { return beat(redis); });
    if (taken) throw InputError(*taken);
    if (!m_options.shareHardware) {
      // Checked once registered: of two agents started at once each sees the other, and the
      // later (sharingHardware) gives way.
      const auto other = cluster::retryUnreachable(policy, [&] {
        std::vector<cluster::AgentRecord> live = cluster::liveAgents(redis);
        // An agent of this host killed a moment ago still has a record until it expires.
        std::erase_if(live, [&](const cluster::AgentRecord& a) {
          return a.host == m_record.host && a.pid > 0 &&
                 ::kill(static_cast<pid_t>(a.pid), 0) != 0 && errno == ESRCH;
        });
        // Our own registration time, as the cluster stamped it.
        cluster::AgentRecord me = m_record;
        me.registeredUs = std::numeric_limits<long long>::max();
        for (const cluster::AgentRecord& a : live)
          if (a.id == me.id) me.registeredUs = a.registeredUs;
        return cluster::sharingHardware(live, me);
      });
      if (other) {
        cluster::withdrawAgent(redis, m_record.id);
        throw InputError("agent '" + other->id + "' (pid " + std::to_string(other->pid) +
                         ") already measures on " + other->hardware + " of this host (" +
                         m_record.host + "): two agents timing kernels on the same " +
                         (m_record.backend == "cpu" ? "cores" : "device") +
                         " slow each other's trials and both record the slowdown. Stop it, give "
                         "each agent its own GPUs (CUDA_VISIBLE_DEVICES), or pass "
                         "--share-hardware to run both anyway");
      }
    }
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
    std::atomic<bool>* finished = &d->finished;
    d->thread = std::thread([this, consumer, finished] {
      try {
        consumer->run();
      } catch (const cluster::ClusterAuthError& e) {
        std::lock_guard lock(m_sayMutex);
        if (m_authError.empty()) m_authError = e.what();
        m_stop = true;
      }
      finished->store(true);
    });
  }
  // Touched well within the reclaim time, so a live agent's slow trial is never taken over.
  const double touchEvery = std::min(m_options.heartbeatSeconds, m_options.reclaimAfterSeconds / 4);
  auto lastBeat = std::chrono::steady_clock::now();
  // False when another agent took the id meanwhile.
  auto keepAlive = [&] {
    try {
      for (const auto& d : m_devices) d->consumer->touchCurrent(redis);
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - lastBeat).count() >=
          m_options.heartbeatSeconds) {
        if (const auto taken = beat(redis)) {
          // Another agent took the id while this one was stopped (SIGSTOP) and its record
          // expired: two consumers of one name would take each other's trials.
          m_nameError = *taken;
          return false;
        }
        lastBeat = std::chrono::steady_clock::now();
      }
    } catch (const cluster::ClusterUnreachable& e) {
      say(std::string(e.what()) + "; the heartbeat tries again");
    } catch (const cluster::ClusterAuthError&) {
      throw;
    } catch (const std::exception& e) {
      say(std::string("heartbeat: ") + e.what());
    }
    return true;
  };
  while (!stop.load() && !m_stop.load()) {
    cluster::sleepUnlessCancelled(touchEvery, &stop);
    if (!keepAlive()) break;
  }
  // Consumers take no trial from now on. A trial being measured is answered (the time is spent
  // anyway) and, meanwhile, still touched and beaten for, so no other agent takes it over and
  // measures it twice; one taken but not started is handed back at once. (A second signal
  // ends the process: main.cpp.)
  m_stop = true;
  auto running = [&] {
    return std::any_of(m_devices.begin(), m_devices.end(),
                       [](const auto& d) { return d->thread.joinable() && !d->finished.load(); });
  };
  bool said = false;
  auto lastTouch = std::chrono::steady_clock::now();
  while (m_nameError.empty() && running()) {
    if (!said) {
      for (const auto& d : m_devices)
        if (!d->consumer->currentTrial().empty())
          say("stopping: answering trial " + d->consumer->currentTrial() +
              " first (stop again to leave it to another agent)");
      said = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - lastTouch).count() >=
        touchEvery) {
      if (!keepAlive()) break;
      lastTouch = std::chrono::steady_clock::now();
    }
  }
  for (auto& d : m_devices)
    if (d->thread.joinable()) d->thread.join();
  if (!m_authError.empty()) throw cluster::ClusterAuthError(m_authError);
  if (!m_nameError.empty()) throw InputError(m_nameError);
  try {
    cluster::withdrawAgent(redis, m_record.id);
  } catch (const std::exception&) {
    // Its record expires by itself.
  }
  long long done = 0, references = 0, retimings = 0;
  for (const auto& d : m_devices) {
    done += d->consumer->done();
    references += d->consumer->references();
    retimings += d->consumer->retimings();
  }
  // A run's reference timing (the vendor library on its operator) and tune's side-by-side
  // rounds after it are not its trials: counted apart, so the trials match the runs' budgets.
  std::vector<std::string> beside;
  if (references > 0)
    beside.push_back(counted(references, "reference measurement", "reference measurements"));
  if (retimings > 0)
    beside.push_back(counted(retimings, "side-by-side timing", "side-by-side timings"));
  std::string text = "stopped after " + counted(done, "trial", "trials");
  for (std::size_t i = 0; i < beside.size(); ++i)
    text += (i + 1 == beside.size() ? " and " : ", ") + beside[i];
  say(text);
}

}  // namespace opevo::agent
