#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "cluster/cluster_endpoint.h"

namespace opevo::cluster {

struct RedisServerOptions {
  std::string dir;                 // its config, log and append-only files
  std::string bind = "127.0.0.1";  // only this machine, unless told otherwise
  int port = 6390;                 // 0: no TCP (a Unix socket only)
  std::string unixSocket;          // also listen here when not empty
  std::string password;            // required
  std::string program = "redis-server";
};

// A real redis-server for the cluster: `opevo cluster serve`, and the tests. Its password goes
// into a config file only its owner can read (mode 0600), never onto a command line where `ps`
// shows it; its data is kept in append-only files in dir, so a restart loses nothing.
//
// One server per dir: dir/serve.lock is locked (flock) for the object's lifetime, and
// redis-server inherits the lock, so a second server on the same dir (whose append-only files
// and config it would share) is refused while either process lives, naming them. redis-server
// also gets SIGTERM when the process that started it dies (even of SIGKILL), so it is never left
// holding the port and the files by itself. (Strictly, when the thread that started it ends:
// start it from a thread that lives as long as the server, as serve and the tests do.)
class RedisServer {
 public:
  // Locks dir, writes dir/redis.conf, starts redis-server and waits until it answers. Throws
  // InputError for a bad option (no password, a password with a line break, a dir that cannot be
  // made), a dir another server holds (naming its pids), a port in use, an address that is not
  // this machine's or a socket another server listens on; std::runtime_error with the end of its
  // log when it does not start for another reason.
  explicit RedisServer(RedisServerOptions options);
  // Stops it (SIGTERM: Redis writes its append-only file out before exiting).
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  pid_t pid() const { return m_pid; }
  // Where clients reach it: the Unix socket when there is one, else the bound address.
  ClusterEndpoint endpoint() const;
  // Its TCP address, when it has one.
  std::optional<ClusterEndpoint> tcpEndpoint() const;
  const std::string& version() const { return m_version; }
  const std::string& configPath() const { return m_config; }
  const RedisServerOptions& options() const { return m_options; }

  // Starts it again on the same files (after it died, or after kill()).
  void start();
  void stop();
  // SIGKILL, for tests of a server that dies without warning.
  void kill();
  // How it ended, once it has exited, without waiting.
  struct Exit {
    int status = 0;  // its exit status, when it exited
    int signal = 0;  // the signal that killed it, else 0
    // "exited with status 1", "was killed by signal 9 (SIGKILL)".
    std::string describe() const;
  };
  std::optional<Exit> exited();

 private:
  void lockDir();
  void recordPids() const;
  void checkAddressesFree() const;
  pid_t spawn();
  std::string logTail() const;
  void writeConfig() const;

  RedisServerOptions m_options;
  std::string m_config;
  int m_lockFd = -1;
  pid_t m_pid = -1;
  std::string m_version;
};

}  // namespace opevo::cluster
