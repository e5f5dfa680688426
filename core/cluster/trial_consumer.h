#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cluster/redis_connection.h"
#include "cluster/retry.h"
#include "cluster/trial_messages.h"

namespace opevo::cluster {

// What an agent does with a trial: measure it on its device. Never throws for a trial it cannot
// measure; that is a failed measurement with its reason.
class TrialHandler {
 public:
  virtual ~TrialHandler() = default;
  struct Answer {
    Measurement measurement;
    std::string library;  // a reference's library
    // The handler could not measure at all (TrialResult::agentFault): the machine's fault, not
    // the configuration's. An exception out of handle() counts as one too.
    bool agentFault = false;
  };
  virtual Answer handle(const TrialRequest& request) = 0;
};

struct ConsumerOptions {
  std::string kind;        // the stream it reads
  std::string consumer;    // its name in the consumer group, unique in the cluster
  std::string agentId;     // named in its results
  std::string deviceName;  // named in its results
  // A trial held this long by a consumer that stopped touching it (dead, or stopped with
  // SIGSTOP) is taken over. A live consumer touches its trial far more often than this.
  double reclaimAfterSeconds = 15;
  // A trial delivered this many times without a result (each consumer that took it died) is
  // answered as failed instead of being measured again: it may be what kills them.
  int maxDeliveries = 3;
  double blockSeconds = 1;  // how long one read waits, so a shutdown is seen this quickly
};

// One consumer of a device kind's stream: takes a trial (first any that a dead consumer left
// behind, then new ones), measures it with the handler, adds the result to the master's results
// stream and only then acknowledges and deletes the request. A crash anywhere before the
// acknowledgement leaves the trial pending, to be reclaimed; one after it loses nothing. Told to
// stop (RetryPolicy::cancel), it still posts the result it is measuring, however long the
// cluster takes to answer (the time is spent anyway); a trial taken but not started yet is
// handed back at once (handBack), its delivery uncounted.
class TrialConsumer {
 public:
  TrialConsumer(ClusterEndpoint endpoint, std::string password, ConsumerOptions options,
                TrialHandler& handler, RetryPolicy policy);

  // Until *policy.cancel is set. Throws ClusterAuthError (a wrong password is not retried).
  // Trials pending under its consumer name when it starts were left by a process of the same
  // name that died (an agent killed and started again at once): they are handed back first,
  // for any agent to take at once, instead of waiting out reclaimAfterSeconds.
  void run();

  // The stream entry it is measuring, empty when idle. Thread-safe.
  std::string currentEntry() const;
  // The agent's keep-alive, from its heartbeat thread on a connection of its own: touches the
  // entry it is measuring (touchEntry). False when idle or when another consumer holds it now.
  bool touchCurrent(RedisConnection& redis);
  std::string currentTrial() const;
  // Trials answered (references apart: a run's reference timing is not one of its trials).
  long long done() const { return m_done.load(); }
  // Reference measurements (a vendor library's time on the operator) answered.
  long long references() const { return m_references.load(); }
  // Configurations timed again beside the reference (TrialRequest::retiming) answered.
  long long retimings() const { return m_retimings.load(); }
  const ConsumerOptions& options() const { return m_options; }

 private:
  struct Taken {
    StreamEntry entry;
    long long deliveries = 1;
  };
  bool take(Taken& out);
  void answer(const Taken& taken);
  // Hands the trial back as untaken (a polite stop before measuring it); said, best effort.
  void giveBack(const Taken& taken);
  void post(const std::string& replyTo, const TrialResult& result, const RetryPolicy& policy);
  void finish(const std::string& entryId, const RetryPolicy& policy);
  void setCurrent(const std::string& entry, const std::string& trial);

  RedisConnection m_redis;
  ConsumerOptions m_options;
  TrialHandler& m_handler;
  RetryPolicy m_policy;
  std::string m_stream;
  std::atomic<long long> m_done{0};
  std::atomic<long long> m_references{0};
  std::atomic<long long> m_retimings{0};
  mutable std::mutex m_mutex;
  std::mutex m_touchMutex;  // held across a touch, so a hand-back waits for one under way
  std::string m_currentEntry, m_currentTrial;
};

// Creates the consumer group on the stream (and the stream) when missing: from the stream's
// beginning, so requests added before any agent started are served.
void ensureGroup(RedisConnection& redis, const std::string& stream);

// Resets the idle time of an entry this consumer still holds, so a trial that is merely slow is
// not taken over (its delivery count stays). False when another consumer holds it now.
bool touchEntry(RedisConnection& redis, const std::string& stream, const std::string& consumer,
                const std::string& entryId);

// Makes an entry this consumer holds look long forgotten, so the next agent that looks for
// trials to take over (XAUTOCLAIM, within a second) takes it at once instead of after its
// reclaim time. deliveries: what its delivery count becomes (that agent's claim adds one): the
// count it had less one for a trial given back unmeasured (a polite stop is no delivery), or
// std::nullopt to keep it (a consumer that died with it: that delivery counts toward
// ConsumerOptions::maxDeliveries). False when another consumer holds it now.
bool handBack(RedisConnection& redis, const std::string& stream, const std::string& consumer,
              const std::string& entryId, std::optional<long long> deliveries);

// The entries pending under a consumer name, oldest first (at most 100).
std::vector<std::string> heldEntries(RedisConnection& redis, const std::string& stream,
                                     const std::string& consumer);

}  // namespace opevo::cluster
