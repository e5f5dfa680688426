// opevo-torch: the libtorch reference of a network. It builds the network file as written (batch
// norms not folded) with libtorch's operators, on the input and weights drawn from the seed
// exactly as the tuned network draws them (core/net/weights.h), runs its forward pass, writes the
// output and prints its timing as one JSON object. It is the only program that includes libtorch,
// so the rest of the build never pays for its headers.
//
//   opevo-torch NETWORK [--param k=v]... [--seed S] [--threads T] [--warmup W] [--runs R]
//               [--form eager|frozen] [--default-malloc] --out F
//
// F receives the output as raw float32 values (row-major).
//
// --form frozen runs the network as a deployed PyTorch model runs (torch.jit.freeze, then
// torch.jit.optimize_for_inference, from the TorchScript net/torch_script.h writes): batch norms
// folded, convolution weights packed once. Eager, the default, is the model as written. With
// OPEVO_TORCH_GRAPH set, the frozen graph is printed on standard error (what was folded, which
// operators run on oneDNN's blocked tensors).
//
// The framework is timed with freed memory kept for the next pass (keepFreedMemory): glibc gives
// blocks of 128 KiB and more back to the system when they are freed, so every eager forward pass
// page-faults its activations and its weights' reordered copies in again, which made ResNet-50
// several times slower on a 2-core EPYC (figures: docs/results/networks.md, "libtorch timed with
// its memory kept"). Performance engineers do not run a framework that way, so it is not what we
// compare with; --default-malloc times it as glibc leaves it.

#include <ATen/Parallel.h>
#include <malloc.h>
#include <sys/resource.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "common/error.h"
#include "net/network_json.h"
#include "net/torch_script.h"
#include "net/weights.h"

namespace {

using opevo::net::Layer;
using opevo::net::LayerKind;
using opevo::net::Network;
using opevo::net::TorchForm;

torch::Tensor toTorch(const opevo::net::Tensor& t) {
  return torch::from_blob(const_cast<float*>(t.data.data()),
                          std::vector<std::int64_t>(t.shape.begin(), t.shape.end()),
                          torch::kFloat32)
      .clone();
}

// The network's input and parameters, drawn once from the seed.
struct Tensors {
  Tensors(const Network& net, std::uint64_t seed) {
    for (const opevo::net::Input& in : net.inputs)
      inputs[in.name] = toTorch(opevo::net::drawInput(in, seed));
    for (const Layer& l : net.layers)
      for (const opevo::net::Parameter& p : net.parameters(l))
        params[l.name][p.role] = toTorch(opevo::net::drawParameter(l.name, p, seed));
  }
  std::map<std::string, torch::Tensor> inputs;
  std::map<std::string, std::map<std::string, torch::Tensor>> params;
};

// The network as libtorch operators called one after the other.
class EagerNetwork {
 public:
  EagerNetwork(const Network& net, Tensors tensors) : m_net(net), m_tensors(std::move(tensors)) {}

  torch::Tensor forward() {
    std::map<std::string, torch::Tensor> t = m_tensors.inputs;
    for (const Layer& l : m_net.layers) t[l.name] = apply(l, t);
    return t.at(m_net.output);
  }

 private:
  torch::Tensor param(const Layer& l, const char* role) {
    return m_tensors.params.at(l.name).at(role);
  }

  torch::Tensor apply(const Layer& l, const std::map<std::string, torch::Tensor>& t) {
    const torch::Tensor& x = t.at(l.inputs[0]);
    auto second = [&] { return t.at(l.inputs[1]); };
    switch (l.kind) {
      case LayerKind::Conv2D:
        return torch::conv2d(x, param(l, "weight"), l.bias ? param(l, "bias") : torch::Tensor(),
                             {l.stride, l.stride}, {l.pad, l.pad}, {1, 1}, l.groups);
      case LayerKind::Dense:
        return torch::linear(x, param(l, "weight"), l.bias ? param(l, "bias") : torch::Tensor());
      case LayerKind::MatMul:
        return torch::mm(l.transA ? x.t() : x, l.transB ? second().t() : second());
      case LayerKind::BatchMatMul:
        return torch::bmm(l.transA ? x.transpose(1, 2) : x,
                          l.transB ? second().transpose(1, 2) : second());
      case LayerKind::BiasAdd:
        return x.dim() == 4 ? x + param(l, "bias").view({1, -1, 1, 1}) : x + param(l, "bias");
      case LayerKind::Relu:
        return torch::relu(x);
      case LayerKind::Relu6:
        return torch::hardtanh(x, 0, 6);  // what torch.nn.ReLU6 computes
      case LayerKind::Gelu:
        return torch::gelu(x);
      case LayerKind::Scale:
        return x * l.factor;
      case LayerKind::Add:
        return x + second();
      case LayerKind::MaxPool:
        return torch::max_pool2d(x, {l.kernelH, l.kernelW}, {l.stride, l.stride}, {l.pad, l.pad});
      case LayerKind::AvgPool:
        return torch::avg_pool2d(x, {l.kernelH, l.kernelW}, {l.stride, l.stride}, {l.pad, l.pad},
                                 /*ceil_mode=*/false, /*count_include_pad=*/true);
      case LayerKind::GlobalAvgPool:
        return torch::adaptive_avg_pool2d(x, {1, 1});
      case LayerKind::Softmax:
        return torch::softmax(x, -1);
      case LayerKind::LayerNorm:
        return torch::layer_norm(x, {x.size(-1)}, param(l, "gamma"), param(l, "beta"), l.eps);
      case LayerKind::BatchNorm:
        return torch::batch_norm(x, param(l, "gamma"), param(l, "beta"), param(l, "mean"),
                                 param(l, "var"), /*training=*/false, 0.1, l.eps,
                                 /*cudnn_enabled=*/false);
      case LayerKind::Flatten:
        return x.flatten(1);
      case LayerKind::Reshape:
        return x.reshape(std::vector<std::int64_t>(l.target.begin(), l.target.end()));
      case LayerKind::Transpose:
        return x.permute(std::vector<std::int64_t>(l.target.begin(), l.target.end())).contiguous();
    }
    throw std::logic_error("unhandled layer kind");
  }

  const Network& m_net;
  Tensors m_tensors;
};

// The network as TorchScript, frozen and optimized for inference, as PyTorch deploys a model.
class FrozenNetwork {
 public:
  FrozenNetwork(const Network& net, const Tensors& tensors) {
    const opevo::net::TorchScript script = opevo::net::torchScriptOf(net);
    torch::jit::Module module("OpevoNetwork");
    for (const auto& b : script.buffers)
      module.register_buffer(b.name, tensors.params.at(b.layer).at(b.role));
    module.define(script.source);
    module.eval();
    // Frozen here: optimize_for_inference freezes only a module with a "training" attribute,
    // which Python's nn.Module has and a module built in C++ lacks. Unfrozen, its passes found
    // the parameters as attributes, folded and packed nothing, and ResNet-50 ran 1.1-1.4x slower
    // than eager.
    torch::jit::Module frozen = torch::jit::freeze(module);
    m_module = torch::jit::optimize_for_inference(frozen);
    if (std::getenv("OPEVO_TORCH_GRAPH"))
      std::cerr << *m_module.get_method("forward").graph() << "\n";
    for (const opevo::net::Input& in : net.inputs)
      m_inputs.emplace_back(tensors.inputs.at(in.name));
  }

  torch::Tensor forward() { return m_module.forward(m_inputs).toTensor(); }

 private:
  torch::jit::Module m_module;
  std::vector<torch::jit::IValue> m_inputs;
};

struct Options {
  std::string network, out;
  opevo::net::ParamOverrides params;
  std::uint64_t seed = 1;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int warmup = 3, runs = 20;
  TorchForm form = TorchForm::Eager;
  bool defaultMalloc = false;
};

long minorPageFaults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Every block up to 32 MiB (glibc's largest threshold) from a heap, and the heap's top not given
// back: a pass reuses the pages the last one freed. False where glibc refused either (a
// GLIBC_TUNABLES setting can lower the largest threshold).
bool keepFreedMemory() {
  return mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 &&
         mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max()) == 1;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw opevo::InputError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--param")
      o.params.insert(opevo::net::parseParamOverride(value()));
    else if (a == "--seed")
      o.seed = std::stoull(value());
    else if (a == "--threads")
      o.threads = std::stoi(value());
    else if (a == "--warmup")
      o.warmup = std::stoi(value());
    else if (a == "--runs")
      o.runs = std::stoi(value());
    else if (a == "--out")
      o.out = value();
    else if (a == "--form")
      o.form = opevo::net::parseTorchForm(value(), "--form");
    else if (a == "--default-malloc")
      o.defaultMalloc = true;
    else if (!a.empty() && a[0] != '-' && o.network.empty())
      o.network = a;
    else
      throw opevo::InputError("unknown argument '" + a + "'");
  }
  if (o.network.empty() || o.out.empty())
    throw opevo::InputError(
        "usage: opevo-torch NETWORK [--param k=v]... [--seed S] [--threads T] [--warmup W] "
        "[--runs R] [--form eager|frozen] [--default-malloc] --out FILE");
  if (o.threads < 1 || o.runs < 1 || o.warmup < 0)
    throw opevo::InputError("--threads and --runs must be positive, --warmup 0 or more");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    const bool kept = !o.defaultMalloc && keepFreedMemory();
    const Network net = opevo::net::loadNetwork(o.network, o.params, /*foldNorms=*/false);
    at::set_num_threads(o.threads);
    // Eager runs in inference mode, as PyTorch advises for inference. TorchScript's freezing
    // mutates its graph's tensors, which inference tensors refuse outside inference mode: the
    // frozen form runs without gradients instead.
    torch::NoGradGuard noGrad;
    std::optional<torch::InferenceMode> inference;
    if (o.form == TorchForm::Eager) inference.emplace();
    Tensors tensors(net, o.seed);
    std::function<torch::Tensor()> forward;
    std::optional<EagerNetwork> eager;
    std::optional<FrozenNetwork> frozen;
    const auto prepared = std::chrono::steady_clock::now();
    if (o.form == TorchForm::Frozen)
      forward = [&model = frozen.emplace(net, tensors)] { return model.forward(); };
    else
      forward = [&model = eager.emplace(net, std::move(tensors))] { return model.forward(); };
    const double prepareSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - prepared).count();
    torch::Tensor y;
    for (int i = 0; i < o.warmup; ++i) y = forward();
    std::vector<double> times;
    const long faultsBefore = minorPageFaults();
    for (int i = 0; i < o.runs; ++i) {
      const auto start = std::chrono::steady_clock::now();
      y = forward();
      times.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count());
    }
    const double faultsPerPass = double(minorPageFaults() - faultsBefore) / o.runs;
    y = y.contiguous();
    std::ofstream out(o.out, std::ios::binary);
    out.write(reinterpret_cast<const char*>(y.data_ptr<float>()),
              static_cast<std::streamsize>(y.numel() * sizeof(float)));
    if (!out) throw std::runtime_error("cannot write " + o.out);
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    std::cout << nlohmann::json{{"name", "libtorch"},
                                {"version", TORCH_VERSION},
                                {"threads", at::get_num_threads()},
                                {"form", opevo::net::torchFormName(o.form)},
                                // freezing and optimizing a frozen form, not timed in "ms"
                                {"prepare_seconds", prepareSeconds},
                                {"memory", kept              ? "kept"
                                           : o.defaultMalloc ? "glibc default"
                                                             : "glibc default (mallopt refused)"},
                                {"ms", sorted[sorted.size() / 2]},
                                {"times_ms", times},
                                {"page_faults_per_pass", faultsPerPass},
                                {"output_elements", y.numel()}}
                     .dump()
              << "\n";
    return 0;
  } catch (const opevo::InputError& e) {
    std::cerr << "opevo-torch: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "opevo-torch: " << e.what() << "\n";
    return 1;
  }
}
