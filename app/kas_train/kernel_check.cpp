#include "kas_train/kernel_check.h"

#include <cmath>

#include "common/rng.h"
#include "kas/interpreter.h"
#include "kas_train/kernel_module.h"

namespace opevo::kastrain {
namespace {

struct Difference {
  double maxDiff = 0, maxAbs = 0;
  std::size_t worst = 0;
  double relative() const { return maxAbs > 0 ? maxDiff / maxAbs : maxDiff; }
};

// Elements equal as bits of meaning (an inf or NaN in the same place on both sides) differ by 0;
// a non-finite value on one side only differs infinitely.
Difference compare(const std::vector<float>& expected, const float* actual) {
  Difference d;
  for (std::size_t e = 0; e < expected.size(); ++e) {
    const float a = expected[e], b = actual[e];
    if (std::isfinite(a)) d.maxAbs = std::max(d.maxAbs, static_cast<double>(std::fabs(a)));
    double diff = 0;
    if (std::isfinite(a) && std::isfinite(b))
      diff = std::fabs(static_cast<double>(a) - static_cast<double>(b));
    else if (!(a == b || (std::isnan(a) && std::isnan(b))))
      diff = INFINITY;
    if (diff > d.maxDiff) {
      d.maxDiff = diff;
      d.worst = e;
    }
  }
  return d;
}

std::vector<float> imageOf(const torch::Tensor& flat, std::int64_t b) {
  const torch::Tensor t = flat[b].contiguous();
  return {t.data_ptr<float>(), t.data_ptr<float>() + t.numel()};
}

// The DAG up to and including `last`: the interpreter returns that node's value.
std::optional<kas::MicroDag> prefix(const kas::MicroDag& dag, std::size_t last) {
  std::vector<kas::Node> nodes(dag.nodes().begin() + 1,
                               dag.nodes().begin() + static_cast<std::ptrdiff_t>(last) + 1);
  std::vector<kas::Substitution> subs;
  for (const auto& [x, value] : dag.substitutions()) subs.push_back({x, value});
  kas::MicroDag out = kas::MicroDag::unchecked(std::move(nodes), subs);
  if (out.refresh()) return std::nullopt;
  for (std::size_t i = 0; i <= last; ++i)
    if (out.shapes()[i] != dag.shapes()[i]) return std::nullopt;
  return out;
}

double finiteOr(double v, double fallback) {
  return std::isfinite(v) ? v : fallback;
}

// The first node whose value differs, on image `b`.
nlohmann::json firstMismatch(const kas::MicroDag& dag,
                             const std::vector<std::vector<std::int64_t>>& dims,
                             const kas::KernelWeights& weights, const std::vector<float>& image,
                             const std::vector<torch::Tensor>& values, std::int64_t b,
                             double tolerance) {
  for (std::size_t k = 1; k < dag.nodes().size(); ++k) {
    const auto part = prefix(dag, k);
    if (!part) break;
    const auto n = static_cast<std::ptrdiff_t>(k) + 1;
    const std::vector<std::vector<std::int64_t>> partDims(dims.begin(), dims.begin() + n);
    const kas::KernelWeights partWeights(weights.begin(), weights.begin() + n);
    const std::vector<float> expected = kas::interpret(*part, partDims, image, partWeights);
    const std::vector<float> actual = imageOf(values[k], b);
    const Difference d = compare(expected, actual.data());
    if (d.relative() <= tolerance) continue;
    return {{"node", k},
            {"op", std::string(kas::primitiveName(dag.nodes()[k].kind))},
            {"element", d.worst},
            {"torch", finiteOr(actual[d.worst], NAN)},
            {"interpreter", finiteOr(expected[d.worst], NAN)},
            {"relative_difference", finiteOr(d.relative(), 1e300)}};
  }
  return {{"node", dag.output()}, {"op", "output"}};
}

}  // namespace

CheckResult checkKernel(const kas::MicroDag& dag, const kas::Solution& solution,
                        const std::vector<kas::ConvTarget>& targets, std::uint64_t seed, int batch,
                        double tolerance) {
  torch::NoGradGuard noGrad;
  CheckResult result;
  nlohmann::json layers = nlohmann::json::array();
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const auto& dims = solution.layers[t].shapes;
    const kas::KernelWeights weights = kas::randomWeights(dag, dims, seed + t);
    KernelModule module(dag, dims);
    module->setWeights(weights);
    const kas::FlatShape in = kas::flatShape(dag.shapes().front(), dims.front());
    Rng rng(seed * 1000003 + t);
    std::vector<float> data(static_cast<std::size_t>(batch * in.elements()));
    for (float& v : data) v = static_cast<float>(rng.uniform() * 2 - 1);
    const torch::Tensor input =
        torch::from_blob(data.data(), {batch, in.channels, in.h, in.w}, torch::kFloat32).clone();
    const std::vector<torch::Tensor> values = module->forwardAll(input);
    Difference worst;
    nlohmann::json mismatch;
    for (std::int64_t b = 0; b < batch; ++b) {
      const std::vector<float> image(data.begin() + b * in.elements(),
                                     data.begin() + (b + 1) * in.elements());
      const std::vector<float> expected = kas::interpret(dag, dims, image, weights);
      const Difference d = compare(expected, imageOf(values.back(), b).data());
      if (d.relative() > worst.relative() || b == 0) worst = d;
      if (d.relative() > tolerance && mismatch.is_null()) {
        mismatch = firstMismatch(dag, dims, weights, image, values, b, tolerance);
        mismatch["image"] = b;
      }
    }
    nlohmann::json layer{{"name", targets[t].name},
                         {"channels", targets[t].channels},
                         {"height", targets[t].height},
                         {"width", targets[t].width},
                         {"max_abs_diff", finiteOr(worst.maxDiff, 1e300)},
                         {"max_abs", worst.maxAbs},
                         {"relative", finiteOr(worst.relative(), 1e300)},
                         {"ok", mismatch.is_null()}};
    if (!mismatch.is_null()) {
      layer["mismatch"] = std::move(mismatch);
      result.ok = false;
    }
    layers.push_back(std::move(layer));
  }
  result.report = {{"match", result.ok},
                   {"tolerance", tolerance},
                   {"batch", batch},
                   {"layers", std::move(layers)}};
  return result;
}

}  // namespace opevo::kastrain
