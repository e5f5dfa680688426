#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net/network_json.h"
#include "net/torch_script.h"

namespace opevo::net {

// What opevo-torch (app/torch) measured: libtorch's own forward pass of the network as written,
// on the same seeded input and weights, eager or frozen.
struct TorchResult {
  std::string version;
  TorchForm form = TorchForm::Eager;
  int threads = 0;
  double ms = 0;  // median
  std::vector<double> timesMs;
  std::vector<float> output;
};

struct TorchOptions {
  std::uint64_t seed = 1;
  int threads = 0;  // 0: every core
  int warmup = 3;
  int runs = 20;
  TorchForm form = TorchForm::Eager;
};

// "libtorch 1.13.0", "libtorch 1.13.0 frozen" (the version libtorch reports): how results and
// tables name the reference.
std::string torchReferenceName(const TorchResult& r);

// Runs opevo-torch ($OPEVO_TORCH, else beside this program, else on PATH) on the network (a
// preset name or file, as given to loadNetwork). Nullopt with *why set when the program is
// missing (libtorch-dev was not installed at build time) or fails.
std::optional<TorchResult> runTorchReference(const std::string& network,
                                             const ParamOverrides& params,
                                             const TorchOptions& options, std::string* why);

}  // namespace opevo::net
