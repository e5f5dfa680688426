#include "cluster/cluster_session.h"

#include <unistd.h>

#include <chrono>
#include <map>
#include <random>

#include "cluster/cluster_keys.h"
#include "cluster/trial_consumer.h"

namespace opevo::cluster {
namespace {

using Clock = std::chrono::steady_clock;

std::string randomId() {
  std::random_device rd;
  std::mt19937_64 rng((std::uint64_t(rd()) << 32) ^ rd() ^ std::uint64_t(getpid()));
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(rng()));
  return std::string(text, 12);
}

std::string ms(double seconds) {
  return std::to_string(static_cast<long long>(seconds * 1000));
}

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

struct ClusterSession::Flight {
  std::size_t index = 0;
  TrialRequest request;
  std::string entryId;  // empty: not known to be in the stream (yet, or any more)
  bool answered = false;
};

ClusterSession::ClusterSession(ClusterEndpoint endpoint, std::string password,
                               ClusterSessionOptions options)
    : m_endpoint(std::move(endpoint)),
      m_password(std::move(password)),
      m_options(std::move(options)),
      m_id(randomId()),
      m_results(resultsStream(m_id)),
      m_masterKey(masterKey(m_id)),
      m_redis(m_endpoint, m_password) {
  m_redis.connect();
  m_redis.call(
      {"SET", m_masterKey, "pid " + std::to_string(getpid()), "PX", ms(m_options.liveTtlSeconds)});
  m_beat = std::thread([this] { heartbeat(); });
}

ClusterSession::~ClusterSession() {
  {
    std::lock_guard lock(m_beatMutex);
    m_stopping = true;
  }
  m_beatWake.notify_all();
  m_beat.join();
  try {
    if (m_redis.connected()) m_redis.pipeline({{"DEL", m_masterKey}, {"DEL", m_results}});
  } catch (const std::exception&) {
    // Both expire by themselves.
  }
}

void ClusterSession::heartbeat() {
  RedisConnection redis(m_endpoint, m_password, {2, 5});
  const auto every = std::chrono::duration<double>(m_options.liveTtlSeconds / 5);
  std::unique_lock lock(m_beatMutex);
  while (!m_stopping) {
    lock.unlock();
    try {
      redis.command({"SET", m_masterKey, "pid " + std::to_string(getpid()), "PX",
                     ms(m_options.liveTtlSeconds)});
    } catch (const std::exception&) {
      // The measuring thread reports outages; this one tries again at its next beat.
      redis.close();
    }
    lock.lock();
    m_beatWake.wait_for(lock, every, [this] { return m_stopping; });
  }
}

RetryPolicy ClusterSession::policy() const {
  return {m_options.notice, m_options.cancel, 8};
}

std::vector<AgentRecord> ClusterSession::agents() {
  return retryUnreachable(policy(), [&] { return liveAgents(m_redis); });
}

void ClusterSession::send(const std::string& stream, std::vector<Flight*>& flights) {
  std::vector<Flight*> unsent;
  std::vector<std::vector<std::string>> adds;
  for (Flight* f : flights) {
    if (f->answered || !f->entryId.empty()) continue;
    f->request.sentMs = nowMs();
    std::vector<std::string> add = {"XADD", stream, "*"};
    const std::vector<std::string> fields = requestFields(f->request);
    add.insert(add.end(), fields.begin(), fields.end());
    adds.push_back(std::move(add));
    unsent.push_back(f);
  }
  if (adds.empty()) return;
  const std::vector<RedisValue> ids = m_redis.pipeline(adds);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i].isError())
      throw ClusterReplyError("cannot add trial " + unsent[i]->request.trialId + " to " + stream +
                              ": " + ids[i].text);
    unsent[i]->entryId = ids[i].str();
    ++m_stats.sent;
  }
}

void ClusterSession::checkLost(const std::string& stream, std::vector<Flight*>& flights) {
  std::vector<Flight*> checked;
  std::vector<std::vector<std::string>> ranges;
  for (Flight* f : flights) {
    if (f->answered || f->entryId.empty()) continue;
    ranges.push_back({"XRANGE", stream, f->entryId, f->entryId});
    checked.push_back(f);
  }
  if (ranges.empty()) return;
  const std::vector<RedisValue> found = m_redis.pipeline(ranges);
  for (std::size_t i = 0; i < found.size(); ++i)
    if (found[i].isArray() && found[i].elements.empty()) checked[i]->entryId.clear();
}

std::vector<StreamEntry> ClusterSession::readResults(int blockMs) {
  std::vector<std::string> read = {"XREAD", "COUNT", "256"};
  if (blockMs > 0) read.insert(read.end(), {"BLOCK", std::to_string(blockMs)});
  read.insert(read.end(), {"STREAMS", m_results, m_lastResult});
  // Results already taken are trimmed in the same round trip, so the stream stays short.
  const std::vector<RedisValue> replies =
      m_redis.pipeline({{"XTRIM", m_results, "MINID", m_lastResult}, read});
  if (replies[1].isError())
    throw ClusterReplyError("cannot read " + m_results + ": " + replies[1].text);
  std::vector<StreamEntry> entries = entriesOfRead(replies[1]);
  if (!entries.empty()) m_lastResult = entries.back().id;
  return entries;
}

void ClusterSession::waitNotice(const std::string& kind, const nlohmann::json& task,
                                const std::string& stream, const std::vector<Flight*>& flights) {
  const std::vector<AgentRecord> live = liveAgents(m_redis);
  int devices = 0;
  std::set<std::string> liveIds;
  for (const AgentRecord& a : live) {
    liveIds.insert(a.id);
    for (const ClusterDevice& d : a.devices) devices += d.kind == kind ? 1 : 0;
  }
  // Who holds the requests still unanswered: an agent killed mid-trial keeps its trial until
  // another takes it over (after that agent's --reclaim-after).
  std::vector<const Flight*> waiting;
  std::vector<std::vector<std::string>> holders;
  for (const Flight* f : flights) {
    if (f->answered) continue;
    waiting.push_back(f);
    if (!f->entryId.empty())
      holders.push_back({"XPENDING", stream, kConsumerGroup, f->entryId, f->entryId, "1"});
  }
  std::set<std::string> goneHolders;
  long long heldByGone = 0;
  if (!holders.empty())
    for (const RedisValue& p : m_redis.pipeline(holders)) {
      if (!p.isArray() || p.elements.empty() || p.elements[0].elements.size() < 2) continue;
      const std::string consumer = p.elements[0].elements[1].str();
      const std::string agent = consumer.substr(0, consumer.rfind('/'));
      if (liveIds.count(agent)) continue;
      goneHolders.insert(agent);
      ++heldByGone;
    }
  if (!m_options.notice) return;
  const std::string results =
      std::to_string(waiting.size()) + (waiting.size() == 1 ? " result" : " results");
  // A replay's agents must replay the same data, wherever their copy of the file lies.
  const std::string backend = task.is_object() ? task.value("backend", std::string()) : "";
  const std::string file = task.is_object() ? task.value("file", std::string()) : "";
  const std::string agentBackend = backend.empty()       ? "..."
                                   : backend != "replay" ? backend
                                   : file.empty()
                                       ? "replay:FILE (the same dataset)"
                                       : "replay:" + file + " (or another copy of the same data)";
  std::string text = devices == 0 ? "waiting for " + results + ", but no live agent serves " +
                                        kind + ": start one with opevo agent --cluster " +
                                        m_endpoint.text() + " --backend " + agentBackend
                                  : "waiting for " + results + " from the " +
                                        (devices == 1 ? std::string("live device")
                                                      : std::to_string(devices) + " live devices") +
                                        " serving " + kind;
  if (heldByGone > 0) {
    std::string names;
    for (const std::string& g : goneHolders) names += (names.empty() ? "" : ", ") + g;
    text += std::string("; ") + (heldByGone == 1 ? "1 is" : std::to_string(heldByGone) + " are") +
            " held by " + (goneHolders.size() == 1 ? "agent " : "agents ") + names +
            ", no longer live: " + (devices == 0 ? "an agent that starts" : "another agent") +
            " takes " + (heldByGone == 1 ? "it" : "them") +
            " over once idle for its --reclaim-after (15 s by default)";
  }
  m_options.notice(text);
}

void ClusterSession::measure(const std::string& kind, const nlohmann::json& task,
                             const std::vector<Item>& items,
                             const std::function<void(std::size_t, const TrialResult&)>& done) {
  const std::string stream = trialsStream(kind);
  std::vector<Flight> flights(items.size());
  std::vector<Flight*> open;
  std::map<std::string, Flight*> byTrial;
  for (std::size_t i = 0; i < items.size(); ++i) {
    Flight& f = flights[i];
    f.index = i;
    f.request.trialId = m_id + "-" + std::to_string(m_nextTrial++);
    f.request.type = items[i].type;
    f.request.kind = kind;
    f.request.replyTo = m_results;
    f.request.master = m_masterKey;
    f.request.task = task;
    f.request.config = items[i].config;
    f.request.retiming = items[i].retiming;
    open.push_back(&f);
    byTrial[f.request.trialId] = &f;
  }
  // However this ends (an engine cutting the batch, Ctrl-C), requests nobody will wait for are
  // withdrawn, so agents do not spend time on them.
  struct Withdraw {
    ClusterSession& s;
    const std::string& stream;
    std::vector<Flight>& flights;
    ~Withdraw() {
      std::vector<std::string> del = {"XDEL", stream};
      for (const Flight& f : flights)
        if (!f.answered && !f.entryId.empty()) del.push_back(f.entryId);
      if (del.size() == 2 || !s.m_redis.connected()) return;
      try {
        s.m_redis.command(del);
      } catch (const std::exception&) {
        // A dead master's requests are skipped by agents anyway.
      }
    }
  } withdraw{*this, stream, flights};

  const RetryPolicy p = policy();
  std::size_t left = items.size();
  auto take = [&](const std::vector<StreamEntry>& entries) {
    for (const StreamEntry& e : entries) {
      TrialResult r;
      try {
        r = parseResult(e);
      } catch (const ClusterMessageError& err) {
        if (m_options.notice) m_options.notice(std::string("ignored ") + err.what());
        continue;
      }
      const auto it = byTrial.find(r.trialId);
      if (it == byTrial.end() || it->second->answered) {
        ++m_stats.duplicates;  // measured twice (a reclaimed trial) or for an earlier batch
        continue;
      }
      it->second->answered = true;
      --left;
      ++m_stats.results;
      done(it->second->index, r);
    }
  };
  try {
    retryUnreachable(p, [&] {
      if (!m_groups.count(stream)) {
        ensureGroup(m_redis, stream);
        m_groups.insert(stream);
      }
      send(stream, open);
    });
    auto lastCheck = Clock::now(), lastProgress = Clock::now();
    while (left > 0) {
      if (m_options.cancel && m_options.cancel->load()) return;
      int attempts = 0;
      const std::vector<StreamEntry> got = retryUnreachable(p, [&] {
        ++attempts;
        return readResults(500);
      });
      const std::size_t before = left;
      take(got);
      if (left < before) lastProgress = Clock::now();
      if (left == 0) break;
      // After an outage Redis may have come back without some of our requests (a restart that
      // lost its last writes, a Redis without persistence): look at once, not at the next check.
      if (attempts > 1 || since(lastCheck) >= m_options.lossCheckSeconds) {
        retryUnreachable(p, [&] {
          checkLost(stream, open);
          // A request is deleted only after its result was added: read those first, and send
          // again only what still has none.
          take(readResults(0));
          std::size_t lost = 0;
          for (const Flight* f : open) lost += !f->answered && f->entryId.empty() ? 1 : 0;
          if (lost == 0) return;
          if (m_options.notice)
            m_options.notice(std::to_string(lost) +
                             " trial requests were missing from the cluster (Redis lost them, "
                             "or an agent dropped them thinking this master gone): sent again");
          m_stats.resent += static_cast<long long>(lost);
          m_groups.erase(stream);
          ensureGroup(m_redis, stream);
          m_groups.insert(stream);
          send(stream, open);
        });
        lastCheck = Clock::now();
      }
      if (since(lastProgress) >= m_options.waitNoticeSeconds) {
        retryUnreachable(p, [&] { waitNotice(kind, task, stream, open); });
        lastProgress = Clock::now();
      }
    }
  } catch (const RetryCancelled&) {
    // Ctrl-C during an outage: the engine stops with what it has.
  }
}

}  // namespace opevo::cluster
