#include "cluster/trial_consumer.h"

#include <algorithm>
#include <chrono>

#include "cluster/cluster_keys.h"

namespace opevo::cluster {
namespace {

std::string ms(double seconds) {
  return std::to_string(static_cast<long long>(seconds * 1000));
}

bool isNoGroup(const RedisValue& v) {
  return v.isError() && v.text.rfind("NOGROUP", 0) == 0;
}

// Atomic, so a consumer never takes back a trial another has reclaimed meanwhile.
constexpr const char* kTouchScript = R"lua(
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
if p[1] and p[1][2] == ARGV[2] then
  redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'JUSTID')
  return 1
end
return 0
)lua";

// The same check; then the entry's delivery time goes far back (IDLE) and its delivery count is
// set (ARGV[5], or kept when negative). JUSTID: XCLAIM then adds no delivery of its own.
constexpr const char* kHandBackScript = R"lua(
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
if p[1] and p[1][2] == ARGV[2] then
  local count = tonumber(ARGV[5])
  if count < 0 then count = p[1][4] end
  redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'IDLE', ARGV[4], 'RETRYCOUNT',
             count, 'JUSTID')
  return 1
end
return 0
)lua";

// How long ago a handed-back trial looks delivered: far beyond any --reclaim-after (about ten
// years), yet below the time since the epoch, past which Redis would read it as now.
constexpr const char* kLongIdleMs = "315360000000";

}  // namespace

void ensureGroup(RedisConnection& redis, const std::string& stream) {
  const RedisValue r = redis.command({"XGROUP", "CREATE", stream, kConsumerGroup, "0", "MKSTREAM"});
  if (r.isError() && r.text.rfind("BUSYGROUP", 0) != 0)
    throw ClusterReplyError("cannot create the consumer group of " + stream + ": " + r.text);
}

bool touchEntry(RedisConnection& redis, const std::string& stream, const std::string& consumer,
                const std::string& entryId) {
  const RedisValue r =
      redis.command({"EVAL", kTouchScript, "1", stream, kConsumerGroup, consumer, entryId});
  return r.type == RedisValue::Type::Integer && r.integer == 1;
}

bool handBack(RedisConnection& redis, const std::string& stream, const std::string& consumer,
              const std::string& entryId, std::optional<long long> deliveries) {
  const std::string count = std::to_string(deliveries ? std::max(0LL, *deliveries) : -1LL);
  const RedisValue r = redis.command({"EVAL", kHandBackScript, "1", stream, kConsumerGroup,
                                      consumer, entryId, kLongIdleMs, count});
  if (r.isError())
    throw ClusterReplyError("cannot hand back " + entryId + " on " + stream + ": " + r.text);
  return r.type == RedisValue::Type::Integer && r.integer == 1;
}

std::vector<std::string> heldEntries(RedisConnection& redis, const std::string& stream,
                                     const std::string& consumer) {
  const RedisValue p =
      redis.command({"XPENDING", stream, kConsumerGroup, "-", "+", "100", consumer});
  std::vector<std::string> out;
  if (!p.isArray()) return out;
  for (const RedisValue& e : p.elements)
    if (!e.elements.empty()) out.push_back(e.elements[0].str());
  return out;
}

TrialConsumer::TrialConsumer(ClusterEndpoint endpoint, std::string password,
                             ConsumerOptions options, TrialHandler& handler, RetryPolicy policy)
    : m_redis(std::move(endpoint), std::move(password)),
      m_options(std::move(options)),
      m_handler(handler),
      m_policy(std::move(policy)),
      m_stream(trialsStream(m_options.kind)) {}

std::string TrialConsumer::currentEntry() const {
  std::lock_guard lock(m_mutex);
  return m_currentEntry;
}

std::string TrialConsumer::currentTrial() const {
  std::lock_guard lock(m_mutex);
  return m_currentTrial;
}

void TrialConsumer::setCurrent(const std::string& entry, const std::string& trial) {
  std::lock_guard lock(m_mutex);
  m_currentEntry = entry;
  m_currentTrial = trial;
}

void TrialConsumer::run() {
  try {
    retryUnreachable(m_policy, [&] {
      ensureGroup(m_redis, m_stream);
      // Nothing of this process can be pending yet: these are a dead namesake's.
      for (const std::string& entry : heldEntries(m_redis, m_stream, m_options.consumer)) {
        if (!handBack(m_redis, m_stream, m_options.consumer, entry, std::nullopt)) continue;
        const std::vector<StreamEntry> request =
            entriesOf(m_redis.call({"XRANGE", m_stream, entry, entry}));
        if (m_policy.notice)
          m_policy.notice("handed back trial " +
                          (request.empty() ? entry : request.front().fieldOr("trial", entry)) +
                          ", left unanswered by an earlier agent named " + m_options.agentId +
                          ", for the next agent to take at once");
      }
    });
  } catch (const RetryCancelled&) {
    return;
  }
  while (!(m_policy.cancel && m_policy.cancel->load())) {
    Taken taken;
    try {
      if (retryUnreachable(m_policy, [&] { return take(taken); })) answer(taken);
    } catch (const RetryCancelled&) {
      return;
    } catch (const ClusterAuthError&) {
      throw;
    } catch (const std::exception& e) {
      // A refused command (a shared Redis with a clashing key): said, and tried again later;
      // the trial in hand stays pending and is reclaimed.
      setCurrent({}, {});
      if (m_policy.notice) m_policy.notice(e.what());
      if (!sleepUnlessCancelled(1, m_policy.cancel)) return;
    }
  }
}

bool TrialConsumer::take(Taken& out) {
  // Trials a consumer took and stopped touching first: they have waited longest.
  RedisValue claimed = m_redis.command({"XAUTOCLAIM", m_stream, kConsumerGroup, m_options.consumer,
                                        ms(m_options.reclaimAfterSeconds), "0-0", "COUNT", "1"});
  if (isNoGroup(claimed)) {
    // Redis lost the group (restarted without its data, or someone deleted the stream).
    ensureGroup(m_redis, m_stream);
    return false;
  }
  if (claimed.isError())
    throw ClusterReplyError("XAUTOCLAIM on " + m_stream + " failed: " + claimed.text +
                            " (the cluster needs Redis 6.2 or newer)");
  if (claimed.isArray() && claimed.elements.size() >= 2) {
    std::vector<StreamEntry> entries = entriesOf(claimed.elements[1]);
    if (!entries.empty()) {
      out.entry = std::move(entries.front());
      const RedisValue pending =
          m_redis.call({"XPENDING", m_stream, kConsumerGroup, out.entry.id, out.entry.id, "1"});
      out.deliveries = 1;
      if (pending.isArray() && !pending.elements.empty() &&
          pending.elements[0].elements.size() >= 4)
        out.deliveries = pending.elements[0].elements[3].integer;
      if (m_policy.notice)
        m_policy.notice("took over trial " + out.entry.fieldOr("trial", out.entry.id) +
                        ", left by an agent that stopped (delivery " +
                        std::to_string(out.deliveries) + ")");
      return true;
    }
  }
  const RedisValue read =
      m_redis.command({"XREADGROUP", "GROUP", kConsumerGroup, m_options.consumer, "COUNT", "1",
                       "BLOCK", ms(m_options.blockSeconds), "STREAMS", m_stream, ">"});
  if (isNoGroup(read)) {
    ensureGroup(m_redis, m_stream);
    return false;
  }
  if (read.isError()) throw ClusterReplyError("XREADGROUP on " + m_stream + ": " + read.text);
  std::vector<StreamEntry> entries = entriesOfRead(read);
  if (entries.empty()) return false;
  out.entry = std::move(entries.front());
  out.deliveries = 1;
  return true;
}

void TrialConsumer::post(const std::string& replyTo, const TrialResult& result,
                         const RetryPolicy& policy) {
  std::vector<std::string> xadd = {"XADD", replyTo, "*"};
  const std::vector<std::string> fields = resultFields(result);
  xadd.insert(xadd.end(), fields.begin(), fields.end());
  retryUnreachable(policy, [&] {
    // A master killed with -9 never deletes its results stream: let it expire a day after the
    // last result instead of keeping it forever.
    const auto replies = m_redis.pipeline({xadd, {"PEXPIRE", replyTo, "86400000"}});
    if (replies[0].isError())
      throw ClusterReplyError("cannot add the result of trial " + result.trialId + " to " +
                              replyTo + ": " + replies[0].text);
  });
}

void TrialConsumer::finish(const std::string& entryId, const RetryPolicy& policy) {
  // Only now that the result is in Redis: acknowledged, and deleted so the stream stays small.
  retryUnreachable(policy, [&] {
    m_redis.pipeline({{"XACK", m_stream, kConsumerGroup, entryId}, {"XDEL", m_stream, entryId}});
  });
  setCurrent({}, {});
}

bool TrialConsumer::touchCurrent(RedisConnection& redis) {
  std::lock_guard lock(m_touchMutex);
  const std::string entry = currentEntry();
  return !entry.empty() && touchEntry(redis, m_stream, m_options.consumer, entry);
}

void TrialConsumer::giveBack(const Taken& taken) {
  setCurrent({}, {});
  {
    // A touch under way would make the trial look fresh again after it is handed back.
    std::lock_guard wait(m_touchMutex);
  }
  try {
    // Once: a consumer stopping does not wait for an outage to end. An unreachable cluster keeps
    // the trial pending, and it is reclaimed as a dead consumer's would be.
    handBack(m_redis, m_stream, m_options.consumer, taken.entry.id, taken.deliveries - 1);
    if (m_policy.notice)
      m_policy.notice("stopping: handed back trial " +
                      taken.entry.fieldOr("trial", taken.entry.id) +
                      " unmeasured, for another agent to take at once");
  } catch (const std::exception& e) {
    if (m_policy.notice)
      m_policy.notice("stopping: could not hand back trial " +
                      taken.entry.fieldOr("trial", taken.entry.id) + " (" + e.what() +
                      "); another agent takes it over after --reclaim-after");
  }
}

void TrialConsumer::answer(const Taken& taken) {
  const StreamEntry& e = taken.entry;
  const auto started = std::chrono::steady_clock::now();
  setCurrent(e.id, e.fieldOr("trial", e.id));
  TrialResult result;
  result.agent = m_options.agentId;
  result.device = m_options.deviceName;
  result.trialId = e.fieldOr("trial", "");
  auto fail = [&](TrialStatus status, const std::string& why) {
    result.measurement.status = status;
    result.measurement.message = why;
  };
  auto stopping = [&] { return m_policy.cancel && m_policy.cancel->load(); };
  // A result in hand is posted even while stopping: it cost the measurement, and a trial left
  // pending would wait out the reclaim time and count as a delivery toward maxDeliveries.
  RetryPolicy finishing = m_policy;
  finishing.cancel = nullptr;
  try {
    TrialRequest request;
    try {
      request = parseRequest(e);
    } catch (const ClusterMessageError& err) {
      if (m_policy.notice) m_policy.notice(std::string("refused ") + err.what());
      const std::string replyTo = e.fieldOr("reply", "");
      // Without a trial id or a reply address nobody can be told; the request is dropped.
      if (!replyTo.empty() && !result.trialId.empty()) {
        fail(TrialStatus::LaunchError,
             "agent " + m_options.agentId + " could not read the request: " + err.what());
        post(replyTo, result, finishing);
      }
      finish(e.id, finishing);
      return;
    }
    if (taken.deliveries > m_options.maxDeliveries) {
      fail(TrialStatus::RuntimeFault,
           "delivered " + std::to_string(taken.deliveries - 1) +
               " times without a result: every agent that took it stopped answering (the kernel "
               "may crash or hang its agent), so it is not measured again");
      if (m_policy.notice)
        m_policy.notice("trial " + request.trialId + " failed: " + result.measurement.message);
    } else {
      if (stopping()) return giveBack(taken);
      bool masterAlive = false;
      try {
        masterAlive = retryUnreachable(m_policy, [&] {
          return m_redis.call({"EXISTS", request.master}).integer > 0;
        });
      } catch (const RetryCancelled&) {
        return giveBack(taken);
      }
      if (!masterAlive) {
        // Its master died (a resumed run proposes afresh): nobody waits for this result.
        finish(e.id, finishing);
        return;
      }
      try {
        const TrialHandler::Answer a = m_handler.handle(request);
        result.measurement = a.measurement;
        result.library = a.library;
        result.agentFault = a.agentFault;
      } catch (const std::exception& err) {
        fail(TrialStatus::LaunchError, err.what());
        result.agentFault = true;
      }
      if (result.agentFault) {
        result.measurement.message =
            "agent " + m_options.agentId + " cannot measure: " + result.measurement.message;
        if (m_policy.notice)
          m_policy.notice("cannot measure trial " + request.trialId + ": " +
                          result.measurement.message +
                          " (its master stops the run, resumable once this is fixed)");
      }
    }
    result.tookMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    post(request.replyTo, result, finishing);
    finish(e.id, finishing);
    ++(request.type == RequestType::Reference ? m_references
       : request.retiming                     ? m_retimings
                                              : m_done);
  } catch (const RetryCancelled&) {
    setCurrent({}, {});
  }
}

}  // namespace opevo::cluster
