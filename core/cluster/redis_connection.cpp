#include "cluster/redis_connection.h"

#include <hiredis/hiredis.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <optional>
#include <utility>

#include "cluster/cluster_errors.h"
#include "cluster/cluster_password.h"

namespace opevo::cluster {
namespace {

timeval toTimeval(double seconds) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(seconds);
  tv.tv_usec = static_cast<suseconds_t>((seconds - double(tv.tv_sec)) * 1e6);
  return tv;
}

RedisValue convert(const redisReply* r) {
  RedisValue v;
  switch (r->type) {
    case REDIS_REPLY_STRING:
      v.type = RedisValue::Type::String;
      v.text.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      v.type = RedisValue::Type::Status;
      v.text.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      v.type = RedisValue::Type::Error;
      v.text.assign(r->str, r->len);
      break;
    case REDIS_REPLY_INTEGER:
      v.type = RedisValue::Type::Integer;
      v.integer = r->integer;
      break;
    case REDIS_REPLY_ARRAY:
      v.type = RedisValue::Type::Array;
      v.elements.reserve(r->elements);
      for (std::size_t i = 0; i < r->elements; ++i) v.elements.push_back(convert(r->element[i]));
      break;
    default:
      break;  // nil
  }
  return v;
}

bool startsWith(const std::string& text, const char* prefix) {
  return text.rfind(prefix, 0) == 0;
}

std::string seconds(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", value);
  return text;
}

// Why a host name cannot be used, when it cannot: EAI_NONAME and the like are the address's
// fault (a typo, a node that is not in DNS); EAI_AGAIN is the resolver's, and may pass.
std::optional<std::pair<std::string, bool>> resolveProblem(const std::string& host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rv = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (found) freeaddrinfo(found);
  if (rv == 0) return std::nullopt;
  const bool permanent = rv != EAI_AGAIN && rv != EAI_SYSTEM && rv != EAI_MEMORY;
  return std::make_pair(std::string(gai_strerror(rv)), permanent);
}

}  // namespace

std::string RedisValue::str() const {
  if (type == Type::String || type == Type::Status) return text;
  if (type == Type::Integer) return std::to_string(integer);
  return {};
}

RedisConnection::RedisConnection(ClusterEndpoint endpoint, std::string password,
                                 ConnectOptions options)
    : m_endpoint(std::move(endpoint)), m_password(std::move(password)), m_options(options) {
  // hiredis writes with write(2): a Redis that died would take the whole process down with
  // SIGPIPE instead of giving us an error to retry on.
  std::signal(SIGPIPE, SIG_IGN);
}

RedisConnection::~RedisConnection() {
  close();
}

void RedisConnection::close() {
  if (m_context) redisFree(m_context);
  m_context = nullptr;
}

void RedisConnection::fail(const std::string& doing) {
  const std::string why = m_context && m_context->errstr[0] ? m_context->errstr : "no reply";
  const int err = m_context ? m_context->err : 0;
  close();
  // What came back is not Redis's protocol: another program listens at the address (a web
  // server answers "HTTP/1.1 400 ..."), and retrying will not change that.
  if (err == REDIS_ERR_PROTOCOL)
    throw ClusterWrongAddress("the server at " + m_endpoint.text() +
                              " is not a Redis server: what it sent is not Redis's protocol (" +
                              doing + ": " + why +
                              "); check the address and port given to --cluster");
  // A read that timed out: the socket's receive timeout reports EAGAIN.
  if (err == REDIS_ERR_IO && (why == std::strerror(EAGAIN) || why == std::strerror(EWOULDBLOCK)))
    throw ClusterUnreachable("no answer from the cluster at " + m_endpoint.text() + " within " +
                             seconds(m_options.commandTimeoutSeconds) + " while " + doing +
                             " (a server that accepts connections but does not answer: a "
                             "stopped or overloaded Redis, or not a Redis server)");
  throw ClusterUnreachable("lost the cluster at " + m_endpoint.text() + " while " + doing + ": " +
                           why);
}

void RedisConnection::connect() {
  if (m_context) return;
  const timeval connectTimeout = toTimeval(m_options.connectTimeoutSeconds);
  redisContext* c =
      m_endpoint.isUnix()
          ? redisConnectUnixWithTimeout(m_endpoint.unixPath.c_str(), connectTimeout)
          : redisConnectWithTimeout(m_endpoint.host.c_str(), m_endpoint.port, connectTimeout);
  if (!c) throw ClusterUnreachable("cannot reach the cluster at " + m_endpoint.text());
  if (c->err) {
    const std::string why = c->errstr;
    const int err = c->err;
    redisFree(c);
    // hiredis reports a name it cannot resolve as REDIS_ERR_OTHER with getaddrinfo's words.
    if (err == REDIS_ERR_OTHER && !m_endpoint.isUnix())
      if (const auto problem = resolveProblem(m_endpoint.host)) {
        const std::string text = "cannot resolve host '" + m_endpoint.host + "' of the cluster " +
                                 m_endpoint.text() + " (" + problem->first + ")";
        if (problem->second)
          throw ClusterWrongAddress(text + ": check the host given to --cluster");
        throw ClusterUnreachable(text);
      }
    if (err == REDIS_ERR_IO && why == std::strerror(ETIMEDOUT))
      throw ClusterUnreachable("cannot reach the cluster at " + m_endpoint.text() +
                               ": no connection within " +
                               seconds(m_options.connectTimeoutSeconds) +
                               " (the host is down, or a firewall drops the connection)");
    throw ClusterUnreachable("cannot reach the cluster at " + m_endpoint.text() + ": " + why);
  }
  redisSetTimeout(c, toTimeval(m_options.commandTimeoutSeconds));
  if (!m_endpoint.isUnix()) redisEnableKeepAlive(c);
  m_context = c;
  if (!m_password.empty()) command({"AUTH", m_password});
  // A server that wants a password we lack says so on the first command: find out now.
  command({"PING"});
}

void RedisConnection::checkAuth(const RedisValue& reply, const std::string& name) {
  if (!reply.isError()) return;
  if (name == "AUTH") {
    // A server without a password (an existing Redis on a trusted host) answers AUTH with an
    // error but serves us all the same; only a refused password is fatal.
    if (reply.text.find("without any password configured") != std::string::npos) return;
    close();
    throw ClusterAuthError("the cluster at " + m_endpoint.text() + " refused the password (" +
                           reply.text + "): " + passwordHint() +
                           " with the password the cluster was started with");
  }
  if (startsWith(reply.text, "NOAUTH") || startsWith(reply.text, "WRONGPASS")) {
    close();
    throw ClusterAuthError("the cluster at " + m_endpoint.text() +
                           " requires a password and none was given (" + name +
                           " was refused: " + reply.text + "): " + passwordHint());
  }
  // Redis restarting from its append-only file: as good as unreachable for a moment.
  if (startsWith(reply.text, "LOADING")) {
    close();
    throw ClusterUnreachable("the cluster at " + m_endpoint.text() +
                             " is loading its data after a restart");
  }
}

RedisValue RedisConnection::command(const std::vector<std::string>& args) {
  return pipeline({args}).front();
}

RedisValue RedisConnection::call(const std::vector<std::string>& args) {
  RedisValue v = command(args);
  if (v.isError())
    throw ClusterReplyError("the cluster at " + m_endpoint.text() + " refused " + args.front() +
                            (args.size() > 1 ? " " + args[1] : std::string()) + ": " + v.text);
  return v;
}

std::vector<RedisValue> RedisConnection::pipeline(
    const std::vector<std::vector<std::string>>& commands) {
  connect();
  for (const auto& args : commands) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lengths;
    for (const std::string& a : args) {
      argv.push_back(a.data());
      lengths.push_back(a.size());
    }
    if (redisAppendCommandArgv(m_context, static_cast<int>(argv.size()), argv.data(),
                               lengths.data()) != REDIS_OK)
      fail("sending " + args.front());
  }
  std::vector<RedisValue> out;
  out.reserve(commands.size());
  for (const auto& args : commands) {
    void* raw = nullptr;
    if (redisGetReply(m_context, &raw) != REDIS_OK || !raw) fail("waiting for " + args.front());
    const auto* reply = static_cast<redisReply*>(raw);
    out.push_back(convert(reply));
    freeReplyObject(raw);
  }
  for (std::size_t i = 0; i < out.size(); ++i) checkAuth(out[i], commands[i].front());
  return out;
}

}  // namespace opevo::cluster
