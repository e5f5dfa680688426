#include "net/torch_reference.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "codegen/cpu_compiler.h"
#include "common/child_process.h"

namespace opevo::net {
namespace {

std::string torchProgram() {
  if (const char* env = std::getenv("OPEVO_TORCH"); env && *env) return env;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && std::filesystem::exists(self.parent_path() / "opevo-torch", ec))
    return (self.parent_path() / "opevo-torch").string();
  return "opevo-torch";
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string torchReferenceName(const TorchResult& r) {
  return "libtorch " + r.version + (r.form == TorchForm::Eager ? "" : " frozen");
}

std::optional<TorchResult> runTorchReference(const std::string& network,
                                             const ParamOverrides& params, const TorchOptions& o,
                                             std::string* why) {
  const std::string program = torchProgram();
  TempDir dir("opevo-torch");
  const std::string out = dir.path() + "/output.bin", log = dir.path() + "/stdout.json";
  const int threads = o.threads > 0
                          ? o.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::string> args = {program,     network,
                                   "--seed",    std::to_string(o.seed),
                                   "--threads", std::to_string(threads),
                                   "--warmup",  std::to_string(o.warmup),
                                   "--runs",    std::to_string(o.runs),
                                   "--form",    std::string(torchFormName(o.form)),
                                   "--out",     out};
  for (const auto& [name, value] : params) {
    args.push_back("--param");
    args.push_back(name + "=" + std::to_string(value));
  }
  int status = 0;
  try {
    ChildStreams streams;
    streams.stdoutFile = log;
    status = waitChild(startChild(args, streams));
  } catch (const std::exception& e) {
    *why = "no libtorch reference: " + std::string(e.what()) +
           " (install libtorch-dev and rebuild, which builds opevo-torch)";
    return std::nullopt;
  }
  // posix_spawn of a program not on PATH surfaces as exit status 127 from the child.
  if (status == 127) {
    *why = "no libtorch reference: " + program +
           " was not found (install libtorch-dev and rebuild, which builds opevo-torch)";
    return std::nullopt;
  }
  if (status != 0) {
    *why = "the libtorch reference failed (" + program + " exit status " + std::to_string(status) +
           ")";
    return std::nullopt;
  }
  TorchResult r;
  try {
    const nlohmann::json j = nlohmann::json::parse(readFile(log));
    r.version = j.at("version").get<std::string>();
    r.threads = j.at("threads").get<int>();
    r.form = parseTorchForm(j.at("form").get<std::string>(), "opevo-torch's form");
    r.ms = j.at("ms").get<double>();
    r.timesMs = j.at("times_ms").get<std::vector<double>>();
  } catch (const std::exception& e) {
    *why = "the libtorch reference printed no result: " + std::string(e.what());
    return std::nullopt;
  }
  const std::string bytes = readFile(out);
  r.output.resize(bytes.size() / sizeof(float));
  std::memcpy(r.output.data(), bytes.data(), r.output.size() * sizeof(float));
  return r;
}

}  // namespace opevo::net
