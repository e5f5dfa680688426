#include "worker/worker_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "common/child_process.h"
#include "engine/trial_failures.h"
#include "space/text.h"

namespace opevo {

namespace {

constexpr const char* kWorkerName = "opevo-worker";

}  // namespace

std::string WorkerClient::defaultWorkerPath() {
  if (const char* env = std::getenv("OPEVO_WORKER"); env && *env) return env;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto beside = self.parent_path() / kWorkerName;
    // With an error_code: a folder closed to this user is "not beside", not an internal error.
    if (std::filesystem::exists(beside, ec)) return beside.string();
  }
  return kWorkerName;
}

std::optional<std::string> WorkerClient::missingWorker(const std::string& path) {
  const bool named = path.find('/') != std::string::npos;
  if (named ? isProgramFile(path) : !onPath(path).empty()) return std::nullopt;
  const char* env = std::getenv("OPEVO_WORKER");
  if (env && *env && path == env)
    return "OPEVO_WORKER is set to '" + path +
           "', which is not an executable file: point it at opevo-worker, or unset it to use the "
           "opevo-worker beside this program or on PATH";
  if (named)
    return "cannot start the measuring worker '" + path +
           "': it is not an executable file (OPEVO_WORKER sets the path of opevo-worker)";
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::string beside =
      ec ? std::string() : " (" + (self.parent_path() / kWorkerName).string() + ")";
  return std::string("cannot find ") + kWorkerName +
         ", the program that measures each trial: looked beside this program" + beside +
         ", then on PATH; install it beside this program, or set OPEVO_WORKER to its path";
}

WorkerClient::WorkerClient(std::string workerPath) : m_path(std::move(workerPath)) {
  // A worker that dies mid-request must not take us down with SIGPIPE on the next write.
  std::signal(SIGPIPE, SIG_IGN);
}

WorkerClient::~WorkerClient() {
  stop(false);
}

void WorkerClient::start() {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
    throw std::runtime_error("cannot create pipes for opevo-worker");
  try {
    ChildStreams streams;
    streams.stdinFrom = in[0];
    streams.stdoutTo = out[1];
    m_pid = startChild({m_path}, streams);
  } catch (...) {
    for (int fd : {in[0], in[1], out[0], out[1]}) close(fd);
    m_pid = -1;
    throw;
  }
  close(in[0]);
  close(out[1]);
  m_toWorker = in[1];
  m_fromWorker = out[0];
  m_buffer.clear();
  ++m_restarts;
}

void WorkerClient::stop(bool kill) {
  if (m_pid <= 0) return;
  if (!kill) {
    const std::string quit = "{\"cmd\":\"quit\"}\n";
    if (write(m_toWorker, quit.data(), quit.size()) < 0) kill = true;
  }
  close(m_toWorker);
  close(m_fromWorker);
  if (kill) ::kill(m_pid, SIGKILL);
  int status = 0;
  waitpid(m_pid, &status, 0);
  m_pid = -1;
}

std::string WorkerClient::describeExit() {
  int status = 0;
  waitpid(m_pid, &status, 0);
  close(m_toWorker);
  close(m_fromWorker);
  m_pid = -1;
  if (WIFSIGNALED(status)) return workerSignalMessage(WTERMSIG(status));
  return "the worker exited with status " + std::to_string(WEXITSTATUS(status));
}

WorkerClient::Reply WorkerClient::call(const nlohmann::json& request, double timeoutSeconds) {
  const auto began = std::chrono::steady_clock::now();
  Reply reply = exchange(request, timeoutSeconds);
  reply.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return reply;
}

WorkerClient::Reply WorkerClient::exchange(const nlohmann::json& request, double timeoutSeconds) {
  if (m_pid <= 0) {
    start();
    if (request.value("cmd", "") != "hello") {
      // As long again as the request: a worker that never starts costs a trial its limit once.
      Reply hello = exchange({{"cmd", "hello"}}, timeoutSeconds);
      if (!hello.ok) {
        if (hello.failure == TrialStatus::Timeout)
          hello.message = "the measuring worker '" + m_path + "' did not start within " +
                          formatNumber(timeoutSeconds) + " s; it was killed";
        return hello;
      }
    }
  }
  const std::string line = request.dump() + "\n";
  Reply reply;
  if (write(m_toWorker, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
    reply.failure = TrialStatus::RuntimeFault;
    reply.message = describeExit();
    return reply;
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  while (true) {
    const auto newline = m_buffer.find('\n');
    if (newline != std::string::npos) {
      const std::string answer = m_buffer.substr(0, newline);
      m_buffer.erase(0, newline + 1);
      reply.body = nlohmann::json::parse(answer, nullptr, false);
      reply.ok = !reply.body.is_discarded();
      if (!reply.ok) {
        reply.failure = TrialStatus::RuntimeFault;
        reply.message = "the worker answered something that is not JSON";
        stop(true);
      } else if (reply.body.value("worker_exits", false)) {
        // It is quitting (e.g. a CUDA fault poisoned its context): reap it now so the next call
        // starts a fresh one instead of writing to a dead pipe.
        stop(false);
      }
      return reply;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      stop(true);
      reply.failure = TrialStatus::Timeout;
      reply.message = workerTimeoutMessage(timeoutSeconds);
      return reply;
    }
    pollfd p{m_fromWorker, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready <= 0) continue;
    char chunk[65536];
    const ssize_t n = read(m_fromWorker, chunk, sizeof chunk);
    if (n <= 0) {
      reply.failure = TrialStatus::RuntimeFault;
      reply.message = describeExit();
      return reply;
    }
    m_buffer.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace opevo
