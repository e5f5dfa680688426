#include "cuda/ptxas_info.h"

#include <regex>
#include <sstream>

namespace opevo {

std::map<std::string, KernelResources> parsePtxasInfo(std::string_view log) {
  static const std::regex function(
      R"((?:Compiling entry function|Function properties for) '?([A-Za-z_$][\w$]*)'?)");
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::map<std::string, KernelResources> out;
  std::string current;
  std::istringstream in{std::string(log)};
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (line.rfind("ptxas", 0) != 0) continue;
    if (std::regex_search(line, m, function)) {
      current = m[1];
      out[current];
      continue;
    }
    if (current.empty()) continue;
    KernelResources& r = out[current];
    if (std::regex_search(line, m, frame)) {
      r.localBytes = std::stoll(m[1]);
      r.spillStoreBytes = std::stoll(m[2]);
    }
    if (std::regex_search(line, m, used)) {
      r.registers = std::stoi(m[1]);
      // ptxas leaves "bytes smem" out when a function has no static shared memory.
      r.staticSharedBytes = std::regex_search(line, m, smem) ? std::stoll(m[1]) : 0;
    }
  }
  return out;
}

}  // namespace opevo
