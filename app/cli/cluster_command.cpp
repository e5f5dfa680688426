// opevo cluster serve|status, and opevo agent (which runs opevo-agent, installed beside us).
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/commands.h"
#include "cluster/agent_registry.h"
#include "cluster/cluster_errors.h"
#include "cluster/cluster_password.h"
#include "cluster/redis_server.h"
#include "cluster/trial_messages.h"
#include "cluster/trial_queues.h"
#include "common/error.h"
#include "space/text.h"
#include "store/store.h"

namespace opevo::cli {
namespace {

namespace fs = std::filesystem;

struct ServeArgs {
  std::string bind = "127.0.0.1";
  int port = 6390;
  std::string dir;
  std::string passwordFile;
  std::string unixSocket;
};

struct StatusArgs {
  std::string cluster;
  std::string passwordFile;
  bool json = false;
};

std::atomic<bool> g_stop{false};

void warnAboutPasswordFile(const std::string& passwordFile) {
  if (const auto warning = cluster::passwordFileWarning(passwordFile))
    std::fprintf(stderr, "opevo: warning: %s\n", warning->c_str());
}

void onStop(int) {
  g_stop.store(true);
}

std::string defaultClusterDir() {
  return (fs::path(Store::defaultPath()).parent_path() / "cluster").string();
}

void runServe(const ServeArgs& a) {
  cluster::RedisServerOptions o;
  o.dir = a.dir.empty() ? defaultClusterDir() : a.dir;
  o.bind = a.bind;
  o.port = a.port;
  o.unixSocket = a.unixSocket;
  o.password = cluster::clusterPassword(a.passwordFile);
  if (o.password.empty())
    throw InputError("the cluster needs a password, and none was given: " +
                     cluster::passwordHint() + " (agents and masters use the same one)");
  cluster::checkServePassword(o.password);
  warnAboutPasswordFile(a.passwordFile);
  std::signal(SIGINT, onStop);
  std::signal(SIGTERM, onStop);
  // The terminal closed: stop redis-server as for Ctrl-C (it would go on holding the port).
  std::signal(SIGHUP, onStop);
  cluster::RedisServer server(o);
  const std::string where = server.endpoint().text();
  std::printf("cluster listening on %s (redis-server %s, pid %ld), data in %s\n", where.c_str(),
              server.version().c_str(), static_cast<long>(server.pid()),
              server.options().dir.c_str());
  if (server.tcpEndpoint() && !a.unixSocket.empty())
    std::printf("also on %s\n", server.tcpEndpoint()->text().c_str());
  const bool local = a.bind == "127.0.0.1" || a.bind == "::1" || a.bind == "localhost";
  if (!server.tcpEndpoint())
    std::printf(
        "no TCP port (--port 0): it listens on the Unix socket %s only, so only processes of "
        "this machine that may open it (its owner's) can connect\n",
        a.unixSocket.c_str());
  else if (local)
    std::printf(
        "bound to %s: only this machine can connect (--bind ADDR for other nodes; across "
        "untrusted networks use an SSH tunnel or a VPN: there is no TLS)\n",
        a.bind.c_str());
  else
    std::printf(
        "bound to %s: reachable from other machines; the password is the only guard "
        "and travels unencrypted (no TLS): keep this on a trusted network or a VPN\n",
        a.bind.c_str());
  std::printf(
      "agents:  opevo agent --cluster %s --backend cpu|cuda|hip|replay:FILE\n"
      "masters: opevo tune --cluster %s ...   status: opevo cluster status --cluster %s\n"
      "Ctrl-C stops it; its data stays in %s for the next start\n",
      where.c_str(), where.c_str(), where.c_str(), server.options().dir.c_str());
  std::fflush(stdout);
  while (!g_stop.load()) {
    if (const auto ended = server.exited())
      throw RunFailed("redis-server " + ended->describe() + "; its data is kept in " +
                      server.options().dir +
                      ": opevo cluster serve with the same --dir starts it again from there");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  server.stop();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGHUP, SIG_DFL);
  std::printf("cluster stopped; its data is kept in %s\n", server.options().dir.c_str());
}

std::string age(long long beatMs) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s ago", double(cluster::nowMs() - beatMs) / 1000.0);
  return text;
}

void runStatus(const StatusArgs& a) {
  const cluster::ClusterEndpoint endpoint = cluster::parseEndpoint(a.cluster);
  warnAboutPasswordFile(a.passwordFile);
  cluster::RedisConnection redis(endpoint, cluster::clusterPassword(a.passwordFile));
  std::vector<std::string> problems;
  std::vector<cluster::AgentRecord> agents;
  nlohmann::json streams = nlohmann::json::array();
  try {
    agents = cluster::liveAgents(redis, &problems);
    for (const cluster::TrialQueue& q : cluster::trialQueues(redis))
      streams.push_back({{"kind", q.kind}, {"waiting", q.waiting}, {"in_flight", q.inFlight}});
  } catch (const cluster::ClusterWrongAddress& e) {
    throw InputError(e.what());
  } catch (const cluster::ClusterUnreachable& e) {
    throw InputError(std::string(e.what()) + " (is opevo cluster serve running there?)");
  }
  if (a.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const cluster::AgentRecord& agent : agents) list.push_back(cluster::toJson(agent));
    std::cout << nlohmann::json{{"cluster", endpoint.text()},
                                {"agents", list},
                                {"streams", streams},
                                {"problems", problems}}
                     .dump(2)
              << "\n";
    return;
  }
  std::printf("cluster %s: %s\n", endpoint.text().c_str(),
              counted(static_cast<long long>(agents.size()), "live agent", "live agents").c_str());
  for (const cluster::AgentRecord& agent : agents) {
    std::printf("  %s on %s (pid %ld, %s), %s, heartbeat %s\n", agent.id.c_str(),
                agent.host.c_str(), agent.pid, agent.backend.c_str(),
                counted(agent.trialsDone(), "trial", "trials").c_str(), age(agent.beatMs).c_str());
    for (const cluster::ClusterDevice& d : agent.devices) {
      std::printf(
          "    %s: %s%s%s\n", d.name.c_str(), counted(d.trialsDone, "trial", "trials").c_str(),
          d.delayMs ? (", simulated " + std::to_string(d.delayMs) + " ms per trial").c_str() : "",
          d.current.empty() ? ", idle" : (", measuring " + d.current).c_str());
      std::printf("      kind %s\n", d.kind.c_str());
    }
  }
  for (const auto& s : streams)
    std::printf("queue %s: %lld waiting, %lld being measured\n",
                s["kind"].get<std::string>().c_str(), s["waiting"].get<long long>(),
                s["in_flight"].get<long long>());
  for (const std::string& p : problems) std::printf("unreadable: %s\n", p.c_str());
}

// opevo-agent beside this program, else on PATH.
std::string agentProgram() {
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && fs::exists(self.parent_path() / "opevo-agent", ec))
    return (self.parent_path() / "opevo-agent").string();
  return "opevo-agent";
}

}  // namespace

void addClusterCommands(CLI::App& app) {
  auto* cl = app.add_subcommand(
      "cluster", "A measurement cluster on Redis Streams: serve it, look at its agents");
  cl->require_subcommand(1);

  auto s = std::make_shared<ServeArgs>();
  auto* serve = cl->add_subcommand(
      "serve", "Run the cluster's redis-server in the foreground (password of " +
                   std::to_string(cluster::kMinPasswordLength) +
                   " characters or more from --password-file, OPEVO_CLUSTER_PASSWORD or "
                   "OPEVO_CLUSTER_PASSWORD_FILE; data kept in --dir)");
  serve->add_option("--bind", s->bind,
                    "Address(es) to listen on (default 127.0.0.1: this machine only)");
  serve->add_option("--port", s->port, "TCP port (default 6390; 0: the Unix socket only)");
  serve->add_option("--dir", s->dir,
                    "Its config, log and append-only files (default: " + defaultClusterDir() + ")");
  serve->add_option("--password-file", s->passwordFile, cluster::passwordFileHelp());
  serve->add_option("--unix-socket", s->unixSocket, "Also listen on this Unix socket");
  serve->callback([s] { runServe(*s); });

  auto st = std::make_shared<StatusArgs>();
  auto* status = cl->add_subcommand("status", "Live agents, their devices and trials done");
  status->add_option("--cluster", st->cluster, "HOST:PORT or unix:PATH")->required();
  status->add_option("--password-file", st->passwordFile, cluster::passwordFileHelp());
  status->add_flag("--json", st->json, "Print one JSON object");
  status->callback([st] { runStatus(*st); });

  auto* agent =
      app.add_subcommand("agent",
                         "Measure a cluster's trials on this machine's devices (runs opevo-agent; "
                         "opevo agent --help lists its options)");
  agent->prefix_command();
  agent->set_help_flag();
  agent->callback([agent] {
    std::vector<std::string> args = {agentProgram()};
    for (const std::string& r : agent->remaining()) args.push_back(r);
    std::vector<char*> argv;
    for (std::string& x : args) argv.push_back(x.data());
    argv.push_back(nullptr);
    std::fflush(nullptr);
    execvp(argv[0], argv.data());
    throw InputError("cannot run " + args[0] + ": " + std::strerror(errno) +
                     " (it is installed beside opevo)");
  });
}

}  // namespace opevo::cli
