// opevo-worker: a measurement process. The engine talks to it with one JSON object per line on
// stdin/stdout (gpu/worker/protocol.h), so a kernel that crashes or hangs takes down only this
// process.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "common/error.h"
#include "common/run_watch.h"
#include "worker/protocol.h"

namespace {

// The engine that started this worker may die in the middle of a request (SIGKILL, a crash, a
// campaign's time limit): the worker would then go on timing its kernel, holding the CPU or the
// GPU, until it next read its closed stdin (a C2 measurement on the CPU went on for minutes). It
// exits as soon as it is orphaned instead. Watched by parent process, not with PR_SET_PDEATHSIG,
// which fires when the engine thread that started the worker ends, not the engine.
void exitWhenOrphaned() {
  const pid_t parent = getppid();
  std::thread([parent] {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      if (getppid() != parent) _exit(3);
    }
  }).detach();
}

// A checked run over its give-up limit (common/run_watch.h) is this request's answer: a timeout,
// and the worker's exit, the only way to end a kernel that is still running (a GPU's context goes
// with its process). _exit, so that nothing waits for the kernel on the way out (freeing device
// memory synchronises). The main thread, inside the kernel's run, writes nothing meanwhile.
void giveUp(const std::string& message) {
  try {
    opevo::Measurement m;
    m.status = opevo::TrialStatus::Timeout;
    m.message = message;
    const nlohmann::json reply = {
        {"ok", true}, {"measurement", opevo::measurementToJson(m)}, {"worker_exits", true}};
    std::cout << reply.dump() << std::endl;
  } catch (...) {
    // Nothing written: the engine sees the worker gone, and the trial fails all the same.
  }
  _exit(0);
}

}  // namespace

int main() {
  exitWhenOrphaned();
  opevo::RunWatch watch(giveUp);
  opevo::setRunWatch(&watch);
  std::ios::sync_with_stdio(false);
  bool quit = false;
  for (std::string line; !quit && std::getline(std::cin, line);) {
    if (line.empty()) continue;
    nlohmann::json reply;
    try {
      reply = opevo::handleWorkerRequest(nlohmann::json::parse(line), quit);
    } catch (const nlohmann::json::exception& e) {
      reply = {{"ok", false}, {"error", std::string("bad request: ") + e.what()}};
    } catch (const std::exception& e) {
      reply = {{"ok", false}, {"error", e.what()}};
    }
    std::cout << reply.dump() << std::endl;  // flush: the engine waits for each reply
  }
  opevo::setRunWatch(nullptr);
  return 0;
}
