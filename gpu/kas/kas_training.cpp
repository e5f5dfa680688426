#include "kas/kas_training.h"

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "codegen/cpu_compiler.h"
#include "common/child_process.h"

namespace opevo::kas {
namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string lastLine(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  const auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

std::string number(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

// Hands the progress lines the program has written to `out` since the last call to `progress`:
// an epoch's loss and accuracy, an early stop; never the JSON result, its last line.
class ProgressTail {
 public:
  ProgressTail(std::string path, const TrainProgress& progress)
      : m_path(std::move(path)), m_progress(progress) {}
  void poll() {
    if (!m_progress) return;
    std::ifstream in(m_path, std::ios::binary);
    if (!in || !in.seekg(static_cast<std::streamoff>(m_read))) return;
    std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    m_read += chunk.size();
    m_pending += chunk;
    for (auto nl = m_pending.find('\n'); nl != std::string::npos; nl = m_pending.find('\n')) {
      const std::string line = m_pending.substr(0, nl);
      m_pending.erase(0, nl + 1);
      // Its epochs and its early stop; the header names the temporary copy of the kernel.
      if (line.rfind("epoch", 0) == 0 || line.rfind("stopped", 0) == 0) m_progress(line);
    }
  }

 private:
  std::string m_path;
  const TrainProgress& m_progress;
  std::size_t m_read = 0;
  std::string m_pending;
};

// Waits for the child, polling `stop`: a stop kills its process group and waits for it.
int waitOrStop(pid_t pid, const std::atomic<bool>* stop, bool* stopped, ProgressTail& tail) {
  while (true) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    tail.poll();
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (r < 0) return waitChild(pid);
    if (stop && stop->load()) {
      *stopped = true;
      kill(-pid, SIGKILL);
      return waitChild(pid);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

std::string trainerProgram() {
  if (const char* env = std::getenv("OPEVO_KAS_TRAIN"); env && *env) return env;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && std::filesystem::exists(self.parent_path() / "opevo-kas-train"))
    return (self.parent_path() / "opevo-kas-train").string();
  return "opevo-kas-train";
}

std::optional<TrainResult> runTraining(const TrainRequest& q, std::string* why,
                                       const std::atomic<bool>* stop,
                                       const TrainProgress& progress) {
  const std::string program = trainerProgram();
  TempDir dir("opevo-kas-train");
  const std::string kernel = dir.path() + "/kernel.json", out = dir.path() + "/output.txt";
  std::vector<std::string> args = {program};
  if (q.kernelJson.empty()) {
    args.push_back("--baseline");
  } else {
    std::ofstream(kernel) << q.kernelJson;
    args.insert(args.end(), {kernel, "--groups", std::to_string(q.groups), "--budget-flops",
                             number(q.budget.flops), "--budget-params", number(q.budget.params)});
  }
  args.insert(args.end(), {"--epochs", std::to_string(q.epochs), "--train-images",
                           std::to_string(q.trainImages), "--test-images",
                           std::to_string(q.testImages), "--batch", std::to_string(q.batch),
                           "--seed", std::to_string(q.seed), "--theta", number(q.theta)});
  if (q.threads > 0) args.insert(args.end(), {"--threads", std::to_string(q.threads)});
  if (!q.dataDir.empty()) args.insert(args.end(), {"--data", q.dataDir});
  if (!q.referenceCurve.empty()) {
    std::string curve;
    for (double a : q.referenceCurve) curve += (curve.empty() ? "" : ",") + number(a);
    args.insert(args.end(), {"--reference-curve", curve});
  }
  int status = 0;
  bool stopped = false;
  try {
    ChildStreams streams;
    streams.stdoutFile = out;
    // Progress and errors land in the same file: the last line is the result, or the reason the
    // program gave when it failed.
    streams.stderrToStdout = true;
    ProgressTail tail(out, progress);
    status = waitOrStop(startChild(args, streams), stop, &stopped, tail);
  } catch (const std::exception& e) {
    *why = "cannot train: " + std::string(e.what());
    return std::nullopt;
  }
  if (stopped) {
    *why = "training stopped";
    return std::nullopt;
  }
  if (status == 127) {
    *why = "cannot train: " + program +
           " was not found (install libtorch-dev and rebuild, which builds opevo-kas-train)";
    return std::nullopt;
  }
  const std::string text = readFile(out);
  if (status != 0) {
    const std::string said = lastLine(text);
    *why = "training failed (" + program + " exit status " + std::to_string(status) + ")" +
           (said.empty() ? "" : ": " + said);
    return std::nullopt;
  }
  TrainResult r;
  try {
    r.raw = nlohmann::json::parse(lastLine(text));
    r.accuracy = r.raw.at("accuracy").get<double>();
    r.curve = r.raw.at("curve").get<std::vector<double>>();
    r.epochsRun = r.raw.at("epochs_run").get<int>();
    r.stoppedEarly = r.raw.at("stopped_early").get<bool>();
    r.diverged = r.raw.value("diverged", false);
    r.seconds = r.raw.at("seconds").get<double>();
  } catch (const std::exception& e) {
    *why = "the training program printed no result: " + std::string(e.what());
    return std::nullopt;
  }
  return r;
}

}  // namespace opevo::kas
