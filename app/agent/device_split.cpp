#include "agent/device_split.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "backends/cluster_backend.h"
#include "common/child_process.h"

namespace opevo::agent {
namespace {

// The i-th entry of a visibility list the user already narrowed, else i itself.
std::string visibleDevice(const char* variable, int i) {
  const char* set = std::getenv(variable);
  if (!set || !*set) return std::to_string(i);
  std::string list = set;
  for (int k = 0; k < i; ++k) {
    const auto comma = list.find(',');
    if (comma == std::string::npos) return std::to_string(i);
    list = list.substr(comma + 1);
  }
  return list.substr(0, list.find(','));
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace

std::optional<int> runPerDeviceAgents(const std::string& self, const AgentOptions& o,
                                      const std::atomic<bool>& stop) {
  if (o.backend != "cuda" && o.backend != "hip") return std::nullopt;
  const int count = localDeviceCount(o.backend);
  if (count <= 1) return std::nullopt;
  const char* variable = o.backend == "cuda" ? "CUDA_VISIBLE_DEVICES" : "HIP_VISIBLE_DEVICES";
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::string id =
      o.name.empty() ? std::string(host) + "-" + std::to_string(getpid()) : o.name;
  // Children read the password from the environment (only their owner can see it), never argv.
  setenv("OPEVO_CLUSTER_PASSWORD", o.password.c_str(), 1);
  std::vector<std::string> visible;
  for (int i = 0; i < count; ++i) visible.push_back(visibleDevice(variable, i));
  auto startOne = [&](int i) {
    std::vector<std::string> args = {self,
                                     "--cluster",
                                     o.endpoint.text(),
                                     "--backend",
                                     o.backend,
                                     "--name",
                                     id + "-gpu" + std::to_string(i),
                                     "--reclaim-after",
                                     number(o.reclaimAfterSeconds),
                                     "--heartbeat",
                                     number(o.heartbeatSeconds)};
    if (o.quiet) args.push_back("--quiet");
    // Set around the start only: this supervisor has no other threads to see it change.
    setenv(variable, visible[static_cast<std::size_t>(i)].c_str(), 1);
    const pid_t pid = startChild(args);
    std::fprintf(stderr, "agent %s: device %d (%s=%s) is measured by agent %s-gpu%d, pid %ld\n",
                 id.c_str(), i, variable, visible[static_cast<std::size_t>(i)].c_str(), id.c_str(),
                 i, static_cast<long>(pid));
    return pid;
  };
  std::vector<pid_t> children;
  for (int i = 0; i < count; ++i) children.push_back(startOne(i));
  int result = 0;
  while (!stop.load() && result == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    for (int i = 0; i < count; ++i) {
      int status = 0;
      if (children[i] <= 0 || waitpid(children[i], &status, WNOHANG) != children[i]) continue;
      children[i] = -1;
      if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        // A refused password or a bad option: every child would say the same.
        result = WEXITSTATUS(status);
        break;
      }
      if (WIFSIGNALED(status) && !stop.load()) {
        std::fprintf(stderr,
                     "agent %s: the agent of device %d died of signal %d; starting it "
                     "again\n",
                     id.c_str(), i, WTERMSIG(status));
        std::this_thread::sleep_for(std::chrono::seconds(1));
        children[i] = startOne(i);
      }
    }
  }
  for (pid_t pid : children)
    if (pid > 0) ::kill(pid, SIGTERM);
  for (pid_t pid : children)
    if (pid > 0) waitChild(pid);
  return result;
}

}  // namespace opevo::agent
