#include "export/kernel_export.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "codegen/kernel_codegen.h"
#include "common/error.h"
#include "export/host_program.h"
#include "ops/operator_json.h"
#include "store/store.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

void writeFile(const fs::path& path, const std::string& text, ExportResult& result) {
  std::ofstream out(path);
  out << text;
  if (!out) throw InputError("cannot write " + path.string());
  result.files.push_back(path.string());
}

std::string macroName(const std::string& name) {
  std::string m = "OPEVO_";
  for (char c : name) m += std::isalnum(static_cast<unsigned char>(c)) ? char(std::toupper(c)) : '_';
  return m;
}

std::string configHeader(const SearchSpace& space, const Config& c, const codegen::GeneratedKernel& k) {
  std::string h = "// The tuned configuration as macros, for build systems that want the numbers.\n#pragma once\n";
  for (std::size_t i = 0; i < space.dims(); ++i) {
    const Parameter& p = space.param(i);
    if (p.kind() == ParamKind::Factor || p.kind() == ParamKind::Perm)
      for (std::size_t j = 0; j < c[i].size(); ++j)
        h += "#define " + macroName(p.name()) + "_" + std::to_string(j) + " " + std::to_string(c[i][j]) + "\n";
    else
      h += "#define " + macroName(p.name()) + " " + p.format(c[i]) + "\n";
  }
  const auto& l = k.launch;
  h += "#define OPEVO_GRID_X " + std::to_string(l.grid.x) + "\n#define OPEVO_GRID_Y " + std::to_string(l.grid.y) +
       "\n#define OPEVO_GRID_Z " + std::to_string(l.grid.z) + "\n#define OPEVO_BLOCK_X " +
       std::to_string(l.block.x) + "\n#define OPEVO_BLOCK_Y " + std::to_string(l.block.y) +
       "\n#define OPEVO_BLOCK_Z " + std::to_string(l.block.z) + "\n#define OPEVO_SHARED_BYTES " +
       std::to_string(l.sharedBytes) + "\n";
  return h;
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

ExportResult exportRun(const Store& store, std::int64_t runId, const ExportOptions& options) {
  const auto run = store.run(runId);
  if (!run) throw InputError("no run " + std::to_string(runId) + " in " + store.path());
  const auto trials = store.trials(runId);
  const TrialRow* best = nullptr;
  for (const TrialRow& t : trials)
    if (t.status == "ok" && (!best || t.speed > best->speed)) best = &t;
  if (!best) throw InputError("run " + std::to_string(runId) + " has no successful trial to export");

  ExportResult result;
  fs::create_directories(options.outDir);
  const fs::path dir(options.outDir);
  std::string csv = "seq,config,status,speed,median_ms,compile_ms,message\n";
  for (const TrialRow& t : trials)
    csv += std::to_string(t.seq) + "," + csvField(t.config) + "," + t.status + "," + std::to_string(t.speed) +
           "," + std::to_string(t.medianMs) + "," + std::to_string(t.compileMs) + "," + csvField(t.message) + "\n";
  writeFile(dir / "trials.csv", csv, result);

  nlohmann::json record{{"run", runId},         {"operator", run->operatorName},
                        {"algorithm", run->algorithm}, {"backend", run->backend},
                        {"device", run->device}, {"configuration", best->config},
                        {"speed", best->speed},  {"speed_unit", run->speedUnit},
                        {"trial", best->seq},    {"trials", trials.size()},
                        {"exported", Store::nowUtc()}};
  if (run->backend == "replay") {
    result.note = "run " + std::to_string(runId) +
                  " is a replay of measurements made elsewhere: its kernel is not one of ours, so "
                  "only record.json and trials.csv are written";
    writeFile(dir / "record.json", record.dump(2) + "\n", result);
    return result;
  }
  const std::string backendName = options.backend.empty() ? run->backend : options.backend;
  const codegen::Backend backend = codegen::parseBackend(backendName);
  const OperatorDefinition def =
      operatorDefinitionFromJson(nlohmann::json::parse(run->operatorJson), "run " + std::to_string(runId));
  const Config config = def.space.parse(best->config);
  const codegen::GeneratedKernel kernel = codegen::generateKernel(def.op, def.space, config, backend);

  const std::string ext = backend == codegen::Backend::Cpu ? "cpp" : backend == codegen::Backend::Hip ? "hip" : "cu";
  const std::string kernelFile = "kernel." + ext;
  char header[1024];
  std::snprintf(header, sizeof header,
                "// Exported by OpEvo Studio %s on %s\n// Operator:      %s\n// Configuration: %s\n"
                "// Measured:      %.6g %s on %s (%s backend), trial %d of run %lld (%s)\n",
                OPEVO_VERSION, Store::nowUtc().c_str(), def.op.describe().c_str(), best->config.c_str(),
                best->speed, run->speedUnit.c_str(), run->device.c_str(), run->backend.c_str(), best->seq,
                static_cast<long long>(runId), run->algorithm.c_str());
  std::string note;
  if (backendName != run->backend)
    note = "// Note: tuned on " + run->backend + "; this is the same configuration for " + backendName +
           ", not measured there.\n";
  writeFile(dir / kernelFile, std::string(header) + note + "#include \"config.h\"\n\n" + kernel.source, result);
  writeFile(dir / "config.h", configHeader(def.space, config, kernel), result);
  record["export_backend"] = backendName;
  record["entry"] = kernel.entry;
  record["launch"] = {{"grid", {kernel.launch.grid.x, kernel.launch.grid.y, kernel.launch.grid.z}},
                      {"block", {kernel.launch.block.x, kernel.launch.block.y, kernel.launch.block.z}},
                      {"shared_bytes", kernel.launch.sharedBytes}};
  record["operator_spec"] = operatorDefinitionToJson(def);
  writeFile(dir / "record.json", record.dump(2) + "\n", result);

  const std::string check = "check." + ext;
  writeFile(dir / check, hostProgram(def.op, kernel, kernelFile), result);
  if (backend == codegen::Backend::Cpu)
    result.buildCommand = "g++ -O3 -march=native -fopenmp -o check check.cpp && ./check";
  else if (backend == codegen::Backend::Cuda)
    result.buildCommand = "nvcc -O3 -arch=native -o check check.cu && ./check";
  else
    result.buildCommand = "hipcc -O3 -o check check.hip && ./check";
  writeFile(dir / "build.sh", "#!/bin/sh\n# Builds the self-check and runs it: it prints PASS or FAIL.\nset -e\ncd \"$(dirname \"$0\")\"\n" +
                                  result.buildCommand + "\n",
            result);
  fs::permissions(dir / "build.sh", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  return result;
}

}  // namespace opevo
