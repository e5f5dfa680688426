#include "kas/kas_runner.h"

#include <dlfcn.h>

#include <chrono>
#include <cmath>

#include "codegen/cpu_compiler.h"
#include "common/median.h"
#include "common/rng.h"
#include "common/run_watch.h"
#include "kas/budget_solver.h"
#include "kas/interpreter.h"
#include "kas/kas_json.h"

namespace opevo::kas {

nlohmann::json kasRequest(const nlohmann::json& kernel, const nlohmann::json& bindings,
                          const std::string& library, const std::string& entry) {
  return {{"cmd", "measure_kas"},
          {"kernel", kernel},
          {"bindings", bindings},
          {"library", library},
          {"entry", entry}};
}

namespace {

// The kernel, its layer's shapes, input, weights and reference output of the last request: the
// trials of one run all measure the same instance.
struct Instance {
  std::string key;
  MicroDag dag;
  std::vector<std::vector<std::int64_t>> dims;
  std::vector<float> input, reference;
  KernelWeights weights;
  std::vector<const float*> weightPointers;
};

Instance& instanceFor(const nlohmann::json& request) {
  static Instance instance;
  const std::string key = request.at("kernel").dump() + request.at("bindings").dump();
  if (instance.key == key) return instance;
  instance = Instance{};
  instance.dag = kernelFromJson(request.at("kernel"), "request");
  Bindings b{};
  b.fill(1);
  for (const auto& [name, value] : request.at("bindings").items()) {
    const auto symbol = parseSymbol(name);
    if (!symbol) throw std::invalid_argument("unknown symbol " + name);
    b[static_cast<std::size_t>(*symbol)] = value.get<std::int64_t>();
  }
  const auto cost = layerCost(instance.dag, b);
  if (!cost) throw std::invalid_argument("the kernel's sizes are not whole numbers at this layer");
  instance.dims = cost->shapes;
  Rng rng(1);
  const FlatShape in = flatShape(instance.dag.shapes()[0], instance.dims[0]);
  instance.input.resize(static_cast<std::size_t>(in.elements()));
  for (float& v : instance.input) v = static_cast<float>(rng.uniform() * 2 - 1);
  instance.weights = randomWeights(instance.dag, instance.dims, 2);
  for (const auto& w : instance.weights)
    instance.weightPointers.push_back(w.empty() ? nullptr : w.data());
  instance.reference = interpret(instance.dag, instance.dims, instance.input, instance.weights);
  instance.key = key;
  return instance;
}

}  // namespace

Measurement runKasKernel(const nlohmann::json& request, const TimingOptions& timing,
                         std::chrono::steady_clock::time_point taken) {
  Measurement m;
  Instance& inst = instanceFor(request);
  for (float v : inst.reference)
    if (!std::isfinite(v)) {
      m.status = TrialStatus::WrongResult;
      m.message = "the reference output is not finite at this layer (an exp overflows)";
      return m;
    }
  keepOpenMpRuntimeLoaded();
  const std::string path = request.at("library").get<std::string>();
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    m.status = TrialStatus::LaunchError;
    m.message = std::string("cannot load kernel library: ") + dlerror();
    return m;
  }
  using Entry = void (*)(const float*, const float* const*, float*);
  const std::string entry = request.value("entry", std::string("opevo_kas_kernel"));
  auto kernel = reinterpret_cast<Entry>(dlsym(library, entry.c_str()));
  if (!kernel) {
    m.status = TrialStatus::LaunchError;
    m.message = "kernel library lacks " + entry;
    dlclose(library);
    return m;
  }
  // Poisoned, so a kernel that skips elements cannot pass.
  std::vector<float> out(inst.reference.size(), 1e30f);
  const auto start = std::chrono::steady_clock::now();
  {
    // Given up far past the fastest schedule's time, as the CPU template's checked runs are.
    const WatchedRun watched(timing.giveUpMs);
    kernel(inst.input.data(), inst.weightPointers.data(), out.data());
  }
  const double checkedMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  double worst = 0;
  for (std::size_t i = 0; i < out.size(); ++i)
    worst = std::max(worst, std::fabs(static_cast<double>(out[i]) - inst.reference[i]) /
                                (1.0 + std::fabs(static_cast<double>(inst.reference[i]))));
  noteKernelRun(start, std::chrono::steady_clock::now());  // the check in the run's spell
  if (!(worst <= 1e-3)) {
    m.status = TrialStatus::WrongResult;
    m.message = "result differs from the primitive-by-primitive reference: max error " +
                std::to_string(worst);
    dlclose(library);
    return m;
  }
  const auto run = [&] { kernel(inst.input.data(), inst.weightPointers.data(), out.data()); };
  KernelTimes times = timeCheckedKernel(checkedMs, timing, taken, run);
  m.timesMs = std::move(times.timesMs);
  m.message = std::move(times.message);
  m.medianMs = median(m.timesMs);
  dlclose(library);
  return m;
}

}  // namespace opevo::kas
