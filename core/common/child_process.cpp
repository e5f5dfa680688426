#include "common/child_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace opevo {
namespace {

// posix_spawn_file_actions_t, released however start() leaves.
class FileActions {
 public:
  FileActions() { posix_spawn_file_actions_init(&m_actions); }
  ~FileActions() { posix_spawn_file_actions_destroy(&m_actions); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &m_actions; }

 private:
  posix_spawn_file_actions_t m_actions;
};

// posix_spawnattr_t, released however start() leaves.
class SpawnAttributes {
 public:
  SpawnAttributes() { posix_spawnattr_init(&m_attr); }
  ~SpawnAttributes() { posix_spawnattr_destroy(&m_attr); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  posix_spawnattr_t* get() { return &m_attr; }

 private:
  posix_spawnattr_t m_attr;
};

}  // namespace

pid_t startChild(const std::vector<std::string>& args, const ChildStreams& s) {
  if (args.empty() || args.front().empty()) throw std::runtime_error("no program to start");
  FileActions actions;
  if (s.stdinFrom >= 0) posix_spawn_file_actions_adddup2(actions.get(), s.stdinFrom, STDIN_FILENO);
  if (s.stdoutTo >= 0)
    posix_spawn_file_actions_adddup2(actions.get(), s.stdoutTo, STDOUT_FILENO);
  else if (!s.stdoutFile.empty())
    posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, s.stdoutFile.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  else if (s.stdoutToNull)
    posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  if (s.stderrToStdout)
    posix_spawn_file_actions_adddup2(actions.get(), STDOUT_FILENO, STDERR_FILENO);
  else if (s.stderrToNull)
    posix_spawn_file_actions_addopen(actions.get(), STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  // Nothing else of ours leaks into the child: a pipe end it kept open would hide our end-of-file
  // from it (and its from us), however the descriptor was created.
  posix_spawn_file_actions_addclosefrom_np(actions.get(), STDERR_FILENO + 1);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // A process group of its own: Ctrl-C in a terminal reaches only us, and we end our children in
  // order (the trial in hand committed), instead of a compiler dying under a trial that is then
  // stored as a compile error. An empty signal mask: a thread that blocked signals does not
  // pass that on.
  SpawnAttributes attr;
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setpgroup(attr.get(), 0);
  posix_spawnattr_setsigmask(attr.get(), &none);
  posix_spawnattr_setflags(attr.get(), POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0], actions.get(), attr.get(), argv.data(), environ);
  if (rc != 0)
    throw std::runtime_error("cannot start '" + args.front() + "': " + std::strerror(rc));
  return pid;
}

int waitChild(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int waitChild(pid_t pid, double timeoutSeconds, bool* timedOut) {
  *timedOut = false;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  int status = 0;
  for (auto pause = std::chrono::milliseconds(1);;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (done < 0 && errno != EINTR) return -1;
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  *timedOut = true;
  kill(-pid, SIGKILL);  // the child leads its own process group (startChild)
  kill(pid, SIGKILL);
  waitChild(pid);
  return 128 + SIGKILL;
}

}  // namespace opevo
