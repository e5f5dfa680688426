// opevo-worker: a measurement process. The engine talks to it with one JSON object per line on
// stdin/stdout (gpu/worker/protocol.h), so a kernel that crashes or hangs takes down only this
// process.
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "common/error.h"
#include "worker/protocol.h"

int main() {
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
  return 0;
}
