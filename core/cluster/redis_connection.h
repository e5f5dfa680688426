#pragma once

#include <string>
#include <vector>

#include "cluster/cluster_endpoint.h"

struct redisContext;

namespace opevo::cluster {

// One reply of Redis, copied out of hiredis's tree so it outlives the connection.
struct RedisValue {
  enum class Type { Nil, Status, Error, Integer, String, Array };
  Type type = Type::Nil;
  std::string text;  // Status, Error, String
  long long integer = 0;
  std::vector<RedisValue> elements;

  bool isNil() const { return type == Type::Nil; }
  bool isError() const { return type == Type::Error; }
  bool isArray() const { return type == Type::Array; }
  // The text of a String or Status, the number of an Integer as text; empty otherwise.
  std::string str() const;
};

struct ConnectOptions {
  double connectTimeoutSeconds = 5;
  // Longer than any blocking read we issue (XREAD ... BLOCK), so only a dead link times out.
  double commandTimeoutSeconds = 15;
};

// A connection to the cluster's Redis with its password: connect() opens and authenticates,
// command() sends one command. Not thread-safe: each thread keeps its own. A broken link throws
// ClusterUnreachable and leaves the connection closed; the next connect() opens a fresh one.
// A wrong or missing password throws ClusterAuthError with what to do about it.
class RedisConnection {
 public:
  RedisConnection(ClusterEndpoint endpoint, std::string password, ConnectOptions options = {});
  ~RedisConnection();
  RedisConnection(const RedisConnection&) = delete;
  RedisConnection& operator=(const RedisConnection&) = delete;

  void connect();
  void close();
  bool connected() const { return m_context != nullptr; }
  const ClusterEndpoint& endpoint() const { return m_endpoint; }

  // Connects first when needed. An error reply is returned as a value (Type::Error), except the
  // authentication errors, which throw.
  RedisValue command(const std::vector<std::string>& args);
  // As command(), throwing ClusterReplyError (naming the command) for an error reply.
  RedisValue call(const std::vector<std::string>& args);
  // Several commands in one round trip, answered in order (error replies as values).
  std::vector<RedisValue> pipeline(const std::vector<std::vector<std::string>>& commands);

 private:
  [[noreturn]] void fail(const std::string& doing);
  void checkAuth(const RedisValue& reply, const std::string& command);

  ClusterEndpoint m_endpoint;
  std::string m_password;
  ConnectOptions m_options;
  redisContext* m_context = nullptr;
};

}  // namespace opevo::cluster
