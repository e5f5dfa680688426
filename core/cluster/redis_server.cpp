#include "cluster/redis_server.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cluster/cluster_errors.h"
#include "cluster/redis_connection.h"
#include "common/child_process.h"
#include "common/error.h"

namespace opevo::cluster {
namespace {

namespace fs = std::filesystem;

// A value in double quotes as redis.conf reads it.
std::string quoted(const std::string& text, const std::string& what) {
  std::string out = "\"";
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      throw InputError(what + " must not hold control characters or line breaks");
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// "7.0.15" -> 70015, to compare with 6.2.0.
long versionNumber(const std::string& v) {
  long major = 0, minor = 0, patch = 0;
  std::sscanf(v.c_str(), "%ld.%ld.%ld", &major, &minor, &patch);
  return major * 10000 + minor * 100 + patch;
}

}  // namespace

RedisServer::RedisServer(RedisServerOptions options) : m_options(std::move(options)) {
  if (m_options.password.empty())
    throw InputError(
        "the cluster needs a password: set OPEVO_CLUSTER_PASSWORD or give "
        "--password-file FILE");
  if (m_options.port < 0 || m_options.port > 65535)
    throw InputError("--port must be 0-65535, got " + std::to_string(m_options.port));
  if (m_options.port == 0 && m_options.unixSocket.empty())
    throw InputError("--port 0 turns TCP off, so a Unix socket is needed");
  std::error_code ec;
  fs::create_directories(m_options.dir, ec);
  if (ec || !fs::is_directory(m_options.dir))
    throw InputError("--dir '" + m_options.dir + "' cannot be made: " + ec.message());
  // The append-only files hold every trial request: keep them to their owner too.
  fs::permissions(m_options.dir, fs::perms::owner_all, ec);
  m_options.dir = fs::absolute(m_options.dir).string();
  m_config = (fs::path(m_options.dir) / "redis.conf").string();
  writeConfig();
  start();
}

RedisServer::~RedisServer() {
  stop();
}

void RedisServer::writeConfig() const {
  std::ostringstream c;
  c << "# Written by opevo cluster serve. It holds the cluster's password: only its owner may\n"
    << "# read it (mode 0600). Rewritten at each start.\n"
    << "bind " << m_options.bind << "\n"
    << "port " << m_options.port << "\n"
    << "protected-mode yes\n"
    << "daemonize no\n"
    << "dir " << quoted(m_options.dir, "--dir") << "\n"
    << "logfile " << quoted((fs::path(m_options.dir) / "redis.log").string(), "--dir") << "\n"
    << "requirepass " << quoted(m_options.password, "the cluster password")
    << "\n"
    // Every write reaches the file before its reply, so a killed server loses nothing it
    // acknowledged; the disk is synced each second.
    << "appendonly yes\n"
    << "appendfsync everysec\n"
    << "save \"\"\n";
  if (!m_options.unixSocket.empty())
    c << "unixsocket " << quoted(m_options.unixSocket, "the socket path") << "\n"
      << "unixsocketperm 700\n";
  const std::string text = c.str();
  const int fd = ::open(m_config.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw InputError("cannot write " + m_config);
  // An older file may have had a wider mode: narrow it before the password goes in.
  fchmod(fd, 0600);
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok) throw InputError("cannot write " + m_config);
}

ClusterEndpoint RedisServer::endpoint() const {
  if (!m_options.unixSocket.empty()) {
    ClusterEndpoint e;
    e.unixPath = m_options.unixSocket;
    return e;
  }
  return *tcpEndpoint();
}

std::optional<ClusterEndpoint> RedisServer::tcpEndpoint() const {
  if (m_options.port == 0) return std::nullopt;
  ClusterEndpoint e;
  // The first address it binds; a wildcard is reached through loopback.
  std::string host = m_options.bind.substr(0, m_options.bind.find(' '));
  if (host == "0.0.0.0" || host == "*") host = "127.0.0.1";
  if (host == "::" || host == "::0") host = "::1";
  e.host = host;
  e.port = m_options.port;
  return e;
}

std::string RedisServer::logTail() const {
  std::string tail;
  for (const char* name : {"redis.out", "redis.log"}) {
    std::ifstream in(fs::path(m_options.dir) / name);
    std::string line, last;
    std::vector<std::string> lines;
    while (std::getline(in, line)) lines.push_back(line);
    for (std::size_t i = lines.size() > 6 ? lines.size() - 6 : 0; i < lines.size(); ++i)
      tail += "\n  " + lines[i];
  }
  return tail;
}

void RedisServer::start() {
  if (m_pid > 0) return;
  ChildStreams streams;
  streams.stdoutFile = (fs::path(m_options.dir) / "redis.out").string();
  streams.stderrToStdout = true;
  try {
    m_pid = startChild({m_options.program, m_config}, streams);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string(e.what()) +
                             " (install redis-server, e.g. apt install redis-server)");
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  std::string lastError;
  while (true) {
    if (const auto status = exited())
      throw std::runtime_error("redis-server exited with status " + std::to_string(*status) +
                               " as it started; the end of its output:" + logTail());
    try {
      RedisConnection probe(endpoint(), m_options.password, {1, 5});
      probe.connect();
      const RedisValue info = probe.call({"INFO", "server"});
      const auto at = info.text.find("redis_version:");
      if (at != std::string::npos)
        m_version = info.text.substr(at + 14, info.text.find('\r', at) - at - 14);
      break;
    } catch (const ClusterUnreachable& e) {
      lastError = e.what();
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill();
      throw std::runtime_error("redis-server did not answer within 15 s (" + lastError +
                               "); the end of its output:" + logTail());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (versionNumber(m_version) < 60200) {
    stop();
    throw std::runtime_error("redis-server " + m_version +
                             " is too old: the cluster needs Redis 6.2 or newer (XAUTOCLAIM)");
  }
}

std::optional<int> RedisServer::exited() {
  if (m_pid <= 0) return std::nullopt;
  int status = 0;
  if (waitpid(m_pid, &status, WNOHANG) != m_pid) return std::nullopt;
  m_pid = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void RedisServer::stop() {
  if (m_pid <= 0) return;
  ::kill(m_pid, SIGTERM);
  bool timedOut = false;
  waitChild(m_pid, 30, &timedOut);
  m_pid = -1;
}

void RedisServer::kill() {
  if (m_pid <= 0) return;
  ::kill(m_pid, SIGKILL);
  waitChild(m_pid);
  m_pid = -1;
}

}  // namespace opevo::cluster
