#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "net/network.h"

namespace opevo::net {

// How the libtorch reference runs a network (opevo-torch --form): eager, its operators called one
// after the other as the model is written, or frozen, as a deployed model runs (below).
enum class TorchForm { Eager, Frozen };
std::string_view torchFormName(TorchForm form);
// Throws InputError naming the forms; `where` (when not empty) names the option.
TorchForm parseTorchForm(std::string_view text, const std::string& where);
// The form of that name; none where this version knows no such form.
std::optional<TorchForm> torchFormNamed(std::string_view text);

// A network as TorchScript source, which opevo-torch compiles (torch::jit::Module::define), freezes
// and optimizes for inference (torch.jit.freeze, torch.jit.optimize_for_inference): how a
// performance engineer deploys a PyTorch model on a CPU, with batch norms folded and
// convolution weights packed once for oneDNN rather than at every call of an eager pass.
//
// The text is plain: one statement a layer, the same libtorch operators opevo-torch's eager pass
// calls. It lives here, apart from libtorch, so that the rest of the build can test it.
struct TorchScript {
  // A `forward` method taking the network's inputs in their order and returning its output.
  std::string source;
  // The module's buffers, in the order the source first reads them: the name the source reads
  // (self.NAME) and the layer and parameter role (Network::parameters) it holds.
  struct Buffer {
    std::string name;
    std::string layer;
    std::string role;
  };
  std::vector<Buffer> buffers;
};

TorchScript torchScriptOf(const Network& net);

}  // namespace opevo::net
