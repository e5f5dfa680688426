#include "common/child_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

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
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0], actions.get(), nullptr, argv.data(), environ);
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

}  // namespace opevo
