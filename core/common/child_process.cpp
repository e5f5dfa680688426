#include "common/child_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
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

// A descriptor of ours, closed however startChild leaves.
class Descriptor {
 public:
  explicit Descriptor(int fd = -1) : m_fd(fd) {}
  ~Descriptor() {
    if (m_fd >= 0) ::close(m_fd);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return m_fd; }
  void reset() {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
  }

 private:
  int m_fd;
};

// A close-on-exec copy of fd numbered 10 or above (-1 for -1): the forked child moves its
// descriptors onto 0-3, which must not overwrite one it has yet to move.
int highCopy(int fd) {
  return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 10);
}

// Closes every descriptor from `first` up, except `keep`.
void closeFrom(int first, int keep, int maxFd) {
  const auto closeRange = [maxFd](int from, unsigned to) {
    if (static_cast<unsigned>(from) > to) return;
    if (syscall(SYS_close_range, from, to, 0) == 0) return;
    for (int fd = from; fd < maxFd && static_cast<unsigned>(fd) <= to; ++fd) ::close(fd);
  };
  closeRange(first, static_cast<unsigned>(keep) - 1);
  closeRange(keep + 1, ~0U);
}

}  // namespace

bool isProgramFile(const std::string& path) {
  struct stat info {};
  // A folder of that name is passed over, as execvp does.
  return access(path.c_str(), X_OK) == 0 && stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::string onPath(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  const std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = dirs.substr(start, end - start);
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (isProgramFile(candidate)) return candidate;
    start = end + 1;
  }
  return {};
}

namespace {

// What /proc/PID/stat says of a process that this code reads.
struct ProcStat {
  pid_t pid = 0;
  pid_t parent = 0;
  pid_t group = 0;
  // Clock ticks of CPU time: its own (user + system) and its waited-for children's.
  unsigned long long ownTicks = 0, childrenTicks = 0;
};

// Every process /proc lists now (those that end while it is read are left out).
std::vector<ProcStat> processes() {
  std::vector<ProcStat> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // "pid (name) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime
    // stime cutime cstime ...": the name may hold spaces and parentheses.
    const std::size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 1));
    ProcStat p;
    char state = 0;
    unsigned long long skip = 0, utime = 0, stime = 0, cutime = 0, cstime = 0;
    long long session = 0, tty = 0, tpgid = 0;
    if (!(rest >> state >> p.parent >> p.group >> session >> tty >> tpgid >> skip >> skip >> skip >>
          skip >> skip >> utime >> stime >> cutime >> cstime))
      continue;
    p.pid = static_cast<pid_t>(std::stol(name));
    p.ownTicks = utime + stime;
    p.childrenTicks = cutime + cstime;
    out.push_back(p);
  }
  return out;
}

}  // namespace

void killChildren() {
  // Every process whose parent is this one, from /proc (a pool thread's compilers too): not yet
  // reaped, so each number is still our child's, never another program's.
  const pid_t self = getpid();
  for (const ProcStat& p : processes()) {
    if (p.parent != self) continue;
    ::kill(-p.pid, SIGKILL);  // its process group: a compiler driver and what it started
    ::kill(p.pid, SIGKILL);
  }
}

double processGroupCpuSeconds(pid_t group) {
  unsigned long long ticks = 0;
  for (const ProcStat& p : processes())
    if (p.group == group) ticks += p.ownTicks + p.childrenTicks;
  const long perSecond = sysconf(_SC_CLK_TCK);
  return perSecond > 0 ? static_cast<double>(ticks) / static_cast<double>(perSecond) : 0.0;
}

pid_t startChild(const std::vector<std::string>& args, const ChildStreams& s,
                 const ChildLifetime& lifetime) {
  if (args.empty() || args.front().empty()) throw std::runtime_error("no program to start");
  const std::string program = onPath(args.front());
  if (program.empty())
    throw std::runtime_error("cannot start '" + args.front() + "': not found on PATH");
  // Everything the child needs is made before the fork: after it, in a process that may have
  // threads, only async-signal-safe calls are allowed.
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const Descriptor devNull(::open("/dev/null", O_RDWR | O_CLOEXEC));
  const Descriptor null(highCopy(devNull.get()));
  const Descriptor in(highCopy(s.stdinFrom)), out(highCopy(s.stdoutTo)),
      pass(highCopy(lifetime.passFd));
  const Descriptor opened(s.stdoutFile.empty() ? -1
                                               : ::open(s.stdoutFile.c_str(),
                                                        O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                                                        static_cast<mode_t>(s.stdoutFileMode)));
  const Descriptor file(highCopy(opened.get()));
  if (!s.stdoutFile.empty() && file.get() < 0)
    throw std::runtime_error("cannot start '" + args.front() + "': cannot write " + s.stdoutFile +
                             ": " + std::strerror(errno));
  // The exec's failure comes back through a pipe that a successful exec closes.
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot start a process: ") + std::strerror(errno));
  const Descriptor readEnd(highCopy(ends[0]));
  Descriptor writeEnd(highCopy(ends[1]));
  ::close(ends[0]);
  ::close(ends[1]);
  if (null.get() < 0 || readEnd.get() < 0 || writeEnd.get() < 0 ||
      (s.stdinFrom >= 0 && in.get() < 0) || (s.stdoutTo >= 0 && out.get() < 0) ||
      (lifetime.passFd >= 0 && pass.get() < 0))
    throw std::runtime_error("cannot start '" + args.front() + "': " + std::strerror(errno));
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  const int maxFd = files.rlim_cur == RLIM_INFINITY || files.rlim_cur > 65536
                        ? 65536
                        : static_cast<int>(files.rlim_cur);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    // As the posix_spawn form below: a process group of its own and an empty signal mask.
    setpgid(0, 0);
    if (lifetime.endsWithParent) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) _exit(127);  // we died before the line above
    }
    // Our handlers (cluster serve's SIGTERM, SIGINT, SIGHUP) would run in the child until the
    // exec: a parent-death SIGTERM in that window would be caught and lost.
    for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
      struct sigaction was {};
      if (sigaction(sig, nullptr, &was) == 0 && was.sa_handler != SIG_IGN) signal(sig, SIG_DFL);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (in.get() >= 0)
      dup2(in.get(), STDIN_FILENO);
    else if (s.stdinFromNull)
      dup2(null.get(), STDIN_FILENO);
    if (out.get() >= 0)
      dup2(out.get(), STDOUT_FILENO);
    else if (file.get() >= 0)
      dup2(file.get(), STDOUT_FILENO);
    else if (s.stdoutToNull)
      dup2(null.get(), STDOUT_FILENO);
    if (s.stderrToStdout)
      dup2(STDOUT_FILENO, STDERR_FILENO);
    else if (s.stderrToNull)
      dup2(null.get(), STDERR_FILENO);
    if (pass.get() >= 0) dup2(pass.get(), 3);  // the copy dup2 makes keeps no close-on-exec
    closeFrom(pass.get() >= 0 ? 4 : 3, writeEnd.get(), maxFd);
    execv(program.c_str(), argv.data());
    const int error = errno;
    [[maybe_unused]] const ssize_t n = ::write(writeEnd.get(), &error, sizeof error);
    _exit(127);
  }
  writeEnd.reset();  // ours, so that the read below ends when the child's closes
  int error = 0;
  ssize_t n = 0;
  while ((n = ::read(readEnd.get(), &error, sizeof error)) < 0 && errno == EINTR) {
  }
  if (n == static_cast<ssize_t>(sizeof error)) {
    waitChild(pid);
    throw std::runtime_error("cannot start '" + args.front() + "': " + std::strerror(error));
  }
  return pid;
}

pid_t startChild(const std::vector<std::string>& args, const ChildStreams& s) {
  if (args.empty() || args.front().empty()) throw std::runtime_error("no program to start");
  FileActions actions;
  if (s.stdinFrom >= 0)
    posix_spawn_file_actions_adddup2(actions.get(), s.stdinFrom, STDIN_FILENO);
  else if (s.stdinFromNull)
    posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  if (s.stdoutTo >= 0)
    posix_spawn_file_actions_adddup2(actions.get(), s.stdoutTo, STDOUT_FILENO);
  else if (!s.stdoutFile.empty())
    posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, s.stdoutFile.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC,
                                     static_cast<mode_t>(s.stdoutFileMode));
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

CpuLimitedWait waitChildCpuLimited(pid_t pid, double cpuSeconds, double wallSeconds) {
  CpuLimitedWait w;
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto nextLook = start;
  int status = 0;
  for (auto pause = std::chrono::milliseconds(1);;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      w.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      w.wallSeconds = elapsed();
      return w;
    }
    if (done < 0 && errno != EINTR) {
      w.status = -1;
      return w;
    }
    w.wallSeconds = elapsed();
    if (w.wallSeconds >= wallSeconds) {
      w.wallLimit = true;
      break;
    }
    // Reading /proc costs a scan of every process: a few times a second is enough for limits
    // of seconds.
    if (std::chrono::steady_clock::now() >= nextLook) {
      w.cpuSeconds = processGroupCpuSeconds(pid);
      if (w.cpuSeconds >= cpuSeconds) {
        w.cpuLimit = true;
        break;
      }
      nextLook = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  kill(-pid, SIGKILL);  // the child leads its own process group (startChild)
  kill(pid, SIGKILL);
  waitChild(pid);
  w.status = 128 + SIGKILL;
  return w;
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
