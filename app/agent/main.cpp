// opevo-agent (also run as `opevo agent`): measures a cluster's trials on this machine's devices.
#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>

#include "agent/agent.h"
#include "agent/device_split.h"
#include "cli/option_checks.h"
#include "cluster/cluster_errors.h"
#include "cluster/cluster_password.h"
#include "cluster/redis_connection.h"
#include "common/error.h"
#include "common/openmp_waiting.h"

namespace {

std::atomic<bool> g_stop{false};

// The first Ctrl-C (SIGTERM, SIGHUP) stops the agent once the trial it measures is answered;
// a second ends it at once, as the signal would have (its trial is then taken over by another
// agent after --reclaim-after, as a killed agent's).
void onStop(int sig) {
  if (g_stop.exchange(true)) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

std::string selfPath(const char* argv0) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? argv0 : self.string();
}

}  // namespace

int main(int argc, char** argv) {
  opevo::boundOpenMpWaiting(argv);  // may run the program anew, before anything else
  CLI::App app{
      "OpEvo Studio agent: measures a cluster's trials on this machine's devices, one "
      "consumer and one worker process per device"};
  app.name("opevo agent");
  std::string cluster, passwordFile;
  opevo::agent::AgentOptions o;
  app.add_option("--cluster", cluster, "The cluster's Redis: HOST:PORT or unix:PATH")->required();
  app.add_option("--backend", o.backend, "cpu, cuda, hip or replay:FILE")->required();
  app.add_option("--delay-ms", o.delayMs,
                 "Replay only: simulated measurement time per trial, for scaling tests")
      ->check(opevo::cli::atLeast(0));
  app.add_option("--password-file", passwordFile, opevo::cluster::passwordFileHelp());
  app.add_option("--reclaim-after", o.reclaimAfterSeconds,
                 "Seconds a trial held by a consumer that stopped answering waits before this "
                 "agent takes it over (default 15)")
      ->check(opevo::cli::positiveFinite());
  app.add_option("--heartbeat", o.heartbeatSeconds,
                 "Seconds between heartbeats (default 2); the agent counts as gone after 5 "
                 "missed")
      ->check(opevo::cli::positiveFinite());
  app.add_option("--name", o.name, "Its id in the cluster (default: HOST-PID)");
  app.add_flag("--quiet", o.quiet, "Only errors on standard error");
  app.add_flag("--share-hardware", o.shareHardware,
               "Serve even when another agent of this host measures on the same cores or GPU "
               "(refused by default: both would record each other's load)");
  opevo::cli::checkNumbers(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "opevo agent: " << e.what() << " (see opevo agent --help)\n";
    return 2;
  }
  try {
    o.endpoint = opevo::cluster::parseEndpoint(cluster);
    o.password = opevo::cluster::clusterPassword(passwordFile);
    if (const auto warning = opevo::cluster::passwordFileWarning(passwordFile))
      std::cerr << "opevo agent: warning: " << *warning << "\n";
    // A refused password, a host that cannot be resolved and an address where something other
    // than Redis answers are said at once (exit status 2), before a dataset or a device is
    // opened: waiting fixes none of them. A cluster that is down (or restarting) is waited for
    // once the agent runs.
    try {
      opevo::cluster::RedisConnection(o.endpoint, o.password).connect();
    } catch (const opevo::cluster::ClusterWrongAddress& e) {
      throw opevo::InputError(e.what());
    } catch (const opevo::cluster::ClusterUnreachable&) {
    }
    std::signal(SIGINT, onStop);
    std::signal(SIGTERM, onStop);
    // Its terminal closed: stop as for Ctrl-C, answering the trial in hand and saying so.
    std::signal(SIGHUP, onStop);
    if (const auto status = opevo::agent::runPerDeviceAgents(selfPath(argv[0]), o, g_stop))
      return *status;
    opevo::agent::Agent agent(o);
    agent.run(g_stop);
  } catch (const opevo::InputError& e) {
    std::cerr << "opevo agent: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "opevo agent: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
