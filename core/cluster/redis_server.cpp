#include "cluster/redis_server.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

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

bool processAlive(long pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

// The pid a "NAME PID" line of the lock file gives, 0 when none.
long pidOf(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string word;
  long pid = 0;
  while (in >> word >> pid)
    if (word == name) return pid;
  return 0;
}

// A redis-server of this dir that outlived its opevo (one started before this version, which
// did not stop it with its parent): its pid file names it while it runs.
std::string leftoverRedis(const std::string& dir) {
  std::ifstream in(fs::path(dir) / "redis.pid");
  long pid = 0;
  if (!(in >> pid) || !processAlive(pid)) return {};
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  if (name.rfind("redis-server", 0) != 0) return {};
  return "; a redis-server started from " + dir + " is still running (pid " + std::to_string(pid) +
         "): stop it with kill " + std::to_string(pid) + " (it saves its data as it exits)";
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
  // Before its config is written: another server of this dir reads that file too.
  lockDir();
  try {
    writeConfig();
    start();
  } catch (...) {
    ::close(m_lockFd);
    throw;
  }
}

RedisServer::~RedisServer() {
  stop();
  if (m_lockFd >= 0) ::close(m_lockFd);
}

void RedisServer::lockDir() {
  const std::string path = (fs::path(m_options.dir) / "serve.lock").string();
  m_lockFd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (m_lockFd < 0) throw InputError("cannot open " + path + ": " + std::strerror(errno));
  // flock, not fcntl: its lock belongs to the open file, which redis-server inherits, so the dir
  // stays held while the server runs even if this process is killed.
  // Its holder writes its pids into the file just after taking the lock: one that names no live
  // process (empty, or a serve's of before) may be read in between. Read it again for a moment
  // to name the holder, and take the lock if it is let go meanwhile.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  int error = 0;
  long owner = 0, redis = 0;
  while (true) {
    if (flock(m_lockFd, LOCK_EX | LOCK_NB) == 0) {
      recordPids();
      return;
    }
    error = errno;
    if (error != EWOULDBLOCK) break;
    std::string text;
    char buffer[256];
    const ssize_t n = pread(m_lockFd, buffer, sizeof buffer - 1, 0);
    if (n > 0) text.assign(buffer, static_cast<std::size_t>(n));
    owner = pidOf(text, "opevo");
    redis = pidOf(text, "redis-server");
    if (processAlive(owner) || processAlive(redis) || std::chrono::steady_clock::now() > deadline)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::close(m_lockFd);
  m_lockFd = -1;
  if (error != EWOULDBLOCK) throw InputError("cannot lock " + path + ": " + std::strerror(error));
  const std::string redisText =
      redis > 0 && processAlive(redis) ? "redis-server pid " + std::to_string(redis) : "";
  if (owner > 0 && processAlive(owner))
    throw InputError("--dir " + m_options.dir + " is in use by another cluster (opevo pid " +
                     std::to_string(owner) + (redisText.empty() ? "" : ", its " + redisText) +
                     "): one server per directory, since they would share its append-only "
                     "files; stop that one, or give this one another --dir");
  if (!redisText.empty())
    throw InputError("a redis-server started from " + m_options.dir + " is still running (pid " +
                     std::to_string(redis) + "), though the opevo that started it" +
                     (owner > 0 ? " (pid " + std::to_string(owner) + ")" : std::string()) +
                     " is gone: stop it with kill " + std::to_string(redis) +
                     " (it saves its data as it exits), then start the cluster again");
  throw InputError("--dir " + m_options.dir + " is in use by another process (" + path +
                   " is locked): one server per directory");
}

void RedisServer::recordPids() const {
  if (m_lockFd < 0) return;
  std::string text = "opevo " + std::to_string(getpid()) + "\n";
  if (m_pid > 0) text += "redis-server " + std::to_string(m_pid) + "\n";
  if (ftruncate(m_lockFd, 0) != 0) return;
  // Only a message for whoever finds the dir locked: a failed write costs nothing else.
  [[maybe_unused]] const ssize_t n = pwrite(m_lockFd, text.data(), text.size(), 0);
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
    << "pidfile " << quoted((fs::path(m_options.dir) / "redis.pid").string(), "--dir") << "\n"
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

void RedisServer::checkAddressesFree() const {
  const std::string port = std::to_string(m_options.port);
  if (m_options.port > 0) {
    std::istringstream items(m_options.bind);
    std::string item;
    while (items >> item) {
      // Redis's own forms: "-ADDR" may be missing, "*" and "::*" are every address.
      const bool optional = item.front() == '-';
      std::string host = optional ? item.substr(1) : item;
      if (host == "*") host = "0.0.0.0";
      if (host == "::*") host = "::";
      addrinfo hints{};
      hints.ai_socktype = SOCK_STREAM;
      hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
      addrinfo* found = nullptr;
      const int rv = getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
      if (rv != 0) {
        if (optional) continue;
        throw InputError("--bind '" + item + "' is not an address of this machine (" +
                         gai_strerror(rv) + ")");
      }
      const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
      int error = 0;
      if (fd >= 0) {
        const int on = 1;
        // As redis-server binds: a port whose last connections linger in TIME_WAIT is free.
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        if (found->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
        if (::bind(fd, found->ai_addr, found->ai_addrlen) != 0) error = errno;
        ::close(fd);
      }
      freeaddrinfo(found);
      if (error == EADDRINUSE)
        throw InputError("port " + port + " is in use on " + host +
                         ": another program listens there (another cluster? opevo cluster "
                         "status --cluster " +
                         (host == "0.0.0.0" ? "127.0.0.1" : host) + ":" + port +
                         " tells); choose another --port" + leftoverRedis(m_options.dir));
      if (error == EADDRNOTAVAIL && !optional)
        throw InputError("cannot listen on " + host +
                         ": it is not an address of this machine "
                         "(--bind takes addresses of this machine's own interfaces, e.g. "
                         "127.0.0.1, or 0.0.0.0 for all)");
      if (error == EACCES)
        throw InputError("port " + port +
                         " is reserved for root on this machine: choose a port "
                         "above 1023");
    }
  }
  if (!m_options.unixSocket.empty()) {
    // redis-server would unlink a live socket and take its clients' address over.
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    if (m_options.unixSocket.size() >= sizeof a.sun_path)
      throw InputError("--unix-socket '" + m_options.unixSocket + "' is too long (at most " +
                       std::to_string(sizeof a.sun_path - 1) + " bytes)");
    std::memcpy(a.sun_path, m_options.unixSocket.c_str(), m_options.unixSocket.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const bool live = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    if (fd >= 0) ::close(fd);
    if (live)
      throw InputError("the socket " + m_options.unixSocket +
                       " is in use: another server listens on it; choose another --unix-socket");
  }
}

pid_t RedisServer::spawn() {
  ChildStreams streams;
  streams.stdinFromNull = true;
  streams.stdoutFile = (fs::path(m_options.dir) / "redis.out").string();
  streams.stdoutFileMode = 0600;  // a private dir's log: its owner's alone
  streams.stderrToStdout = true;
  // SIGTERM (Redis saves and exits) if opevo dies without stopping it; and the dir's lock, held
  // by the server too, so the dir stays taken while it runs.
  ChildLifetime lifetime;
  lifetime.endsWithParent = true;
  lifetime.passFd = m_lockFd;
  try {
    return startChild({m_options.program, m_config}, streams, lifetime);
  } catch (const std::runtime_error& e) {
    const bool missing = std::string(e.what()).find("not found on PATH") != std::string::npos;
    throw std::runtime_error(
        std::string(e.what()) +
        (missing ? " (install redis-server, e.g. apt install redis-server)" : ""));
  }
}

void RedisServer::start() {
  if (m_pid > 0) return;
  checkAddressesFree();
  m_pid = spawn();
  recordPids();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  std::string lastError;
  while (true) {
    if (const auto ended = exited()) {
      recordPids();
      const std::string tail = logTail();
      // Taken between the check above and its bind, or missed by the check.
      if (tail.find("Address already in use") != std::string::npos)
        throw InputError("port " + std::to_string(m_options.port) + " is in use on " +
                         m_options.bind +
                         ": another program listens there; choose another "
                         "--port" +
                         leftoverRedis(m_options.dir) + ". The end of its log:" + tail);
      if (tail.find("Cannot assign requested address") != std::string::npos)
        throw InputError("cannot listen on " + m_options.bind +
                         ": it is not an address of this machine. The end of its log:" + tail);
      if (ended->signal == 0 && ended->status == 127 && tail.find("redis") == std::string::npos)
        throw std::runtime_error("cannot start " + m_options.program +
                                 " (install redis-server, e.g. apt install redis-server)");
      throw std::runtime_error("redis-server " + ended->describe() +
                               " as it started; the end of its output:" + tail);
    }
    try {
      RedisConnection probe(endpoint(), m_options.password, {1, 5});
      probe.connect();
      const RedisValue info = probe.call({"INFO", "server"});
      const auto at = info.text.find("redis_version:");
      if (at != std::string::npos)
        m_version = info.text.substr(at + 14, info.text.find('\r', at) - at - 14);
      // Another server may answer at the address before ours has bound it (and then ours
      // fails): only our own process counts.
      const auto pidAt = info.text.find("process_id:");
      const long answering = pidAt == std::string::npos
                                 ? m_pid
                                 : std::strtol(info.text.c_str() + pidAt + 11, nullptr, 10);
      if (answering == m_pid) break;
      lastError = "another redis-server (pid " + std::to_string(answering) + ") answers there";
    } catch (const ClusterUnreachable& e) {
      lastError = e.what();
    } catch (const ClusterAuthError& e) {
      lastError = "another server answers there: " + std::string(e.what());
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

std::string RedisServer::Exit::describe() const {
  if (signal == 0) return "exited with status " + std::to_string(status);
  // "SIGKILL" where the C library knows the signal's abbreviation (glibc 2.32 and later).
  const char* name = sigabbrev_np(signal);
  return "was killed by signal " + std::to_string(signal) +
         (name ? " (SIG" + std::string(name) + ")" : std::string());
}

std::optional<RedisServer::Exit> RedisServer::exited() {
  if (m_pid <= 0) return std::nullopt;
  int status = 0;
  if (waitpid(m_pid, &status, WNOHANG) != m_pid) return std::nullopt;
  m_pid = -1;
  Exit e;
  if (WIFSIGNALED(status))
    e.signal = WTERMSIG(status);
  else
    e.status = WEXITSTATUS(status);
  return e;
}

void RedisServer::stop() {
  if (m_pid <= 0) return;
  ::kill(m_pid, SIGTERM);
  bool timedOut = false;
  waitChild(m_pid, 30, &timedOut);
  m_pid = -1;
  recordPids();
}

void RedisServer::kill() {
  if (m_pid <= 0) return;
  ::kill(m_pid, SIGKILL);
  waitChild(m_pid);
  m_pid = -1;
  recordPids();
}

}  // namespace opevo::cluster
