#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace opevo {

// Where a child's standard streams go; by default it shares ours.
struct ChildStreams {
  int stdinFrom = -1;          // read standard input from this descriptor...
  bool stdinFromNull = false;  // ...or from /dev/null
  int stdoutTo = -1;           // write standard output to this descriptor...
  std::string stdoutFile;      // ...or to this file (created or truncated)
  int stdoutFileMode = 0644;   // the file's mode when it is created
  bool stdoutToNull = false;   // ...or nowhere
  bool stderrToStdout = false;
  bool stderrToNull = false;
};

// Starts args[0] (looked up on PATH when it has no slash) with the arguments args[1...], with
// posix_spawn: no fork of a process that may hold many threads and a lot of memory. The child
// gets its three standard streams and no other descriptor of ours, and a process group of its own
// (a terminal's Ctrl-C reaches us alone; we stop our children in order). Throws
// std::runtime_error naming the program and the reason when it cannot be started.
pid_t startChild(const std::vector<std::string>& args, const ChildStreams& streams = {});

// What a child can be given only by a fork of ours, not by posix_spawn: a server we start (the
// cluster's redis-server) that must not outlive us, and keeps a lock of ours while it runs.
struct ChildLifetime {
  // Sent SIGTERM when the thread that started it ends (the process, however it dies, when it
  // was started from the main thread: Linux ties this to the thread).
  bool endsWithParent = false;
  int passFd = -1;  // a descriptor of ours the child keeps, as its descriptor 3
};

// startChild, with the lifetime above: forks and execs (a program not found or not executable is
// still thrown, not left to an exit status), so it is for a few long-lived children, not for
// every compiler a tuning run starts.
pid_t startChild(const std::vector<std::string>& args, const ChildStreams& streams,
                 const ChildLifetime& lifetime);

// The program as execv takes it: looked up on PATH as posix_spawnp does when the name has no
// slash (startChild's lookup), given back as it is when it has one. Empty when it is found
// nowhere.
std::string onPath(const std::string& program);
// Whether `path` is a regular file this process may execute (a folder of that name is not).
bool isProgramFile(const std::string& path);

// Kills every child of this process that has not been reaped yet, each with its process group
// (startChild gives each one of its own): for a program about to exit that abandons the work in
// hand (a second Ctrl-C), so that no worker or compiler of it runs on. They are left to be
// reaped by whoever waits for them.
void killChildren();

// Waits for the child to end (through signals that interrupt the wait). Returns its exit status,
// or 128 + the signal that killed it, as a shell does.
int waitChild(pid_t pid);

// The same, for at most timeoutSeconds: past that the child's whole process group (a compiler
// driver and the compiler proper it started) is killed, *timedOut set, and 128 + SIGKILL returned.
int waitChild(pid_t pid, double timeoutSeconds, bool* timedOut);

// CPU seconds (user + system) the process group `group` has used so far: its live members' own
// and that of the children they have waited for (a compiler driver's finished cc1plus and as).
// 0 when nothing of it can be read.
double processGroupCpuSeconds(pid_t group);

struct CpuLimitedWait {
  int status = 0;          // as waitChild's; 128 + SIGKILL when a limit was reached
  bool cpuLimit = false;   // the group used cpuSeconds of CPU time and was killed
  bool wallLimit = false;  // wallSeconds passed first and it was killed
  double cpuSeconds = 0;   // its CPU time at the last look (at most 0.2 s old)
  double wallSeconds = 0;
};

// Waits for the child (the leader of its own process group, as startChild makes it) while the
// group uses less than cpuSeconds of CPU time and less than wallSeconds pass; past either the
// whole group is killed. On a busy machine a compiler waits for the cores without using them: a
// limit on wall time alone blamed the configuration for the machine's load.
CpuLimitedWait waitChildCpuLimited(pid_t pid, double cpuSeconds, double wallSeconds);

}  // namespace opevo
