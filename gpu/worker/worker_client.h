#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/measurement.h"

namespace opevo {

// The engine's end of one opevo-worker process. A request that crashes or hangs the worker costs
// only that process: call() reports what happened, and the next call starts a fresh worker.
class WorkerClient {
 public:
  explicit WorkerClient(std::string workerPath = defaultWorkerPath());
  ~WorkerClient();
  WorkerClient(const WorkerClient&) = delete;
  WorkerClient& operator=(const WorkerClient&) = delete;

  struct Reply {
    bool ok = false;                        // the worker answered
    nlohmann::json body;                    // its answer
    TrialStatus failure = TrialStatus::Ok;  // Timeout or RuntimeFault when it did not
    std::string message;
    // From the call to its answer or failure: a fresh worker's start, the request's work, a
    // killed worker's reaping.
    double seconds = 0;
  };
  // timeoutSeconds is the request's: a fresh worker answers a hello first (within as long
  // again), so its start, the process and its shared libraries loaded, is not counted against
  // the request, as TimingOptions::trialMs is counted in it from its taking the request. (A GPU
  // worker creates its device context within its first request still.)
  Reply call(const nlohmann::json& request, double timeoutSeconds);

  int restarts() const { return m_restarts; }
  pid_t pid() const { return m_pid; }

  // $OPEVO_WORKER, else opevo-worker beside the running executable, else on PATH.
  static std::string defaultWorkerPath();
  // Why no worker can be started from `path` (defaultWorkerPath()'s answer, or a path given),
  // saying where it was looked for and naming OPEVO_WORKER; nullopt when there is one to start.
  // Asked before a run is stored: a missing worker otherwise failed the run at its first trial,
  // leaving a "failed, 0 trials" run per attempt.
  static std::optional<std::string> missingWorker(const std::string& path);

 private:
  Reply exchange(const nlohmann::json& request, double timeoutSeconds);  // call() but its clock
  void start();
  void stop(bool kill);
  std::string describeExit();

  std::string m_path;
  pid_t m_pid = -1;
  int m_toWorker = -1;
  int m_fromWorker = -1;
  std::string m_buffer;
  int m_restarts = -1;  // the first start is not a restart
};

}  // namespace opevo
