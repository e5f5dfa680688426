#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "codegen/cpu_compiler.h"
#include "codegen/device_limits.h"
#include "codegen/kernel_codegen.h"
#include "common/error.h"
#include "common/rng.h"
#include "cuda/nvrtc_compiler.h"
#include "hip/hiprtc_compiler.h"
#include "ops/operator_json.h"
#include "ops/presets.h"

namespace opevo::cli {
namespace {

using codegen::Backend;

struct CodegenCliOptions {
  std::string op;
  std::string backend = "cuda";
  std::string config;
  bool random = false;
  std::uint64_t seed = 1;
  bool compile = false;
  std::string arch;
  bool reference = false;
  std::string kernelTemplate;  // empty: as the operator says
};

// A failure of the machine rather than of the input (no compiler, a compile error): reported on
// stderr with status 1, after the source already printed.
[[noreturn]] void fail(const std::string& message) {
  std::cout.flush();
  std::cerr << "opevo: " << message << "\n";
  std::exit(1);
}

std::string defaultArch(Backend backend) {
  switch (backend) {
    case Backend::Cuda:
      return "sm_90";
    case Backend::Hip:
      return "gfx90a";
    case Backend::Cpu:
      return "native";
  }
  return "";
}

// Throws InputError for an arch the backend's compiler would not take.
void checkArch(Backend backend, const std::string& arch) {
  std::string bad;
  if (backend == Backend::Cuda) bad = NvrtcCompiler::shared().checkArch(arch);
  if (backend == Backend::Hip) bad = HiprtcCompiler::shared().checkArch(arch);
  if (backend == Backend::Cpu && arch != "native")
    bad = "the cpu backend compiles for the host only (--arch native)";
  if (!bad.empty()) throw InputError(bad);
}

std::string orUnknown(const std::optional<std::int64_t>& v, const char* unit) {
  return v ? std::to_string(*v) + unit : std::string("unknown");
}

void printReport(const codegen::GeneratedKernel& kernel, const CompileResult& r,
                 const std::string& compilerName) {
  std::printf("// ---- compiled for %s with %s ----\n", r.arch.c_str(), compilerName.c_str());
  std::error_code ignored;
  const std::uintmax_t bytes = r.kind == BinaryKind::SharedObject
                                   ? std::filesystem::file_size(r.path, ignored)
                                   : r.binary.size();
  std::printf("// result:    %s of %ju bytes in %.2f s\n",
              std::string(binaryKindName(r.kind)).c_str(), bytes, r.seconds);
  if (kernel.backend == Backend::Cpu) {
    std::printf("// registers and shared memory: not applicable to the cpu backend\n");
    return;
  }
  const codegen::LaunchConfig& l = kernel.launch;
  std::printf("// launch:    grid (%lld, %lld, %lld), block (%lld, %lld, %lld); %s\n",
              static_cast<long long>(l.grid.x), static_cast<long long>(l.grid.y),
              static_cast<long long>(l.grid.z), static_cast<long long>(l.block.x),
              static_cast<long long>(l.block.y), static_cast<long long>(l.block.z),
              kernel.summary.c_str());
  const auto it = r.resources.find(kernel.entry);
  if (it == r.resources.end()) {
    std::printf("// registers, shared memory: not reported by this compiler for %s\n",
                r.arch.c_str());
  } else {
    const KernelResources& k = it->second;
    const std::optional<std::int64_t> regs =
        k.registers ? std::optional<std::int64_t>(*k.registers) : std::nullopt;
    std::printf("// registers: %s per thread%s\n", orUnknown(regs, "").c_str(),
                k.scalarRegisters
                    ? (" (VGPRs), " + std::to_string(*k.scalarRegisters) + " SGPRs").c_str()
                    : "");
    std::printf("// shared memory: %lld bytes dynamic (launch) + %s static\n",
                static_cast<long long>(kernel.launch.sharedBytes),
                orUnknown(k.staticSharedBytes, " bytes").c_str());
    std::printf("// local memory: %s per thread (stack frame / scratch)",
                orUnknown(k.localBytes, " bytes").c_str());
    if (k.spillStoreBytes)
      std::printf(", %lld bytes of spill stores", static_cast<long long>(*k.spillStoreBytes));
    if (k.spilledRegisters) std::printf(", %d registers spilled", *k.spilledRegisters);
    std::printf("\n");
  }
  const auto problems =
      codegen::checkLaunch(kernel.launch, it == r.resources.end() ? nullptr : &it->second,
                           codegen::nominalLimits(r.arch));
  for (const std::string& p : problems)
    std::printf("// warning:   cannot launch on %s: %s\n", r.arch.c_str(), p.c_str());
}

void compileAndReport(const codegen::GeneratedKernel& kernel, Backend backend,
                      const std::string& arch);

// A random configuration whose kernel the architecture can launch: the space's constraints hold
// for every device, but shared memory and the grid's extent differ by architecture, and a random
// draw that only compiles to a warning "cannot launch" helps nobody. Registers are known only
// after compiling, so a draw can still be refused for them there.
Config drawLaunchable(const OperatorDefinition& def, Backend backend, const std::string& arch,
                      std::uint64_t seed) {
  constexpr int kDraws = 1000;
  Rng rng(seed);
  const codegen::DeviceLimits limits = codegen::nominalLimits(arch);
  std::string lastProblem;
  for (int i = 0; i < kDraws; ++i) {
    const auto drawn = def.space.randomValid(rng);
    if (!drawn && i == 0)
      throw InputError("no configuration of " + def.op.name + " satisfies the constraints");
    if (!drawn) break;  // the draws that satisfy the constraints are few, and none launched
    if (backend == Backend::Cpu) return *drawn;
    const auto problems = codegen::checkLaunch(
        codegen::generateKernel(def.op, def.space, *drawn, backend).launch, nullptr, limits);
    if (problems.empty()) {
      if (i > 0)
        std::fprintf(stderr, "opevo: drew %d configurations; %s cannot launch on %s\n", i + 1,
                     i == 1 ? "the first" : ("the first " + std::to_string(i)).c_str(),
                     arch.c_str());
      return *drawn;
    }
    lastProblem = problems.front();
  }
  throw InputError("no random configuration of " + def.op.name + " drawn can launch on " + arch +
                   " (the last " + lastProblem + ")");
}

void runCodegen(const CodegenCliOptions& o) {
  const Backend backend = codegen::parseBackend(o.backend);
  // The space a run on this backend tunes: GPU runs have parameters of their own (split_k...).
  // A preset or an operator file, with the file's own space.
  OperatorDefinition loaded = loadOperator(o.op);
  // --template, else the operator file's choice of a template with a space of its own (Winograd,
  // matrix-vector), else the direct one; in the space a run on this backend tunes.
  const SpaceTarget chosen = o.kernelTemplate == "winograd" ? SpaceTarget::Winograd
                             : o.kernelTemplate == "matvec" ? SpaceTarget::MatVec
                             : o.kernelTemplate.empty() && usesOwnTemplate(loaded.target)
                                 ? loaded.target
                                 : SpaceTarget::Common;
  if (!o.kernelTemplate.empty())
    requireTemplateFits(loaded.op, chosen, "--template " + o.kernelTemplate);
  const SpaceTarget target = backend == Backend::Cpu ? commonTarget(chosen) : gpuTarget(chosen);
  const OperatorDefinition def = withSpaceTarget(std::move(loaded), target);
  const OperatorSpec& op = def.op;
  const SearchSpace& space = def.space;
  if (o.reference && (o.random || !o.config.empty()))
    throw InputError("--reference prints the operator's naive kernel and takes no configuration");
  if (!o.reference && o.random == !o.config.empty())
    throw InputError("give exactly one of --config \"<tile_...=...; ...>\" and --random");
  if (!o.arch.empty() && !o.compile) throw InputError("--arch is only used with --compile");
  const std::string arch = o.arch.empty() ? defaultArch(backend) : o.arch;
  if (o.compile) checkArch(backend, arch);

  if (o.reference) {
    const codegen::GeneratedKernel kernel = codegen::generateReferenceKernel(op, backend);
    std::cout << kernel.source;
    if (o.compile) compileAndReport(kernel, backend, arch);
    return;
  }
  Config config;
  if (o.random) {
    config = drawLaunchable(def, backend, arch, o.seed);
  } else {
    config = space.parse(o.config);
  }
  if (std::string broken; !space.satisfies(config, &broken)) {
    // The block's size helps only with a constraint on it; a CPU kernel has no blocks.
    const bool onThreads = backend != Backend::Cpu && broken.find("threads") != std::string::npos;
    throw InputError("the configuration breaks the constraint '" + broken + "'" +
                     (onThreads ? " (it has " + std::to_string(threadsPerBlock(op, space, config)) +
                                      " threads per block)"
                                : std::string()));
  }
  const codegen::GeneratedKernel kernel = codegen::generateKernel(op, space, config, backend);
  std::cout << kernel.source;
  if (o.compile) compileAndReport(kernel, backend, arch);
}

void compileAndReport(const codegen::GeneratedKernel& kernel, Backend backend,
                      const std::string& arch) {
  std::cout.flush();

  CompileResult r;
  std::string compilerName;
  std::optional<TempDir> dir;  // the cpu backend's .so, kept until it has been reported
  if (backend == Backend::Cuda) {
    const NvrtcCompiler& nvrtc = NvrtcCompiler::shared();
    if (!nvrtc.available()) fail(nvrtc.unavailableReason());
    compilerName = "NVRTC " + nvrtc.version() + " (" + nvrtc.library() + ")";
    r = nvrtc.compile(kernel.source, arch);
  } else if (backend == Backend::Hip) {
    const HiprtcCompiler& hiprtc = HiprtcCompiler::shared();
    if (!hiprtc.available()) fail(hiprtc.unavailableReason());
    compilerName = "hiprtc " + hiprtc.version() + " (" + hiprtc.library() + ")";
    r = hiprtc.compile(kernel.source, arch);
  } else {
    dir.emplace("opevo-codegen");
    compilerName = "the system compiler (c++ " + cpuKernelFlagsText() + " -shared -fPIC)";
    r = compileCpuKernel(kernel.source, dir->path());
  }
  if (!r.ok) {
    std::cerr << r.log << (r.log.empty() || r.log.back() == '\n' ? "" : "\n");
    dir.reset();  // fail() exits without unwinding
    fail("compiling the " + std::string(codegen::backendName(backend)) + " kernel for " + arch +
         " failed (compiler messages above)");
  }
  printReport(kernel, r, compilerName);
}

}  // namespace

void addCodegenCommand(CLI::App& app) {
  auto o = std::make_shared<CodegenCliOptions>();
  auto* cmd = app.add_subcommand(
      "codegen", "Print the kernel source of a configuration; --compile also compiles it");
  cmd->add_option("--op", o->op,
                  "Preset operator (MM1-3, BMM1-3, C1-2, AlexNet/ResNet/MobileNetV2 layers) or "
                  "operator file")
      ->required();
  cmd->add_option("--backend", o->backend, "cuda, hip or cpu (default cuda)");
  cmd->add_option("--template", o->kernelTemplate,
                  "direct (the default, unless an operator file names another), winograd "
                  "(stride-1 Conv2Ds) or matvec (at most 16 rows of A, B stored m x k: dense "
                  "layers at small batches); cpu, cuda and hip")
      ->check(CLI::IsMember({"direct", "winograd", "matvec"}));
  cmd->add_option(
      "--config", o->config,
      "Configuration as `opevo tune` prints it after \"best:\" and `opevo show RUN` lists it, "
      "e.g. \"tile_n=32,2,1,8; tile_m=2,256,1,2; tile_k=1,1,1024\" (`opevo space` shows "
      "each parameter's choices)");
  cmd->add_flag("--random", o->random, "Use a random configuration that satisfies the constraints");
  cmd->add_option("--seed", o->seed, "Seed for --random (default 1)");
  cmd->add_flag("--compile", o->compile,
                "Compile it: NVRTC (cuda), hiprtc (hip) or c++ -O3 -fopenmp (cpu), and report "
                "registers and shared memory");
  cmd->add_option("--arch", o->arch, "With --compile: sm_NN (default sm_90) or gfxNNN (gfx90a)");
  cmd->add_flag("--reference", o->reference,
                "Print the operator's naive reference kernel instead (no configuration)");
  cmd->callback([o] { runCodegen(*o); });
}

}  // namespace opevo::cli
