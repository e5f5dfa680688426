#include "export/kernel_export.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "codegen/cpu_compiler.h"
#include "codegen/device_limits.h"
#include "codegen/kernel_codegen.h"
#include "common/error.h"
#include "engine/speed_unit.h"
#include "export/host_program.h"
#include "io/export_file.h"
#include "io/run_import.h"
#include "io/trials_csv.h"
#include "ops/operator_json.h"
#include "store/history.h"
#include "store/run_operator.h"
#include "store/store.h"
#include "store/stored_config.h"

namespace opevo {
namespace {

std::string macroName(const std::string& name) {
  std::string m = "OPEVO_";
  for (char c : name)
    m += std::isalnum(static_cast<unsigned char>(c)) ? char(std::toupper(c)) : '_';
  return m;
}

std::string configHeader(const SearchSpace& space, const Config& c,
                         const codegen::GeneratedKernel& k) {
  std::string h =
      "// The tuned configuration as macros, for build systems that want the numbers.\n#pragma "
      "once\n";
  for (std::size_t i = 0; i < space.dims(); ++i) {
    const Parameter& p = space.param(i);
    if (p.kind() == ParamKind::Factor || p.kind() == ParamKind::Perm)
      for (std::size_t j = 0; j < c[i].size(); ++j)
        h += "#define " + macroName(p.name()) + "_" + std::to_string(j) + " " +
             std::to_string(c[i][j]) + "\n";
    else
      h += "#define " + macroName(p.name()) + " " + p.format(c[i]) + "\n";
  }
  const auto& l = k.launch;
  h += "#define OPEVO_GRID_X " + std::to_string(l.grid.x) + "\n#define OPEVO_GRID_Y " +
       std::to_string(l.grid.y) + "\n#define OPEVO_GRID_Z " + std::to_string(l.grid.z) +
       "\n#define OPEVO_BLOCK_X " + std::to_string(l.block.x) + "\n#define OPEVO_BLOCK_Y " +
       std::to_string(l.block.y) + "\n#define OPEVO_BLOCK_Z " + std::to_string(l.block.z) +
       "\n#define OPEVO_SHARED_BYTES " + std::to_string(l.sharedBytes) + "\n";
  return h;
}

// A stored run with its trials and the index of the one to export: its best successful one, or
// the one its side-by-side timing found fastest.
struct RunBest {
  RunRecord run;
  std::vector<TrialRow> trials;
  std::size_t best = 0;
  std::size_t fastest = 0;  // the fastest successful trial by its own timing
  const TrialRow& bestTrial() const { return trials[best]; }
  std::string exportedText() const {
    return exportedTrialText(trials[best].seq, trials[best].speed, run.speedUnit,
                             trials[fastest].seq, trials[fastest].speed);
  }
  // Set where the side-by-side timing chose another than the fastest trial: its speed there, and
  // the choice in words.
  std::optional<double> sideBySideSpeed;
  std::string chosenBy;
};

RunBest findBest(const Store& store, std::int64_t runId) {
  RunBest r;
  const auto run = store.run(runId);
  if (!run) throw InputError(store.missingRunText(runId));
  r.run = *run;
  r.trials = store.trials(runId);
  bool found = false;
  for (std::size_t i = 0; i < r.trials.size(); ++i)
    if (r.trials[i].status == TrialStatus::Ok &&
        (!found || r.trials[i].speed > r.trials[r.best].speed)) {
      r.best = i;
      found = true;
    }
  if (!found)
    throw InputError("run " + std::to_string(runId) + " has no successful trial to export");
  r.fastest = r.best;
  // opevo tune's last step times the run's best few configurations in turns with the library:
  // where another than the fastest trial won there, that one is exported (the fastest trial was
  // its own luckiest timing).
  // Read field by field: a restored T4 file's record is not trusted to have the types.
  const nlohmann::json side = nlohmann::json::parse(r.run.sideBySideJson, nullptr, false);
  const auto number = [&](const char* key) {
    return side.is_object() && side.contains(key) && side[key].is_number() ? side[key].get<double>()
                                                                           : 0.0;
  };
  const std::string config =
      side.is_object() && side.contains("config") && side["config"].is_string()
          ? side["config"].get<std::string>()
          : std::string();
  if (number("chosen_rank") > 1 && !config.empty()) {
    for (std::size_t i = 0; i < r.trials.size(); ++i) {
      if (r.trials[i].status != TrialStatus::Ok || r.trials[i].config != config) continue;
      char text[256];
      std::snprintf(text, sizeof text,
                    "the run's number %d of %d by its side-by-side timing (%.4g %s there), not "
                    "its fastest trial (%.4g by trial %d's own timing)",
                    static_cast<int>(number("chosen_rank")), static_cast<int>(number("candidates")),
                    number("best_speed"), r.run.speedUnit.c_str(), r.trials[r.best].speed,
                    r.trials[r.best].seq);
      r.chosenBy = text;
      r.sideBySideSpeed = number("best_speed");
      r.best = i;
      break;
    }
  }
  return r;
}

// The kernel of the best trial, generated for a backend, with the header naming where it came
// from.
struct BestKernel {
  OperatorDefinition def;
  Config config;
  codegen::GeneratedKernel kernel;
  codegen::Backend backend = codegen::Backend::Cpu;
  std::string backendName;
  std::string ext;
  std::string fileText;
};

// A kernel written for another backend than the run measured on: its speed is not known there.
std::string crossBackendNote(const std::string& tunedOn, const std::string& writtenFor) {
  return "tuned on " + tunedOn + ": the same configuration for " + writtenFor +
         ", not measured there";
}

// `when` is the date the header gives: the time of writing for an export (record.json has the
// same), the time of the preview for one.
BestKernel bestKernel(const RunBest& r, const std::string& backendWanted, const std::string& when) {
  const RunRecord& run = r.run;
  const TrialRow& best = r.bestTrial();
  BestKernel k;
  k.backendName = backendWanted.empty() ? run.backend : backendWanted;
  k.backend = codegen::parseBackend(k.backendName);
  k.def =
      operatorDefinitionFromJson(runOperator(run.operatorJson), "run " + std::to_string(run.id));
  k.config = storedConfig(k.def.space, best, "run " + std::to_string(run.id));
  std::string left;
  if (k.backend == codegen::Backend::Cpu && commonTarget(k.def.target) != k.def.target) {
    k.config = commonConfig(k.def, k.config, &left);
    k.def = withSpaceTarget(k.def, commonTarget(k.def.target));
  }
  k.kernel = codegen::generateKernel(k.def.op, k.def.space, k.config, k.backend);
  // A configuration tuned elsewhere (on the CPU, without a GPU's limits in its space) may ask a
  // GPU block for more than any device gives: refused here, not left to fail at launch in the
  // exported check.
  if (k.backend != codegen::Backend::Cpu && k.backendName != run.backend) {
    const char* widest = k.backend == codegen::Backend::Cuda ? "sm_90" : "gfx90a";
    const auto problems =
        codegen::checkLaunch(k.kernel.launch, nullptr, codegen::nominalLimits(widest));
    if (!problems.empty())
      throw InputError("run " + std::to_string(run.id) + "'s best configuration, tuned on " +
                       run.backend + ", cannot launch on a " + k.backendName + " GPU (" +
                       problems.front() + "): export it for " + run.backend + ", or tune on " +
                       k.backendName + " for a " + k.backendName + " kernel");
  }
  k.ext = k.backend == codegen::Backend::Cpu   ? "cpp"
          : k.backend == codegen::Backend::Hip ? "hip"
                                               : "cu";
  char header[1024];
  std::snprintf(header, sizeof header,
                "// Exported by OpEvo Studio %s on %s\n// Operator:      %s\n// Configuration: %s\n"
                "// Measured:      %.6g %s on %s (%s backend), trial %d of run %lld (%s)\n",
                OPEVO_VERSION, when.c_str(), k.def.op.describe().c_str(), best.config.c_str(),
                best.speed, run.speedUnit.c_str(), run.device.c_str(), run.backend.c_str(),
                best.seq, static_cast<long long>(run.id), run.algorithm.c_str());
  std::string note;
  if (!r.chosenBy.empty()) note = "// Chosen:        " + r.chosenBy + "\n";
  if (k.backendName != run.backend)
    note += "// Note: " + crossBackendNote(run.backend, k.backendName) + ".\n";
  if (!left.empty())
    note += "// Note: " + left +
            " (GPU template parameters) have no CPU counterpart and are left out: the CPU kernel "
            "computes the same result.\n";
  k.fileText = std::string(header) + note + "#include \"config.h\"\n\n" + k.kernel.source;
  return k;
}

std::string replayNote(const RunRecord& run) {
  const std::string id = "run " + std::to_string(run.id);
  if (isImportedRun(run))
    return id +
           " was imported from a measured file: it names no operator of ours, so only "
           "record.json and trials.csv are written (a T4 file of opevo's own, stored with "
           "`opevo import --restore --op OP --seed N`, exports its kernel)";
  return id +
         " is a replay of measurements made elsewhere: its kernel is not one of ours, so only "
         "record.json and trials.csv are written";
}

// Text as shell comment lines of at most 80 columns.
std::string shellComment(const std::string& text) {
  std::string out, line = "#";
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find_first_of(" \n", at), text.size());
    const std::string word = text.substr(at, end - at);
    if (!word.empty() && line.size() + 1 + word.size() > 80) {
      out += line + "\n";
      line = "#";
    }
    if (!word.empty()) line += " " + word;
    at = end + 1;
  }
  return line == "#" ? out : out + line + "\n";
}

// The files of an earlier export in `folder` that this one would replace.
std::vector<std::string> earlierExport(const std::string& folder,
                                       const std::vector<ExportFileContent>& files) {
  std::vector<std::string> found;
  std::error_code ignored;
  for (const ExportFileContent& f : files)
    if (std::filesystem::exists(std::filesystem::path(folder) / f.name, ignored))
      found.push_back(f.name);
  return found;
}

// Writes an export's files, all or none, unless the folder holds an earlier one's.
std::vector<std::string> writeFiles(const ExportOptions& options,
                                    const std::vector<ExportFileContent>& files) {
  if (!options.overwrite)
    if (const std::vector<std::string> earlier = earlierExport(options.outDir, files);
        !earlier.empty())
      throw ExistingExportError(options.outDir, earlier);
  return writeExportFolder(options.outDir, files);
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

}  // namespace

ExistingExportError::ExistingExportError(const std::string& folder,
                                         const std::vector<std::string>& files)
    : InputError("'" + folder + "' already holds an export (" + joined(files) +
                 "): nothing was written"),
      m_folder(folder),
      m_files(files) {}

std::string exportedTrialText(int trial, double speed, const std::string& unit, int fastestTrial,
                              double fastestSpeed) {
  const std::string text =
      "trial " + std::to_string(trial) + ", " + speedNumber(speed) + " " + unit;
  if (trial == fastestTrial) return text + " (the run's fastest)";
  return text + " (chosen side by side over trial " + std::to_string(fastestTrial) + "'s " +
         speedNumber(fastestSpeed) + " " + unit + ")";
}

KernelPreview previewBestKernel(const Store& store, std::int64_t runId,
                                const std::string& backend) {
  const RunBest r = findBest(store, runId);
  KernelPreview p;
  p.configuration = r.bestTrial().config;
  p.speed = r.bestTrial().speed;
  p.speedUnit = r.run.speedUnit;
  p.trial = r.bestTrial().seq;
  p.exported = r.exportedText();
  if (measuredElsewhere(r.run)) {
    p.note = replayNote(r.run);
    return p;
  }
  const BestKernel k = bestKernel(r, backend, Store::nowUtc());
  p.backend = k.backendName;
  p.fileName = "kernel." + k.ext;
  p.source = k.fileText;
  const auto& l = k.kernel.launch;
  p.summary = k.kernel.summary;
  // Grid, block and shared memory are a GPU launch's; a CPU kernel has none.
  if (k.backend != codegen::Backend::Cpu)
    p.summary += "; launch grid " + std::to_string(l.grid.x) + "x" + std::to_string(l.grid.y) +
                 "x" + std::to_string(l.grid.z) + ", block " + std::to_string(l.block.x) + "x" +
                 std::to_string(l.block.y) + "x" + std::to_string(l.block.z) + ", " +
                 std::to_string(l.sharedBytes) + " B shared";
  if (!r.chosenBy.empty()) p.note = "Chosen: " + r.chosenBy;
  if (k.backendName != r.run.backend)
    p.note += (p.note.empty() ? "" : "; ") + crossBackendNote(r.run.backend, k.backendName);
  return p;
}

ExportResult exportRun(const Store& store, std::int64_t runId, const ExportOptions& options) {
  const RunBest r = findBest(store, runId);
  const RunRecord& run = r.run;
  const TrialRow& best = r.bestTrial();
  // One date for every file: the kernel's header said the preview's time while record.json said
  // the write's.
  const std::string when = Store::nowUtc();
  // The kernel first: a configuration that cannot be exported leaves no partial folder behind.
  std::optional<BestKernel> kernel;
  if (!measuredElsewhere(run)) kernel = bestKernel(r, options.backend, when);

  ExportResult result;
  result.exported = r.exportedText();
  // Written together at the end, all or none: a full disk leaves no empty or partial file.
  std::vector<ExportFileContent> files;
  files.push_back({"trials.csv", trialsCsv(trialRecords(r.run, r.trials))});

  nlohmann::json record{{"run", runId},
                        {"operator", run.operatorName},
                        {"algorithm", run.algorithm},
                        {"backend", run.backend},
                        {"device", run.device},
                        {"configuration", best.config},
                        {"speed", best.speed},
                        {"speed_unit", run.speedUnit},
                        {"trial", best.seq},
                        {"trials", r.trials.size()},
                        {"chosen_by", r.chosenBy.empty() ? "fastest_trial" : "side_by_side"},
                        {"exported", when}};
  if (r.sideBySideSpeed) record["side_by_side_speed"] = *r.sideBySideSpeed;
  if (measuredElsewhere(run)) {
    result.note = replayNote(run);
    files.push_back({"record.json", record.dump(2) + "\n"});
    result.files = writeFiles(options, files);
    return result;
  }
  const BestKernel& k = *kernel;
  const std::string kernelFile = "kernel." + k.ext;
  files.push_back({kernelFile, k.fileText});
  files.push_back({"config.h", configHeader(k.def.space, k.config, k.kernel)});
  record["export_backend"] = k.backendName;
  // The speed above is the run's backend's; for another one nothing was measured.
  record["measured_on_export_backend"] = k.backendName == run.backend;
  if (!r.chosenBy.empty()) result.note = "exported " + r.chosenBy;
  if (k.backendName != run.backend)
    result.note += (result.note.empty() ? "" : "; ") + crossBackendNote(run.backend, k.backendName);
  record["entry"] = k.kernel.entry;
  record["launch"] = {
      {"grid", {k.kernel.launch.grid.x, k.kernel.launch.grid.y, k.kernel.launch.grid.z}},
      {"block", {k.kernel.launch.block.x, k.kernel.launch.block.y, k.kernel.launch.block.z}},
      {"shared_bytes", k.kernel.launch.sharedBytes}};
  record["operator_spec"] = operatorDefinitionToJson(k.def);
  files.push_back({"record.json", record.dump(2) + "\n"});

  const std::string check = "check." + k.ext;
  std::optional<layout::OperandLayouts> layouts;
  if (k.kernel.usesLayouts()) layouts = layout::operandLayouts(k.def.op, k.def.space, k.config);
  files.push_back(
      {check, hostProgram(k.def.op, k.kernel, kernelFile, layouts ? &*layouts : nullptr)});
  if (k.backend == codegen::Backend::Cpu)
    result.buildCommand = "g++ " + cpuKernelFlagsText() + " -o check check.cpp && ./check";
  else if (k.backend == codegen::Backend::Cuda)
    result.buildCommand = "nvcc -O3 -arch=native -o check check.cu && ./check";
  else
    result.buildCommand = "hipcc -O3 -o check check.hip && ./check";
  // A CPU check says how it is timed where the user reads first (it prints it too).
  const std::string timing = k.backend == codegen::Backend::Cpu
                                 ? shellComment(openMpWaitingNote("./check", "kernels"))
                                 : std::string();
  files.push_back({"build.sh",
                   "#!/bin/sh\n# Builds the self-check and runs it: it prints PASS or FAIL.\n" +
                       timing + "set -e\ncd \"$(dirname \"$0\")\"\n" + result.buildCommand + "\n",
                   true});
  result.files = writeFiles(options, files);
  return result;
}

}  // namespace opevo
