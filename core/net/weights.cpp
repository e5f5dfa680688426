#include "net/weights.h"

#include <cmath>

#include "common/rng.h"

namespace opevo::net {
namespace {

// FNV-1a of the name, mixed with the seed: each tensor has its own stream.
std::uint64_t streamSeed(const std::string& name, std::uint64_t seed) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h ^ (seed * 0x9E3779B97F4A7C15ull);
}

std::vector<float> uniform(std::size_t n, double lo, double hi, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(lo + (hi - lo) * rng.uniform());
  return v;
}

}  // namespace

Tensor drawInput(const Input& input, std::uint64_t seed) {
  return {input.shape, uniform(static_cast<std::size_t>(elements(input.shape)), -1, 1,
                               streamSeed("input/" + input.name, seed))};
}

Tensor drawParameter(const std::string& layer, const Parameter& p, std::uint64_t seed) {
  const auto n = static_cast<std::size_t>(elements(p.shape));
  const std::uint64_t s = streamSeed(layer + "/" + p.role, seed);
  if (p.role == "weight") {
    // fan-in: everything but the output dimension (conv: C/groups x kh x kw; dense: in)
    const double fanIn = static_cast<double>(elements(p.shape) / p.shape[0]);
    const double bound = std::sqrt(6.0 / fanIn);
    return {p.shape, uniform(n, -bound, bound, s)};
  }
  if (p.role == "gamma" || p.role == "var") return {p.shape, uniform(n, 0.5, 1.5, s)};
  return {p.shape, uniform(n, -0.1, 0.1, s)};  // bias, beta, mean
}

std::map<std::string, Tensor> layerParameters(const Network& net, const Layer& layer,
                                              std::uint64_t seed) {
  std::map<std::string, Tensor> out;
  const Shape& in = net.shapeOf(layer.inputs[0]);
  if (layer.foldedNorm.empty()) {
    for (const Parameter& p : net.parameters(layer))
      out[p.role] = drawParameter(layer.name, p, seed);
    return out;
  }
  // The convolution as the file declared it (with or without its own bias), then the norm.
  const std::int64_t f = layer.outChannels;
  Tensor w = drawParameter(
      layer.name, {"weight", {f, in[1] / layer.groups, layer.kernelH, layer.kernelW}}, seed);
  std::vector<float> bias(static_cast<std::size_t>(f), 0.0f);
  if (layer.foldedConvHadBias) bias = drawParameter(layer.name, {"bias", {f}}, seed).data;
  auto norm = [&](const char* role) {
    return drawParameter(layer.foldedNorm, {role, {f}}, seed).data;
  };
  const std::vector<float> gamma = norm("gamma"), beta = norm("beta"), mean = norm("mean"),
                           var = norm("var");
  const auto perChannel = static_cast<std::size_t>(elements(w.shape) / f);
  for (std::size_t c = 0; c < static_cast<std::size_t>(f); ++c) {
    const double scale = gamma[c] / std::sqrt(static_cast<double>(var[c]) + layer.foldedEps);
    for (std::size_t i = 0; i < perChannel; ++i)
      w.data[c * perChannel + i] = static_cast<float>(w.data[c * perChannel + i] * scale);
    bias[c] = static_cast<float>((bias[c] - mean[c]) * scale + beta[c]);
  }
  out["weight"] = std::move(w);
  out["bias"] = {{f}, std::move(bias)};
  return out;
}

}  // namespace opevo::net
