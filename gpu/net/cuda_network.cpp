#include "net/cuda_network.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "codegen/device_limits.h"
#include "common/device_run.h"
#include "common/error.h"
#include "common/median.h"
#include "cuda/cuda_driver.h"
#include "cuda/cuda_runner.h"
#include "cuda/nvrtc_compiler.h"

namespace opevo::net {

using cuda::CudaDriver;
using cuda::DeviceBuffer;

struct CudaNetworkRun::Impl {
  explicit Impl(CudaDriver& driver) : d(driver) {}
  ~Impl() {
    try {  // a forward pass cut short by an error may still be running
      d.synchronize();
    } catch (const DeviceError&) {
    }
    for (void* module : modules) d.unloadModule(module);
  }
  CudaDriver& d;
  NetworkProgram program;
  std::vector<void*> modules;
  std::vector<std::unique_ptr<DeviceBuffer>> storage;  // tensors that are not views, params, lists
  std::vector<cuda::DevicePtr> tensors, params;        // device addresses (views alias)
  std::unique_ptr<DeviceBuffer> unused;  // a valid address for a task's absent Bias or Residual
  struct Step {
    std::string name;
    StepKind kind = StepKind::Task;
    cuda::Function f = nullptr;
    codegen::LaunchConfig launch;
    std::vector<cuda::DevicePtr> args;  // by value
    std::vector<void*> argv;            // their addresses, as cuLaunchKernel takes them
  };
  std::vector<Step> steps;
  std::vector<float> output;

  cuda::DevicePtr upload(const std::vector<float>& data, std::size_t elements) {
    storage.push_back(std::make_unique<DeviceBuffer>(d, std::max<std::size_t>(elements, 1) * 4));
    if (!data.empty()) d.copyToDevice(storage.back()->get(), data.data(), data.size() * 4);
    return storage.back()->get();
  }
  void launch(Step& s) {
    const codegen::LaunchConfig& l = s.launch;
    const unsigned grid[3] = {unsigned(l.grid.x), unsigned(l.grid.y), unsigned(l.grid.z)};
    const unsigned block[3] = {unsigned(l.block.x), unsigned(l.block.y), unsigned(l.block.z)};
    d.launch(s.f, grid, block, unsigned(l.sharedBytes), s.argv.data());
  }
  void forward() {
    for (Step& s : steps) launch(s);
  }
  // `runs` event-timed runs of `run`, each alone, after `warmup` untimed ones.
  std::vector<double> timed(int warmup, int runs, const std::function<void()>& run) {
    return timeOnDevice(d, run, TimingOptions{0, runs, runs, warmup}, /*coldL2=*/false);
  }
};

namespace {

// NVRTC over every module, as many at once as there are cores (a ResNet-18 program is a dozen
// modules of up to a few seconds each).
std::vector<CompileResult> compileAll(const std::vector<std::string>& sources,
                                      const std::string& arch) {
  std::vector<CompileResult> results(sources.size());
  std::atomic<std::size_t> next{0};
  const unsigned threads =
      std::clamp<unsigned>(std::thread::hardware_concurrency(), 1, unsigned(sources.size()) + 1);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < sources.size(); i = next++) {
        try {
          results[i] = NvrtcCompiler::shared().compile(sources[i], arch);
        } catch (const std::exception& e) {  // an exception must not leave the thread
          results[i].log = e.what();
        }
      }
    });
  for (std::thread& t : pool) t.join();
  return results;
}

}  // namespace

CudaNetworkRun::CudaNetworkRun(NetworkProgram program) {
  if (program.backend != codegen::Backend::Cuda)
    throw InputError("CUDA network run: the program is for " +
                     std::string(codegen::backendName(program.backend)));
  CudaDriver& d = CudaDriver::shared();
  if (!d.ready()) throw DeviceError(-1, "CUDA network run: " + d.reason());
  const NvrtcCompiler& nvrtc = NvrtcCompiler::shared();
  if (!nvrtc.available()) throw DeviceError(-1, "CUDA network run: " + nvrtc.unavailableReason());
  d.makeCurrent();
  m = std::make_unique<Impl>(d);
  m->program = std::move(program);
  const NetworkProgram& p = m->program;

  const auto started = std::chrono::steady_clock::now();
  const std::vector<CompileResult> built =
      compileAll(p.modules, cudaCompileArch(d.device().computeCapability()));
  m_compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (const auto& [entry, kernel] : p.kernels)
    if (!built[std::size_t(kernel.module)].ok)
      throw std::runtime_error("CUDA network run: kernel " + entry + " does not compile:\n" +
                               built[std::size_t(kernel.module)].log);
  for (const CompileResult& r : built) m->modules.push_back(d.loadModule(r.binary));

  // Tensors (each written tensor NaN until a step writes it), then parameters.
  for (const ProgramTensor& t : p.tensors) {
    if (t.aliasOf >= 0) {
      m->tensors.push_back(m->tensors[static_cast<std::size_t>(t.aliasOf)]);
      continue;
    }
    const std::size_t n = static_cast<std::size_t>(t.elements);
    m->tensors.push_back(m->upload(t.input, n));
    if (t.input.empty()) d.memset32(m->tensors.back(), 0x7fc00000u, std::max<std::size_t>(n, 1));
  }
  for (const std::vector<float>& q : p.params) m->params.push_back(m->upload(q, q.size()));
  m->unused = std::make_unique<DeviceBuffer>(d, sizeof(float));
  auto address = [&](const ProgramOperand& o) -> cuda::DevicePtr {
    if (o.kind == ProgramOperand::Kind::Tensor) return m->tensors[std::size_t(o.index)];
    if (o.kind == ProgramOperand::Kind::Param) return m->params[std::size_t(o.index)];
    return m->unused->get();
  };
  // A fixed kernel's `in` and `params` are device arrays of device pointers.
  auto pointerList = [&](const std::vector<ProgramOperand>& operands) {
    std::vector<cuda::DevicePtr> list;
    for (const ProgramOperand& o : operands) list.push_back(address(o));
    m->storage.push_back(
        std::make_unique<DeviceBuffer>(d, std::max<std::size_t>(list.size(), 1) * 8));
    if (!list.empty()) d.copyToDevice(m->storage.back()->get(), list.data(), list.size() * 8);
    return m->storage.back()->get();
  };
  for (const ProgramStep& step : p.steps) {
    const auto k = p.kernels.find(step.entry);
    if (k == p.kernels.end() || step.kind == StepKind::Convert)
      throw std::logic_error("CUDA network run: no kernel for step " + step.name);
    Impl::Step s{step.name, step.kind, nullptr, k->second.launch, {}, {}};
    s.f = d.getFunction(m->modules[std::size_t(k->second.module)], step.entry);
    // A tuned configuration fits the device (its trials launched); a configuration given
    // otherwise may not: say which step and why, before any launch.
    if (const auto broken = codegen::checkLaunch(s.launch, nullptr, cudaDeviceLimits(d, s.f));
        !broken.empty())
      throw DeviceError(-1, "CUDA network run: the kernel of " + step.name + " (" + step.entry +
                                ") " + broken.front());
    if (s.launch.sharedBytes > 48 * 1024)  // dynamic shared memory above 48 KiB is opted into
      d.setFunctionAttribute(s.f, CudaDriver::kFuncMaxDynamicSharedBytes,
                             int(s.launch.sharedBytes));
    const cuda::DevicePtr out = m->tensors[std::size_t(step.out)];
    if (step.kind == StepKind::Task)
      s.args = {address(step.in[0]), address(step.in[1]), out, address(step.in[2]),
                address(step.in[3])};
    else
      s.args = {pointerList(step.in), out, pointerList(step.params)};
    m->steps.push_back(std::move(s));
    // The addresses stay valid: a vector's elements do not move when the vector does.
    for (cuda::DevicePtr& a : m->steps.back().args) m->steps.back().argv.push_back(&a);
  }
  d.synchronize();
}

CudaNetworkRun::~CudaNetworkRun() = default;

const std::vector<float>& CudaNetworkRun::forward() {
  m->forward();
  m->d.synchronize();
  const ProgramTensor& out = m->program.tensors[std::size_t(m->program.output)];
  m->output.resize(std::size_t(out.elements));
  m->d.copyToHost(m->output.data(), m->tensors[std::size_t(m->program.output)],
                  m->output.size() * 4);
  return m->output;
}

std::vector<double> CudaNetworkRun::time(int warmup, int runs) {
  return m->timed(warmup, runs, [this] { m->forward(); });
}

std::vector<StepTime> CudaNetworkRun::stepTimes(int runs) {
  std::vector<StepTime> out;
  for (Impl::Step& s : m->steps)
    out.push_back({s.name, s.kind, median(m->timed(1, runs, [&] { m->launch(s); }))});
  return out;
}

std::string CudaNetworkRun::device() const {
  return m->d.device().describe();
}

}  // namespace opevo::net
