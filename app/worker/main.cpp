// opevo-worker: a measurement process. The engine talks to it with one JSON object per line on
// stdin/stdout, so a kernel that crashes or hangs takes down only this process.
#include <unistd.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "probe/backend_probe.h"

namespace {

nlohmann::json backendsJson() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& b : opevo::probeBackends())
    out.push_back({{"backend", b.name}, {"available", b.available}, {"reason", b.reason}});
  return out;
}

nlohmann::json handle(const nlohmann::json& request, bool& quit) {
  const std::string cmd = request.value("cmd", "");
  if (cmd == "hello")
    return {{"ok", true}, {"worker", "opevo-worker"}, {"version", OPEVO_VERSION},
            {"pid", static_cast<long>(getpid())}};
  if (cmd == "probe") return {{"ok", true}, {"backends", backendsJson()}};
  if (cmd == "quit") {
    quit = true;
    return {{"ok", true}};
  }
  return {{"ok", false}, {"error", "unknown command '" + cmd + "' (known: hello, probe, quit)"}};
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  bool quit = false;
  for (std::string line; !quit && std::getline(std::cin, line);) {
    if (line.empty()) continue;
    nlohmann::json reply;
    try {
      reply = handle(nlohmann::json::parse(line), quit);
    } catch (const nlohmann::json::exception& e) {
      reply = {{"ok", false}, {"error", std::string("request is not JSON: ") + e.what()}};
    }
    std::cout << reply.dump() << std::endl;  // flush: the engine waits for each reply
  }
  return 0;
}
