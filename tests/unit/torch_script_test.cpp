// The TorchScript opevo-torch freezes (core/net/torch_script.h): one statement a layer, with the
// eager pass's operators and arguments, and each parameter read from the buffer that holds it.

#include "net/torch_script.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "net/network_json.h"

namespace opevo::net {
namespace {

TEST(TorchScript, OneStatementALayerReadingItsBuffers) {
  const Network n = networkFromText(R"({
    "name": "tiny", "params": {"batch": 2},
    "inputs": [{"name": "image", "shape": ["batch", 3, 8, 8]}],
    "layers": [
      {"name": "conv.1", "op": "conv2d", "input": "image", "out_channels": 4, "kernel": 3,
       "stride": 2, "padding": 1, "groups": 1},
      {"name": "bn", "op": "batch_norm", "input": "conv.1", "eps": 0.001},
      {"name": "clip", "op": "relu6", "input": "bn"},
      {"name": "pool", "op": "avg_pool", "input": "clip", "kernel": 2, "stride": 2},
      {"name": "sum", "op": "add", "inputs": ["pool", "pool"]},
      {"name": "flat", "op": "flatten", "input": "sum"},
      {"name": "fc", "op": "dense", "input": "flat", "units": 5, "bias": true},
      {"name": "half", "op": "scale", "input": "fc", "factor": 0.5},
      {"name": "norm", "op": "layer_norm", "input": "half"}
    ],
    "output": "norm"})",
                                    "tiny.json", {}, /*foldNorms=*/false);
  const TorchScript s = torchScriptOf(n);
  EXPECT_EQ(
      s.source,
      "def forward(self, x0: Tensor):\n"
      "    t0 = torch.conv2d(x0, self.p0_weight, None, [2, 2], [1, 1], [1, 1], 1)\n"
      "    t1 = torch.batch_norm(t0, self.p1_gamma, self.p1_beta, self.p1_mean, self.p1_var, "
      "False, 0.1, 0.001, False)\n"
      "    t2 = torch.hardtanh(t1, 0.0, 6.0)\n"
      "    t3 = torch.avg_pool2d(t2, [2, 2], [2, 2], [0, 0], False, True)\n"
      "    t4 = t3 + t3\n"
      "    t5 = torch.flatten(t4, 1)\n"
      "    t6 = torch.linear(t5, self.p6_weight, self.p6_bias)\n"
      "    t7 = t6 * 0.5\n"
      "    t8 = torch.layer_norm(t7, [5], self.p8_gamma, self.p8_beta, 1.0000000000000001e-05)\n"
      "    return t8\n");
  // Every parameter the eager pass reads, under a name TorchScript accepts (layer names may hold
  // dots), with its layer and role.
  std::vector<std::string> held;
  for (const auto& b : s.buffers) held.push_back(b.name + "=" + b.layer + "." + b.role);
  EXPECT_EQ(held, (std::vector<std::string>{"p0_weight=conv.1.weight", "p1_gamma=bn.gamma",
                                            "p1_beta=bn.beta", "p1_mean=bn.mean", "p1_var=bn.var",
                                            "p6_weight=fc.weight", "p6_bias=fc.bias",
                                            "p8_gamma=norm.gamma", "p8_beta=norm.beta"}));
}

// mm's and bmm's left operand read transposed, a bias added to a 4-D tensor's channels
// (broadcast over its rows and columns).
TEST(TorchScript, TransposedOperandsAndAChannelBias) {
  const Network n =
      loadNetwork(std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_transposed_ops.json", {},
                  /*foldNorms=*/false);
  const std::string source = torchScriptOf(n).source;
  for (const char* statement :
       {"    t1 = t0 + self.p1_bias.view([1, -1, 1, 1])\n", "    t5 = torch.mm(t4.t(), t4)\n",
        "    t9 = torch.bmm(t8.transpose(1, 2), t8)\n"})
    EXPECT_NE(source.find(statement), std::string::npos) << statement << " in\n" << source;
}

TEST(TorchScript, EveryPresetHasAScript) {
  for (const NetworkPreset& p : networkPresets()) {
    const Network n = loadNetwork(p.name, {}, /*foldNorms=*/false);
    const TorchScript s = torchScriptOf(n);
    std::size_t params = 0;
    for (const Layer& l : n.layers) params += n.parameters(l).size();
    EXPECT_EQ(s.buffers.size(), params) << p.name;
    EXPECT_NE(s.source.find("return t" + std::to_string(n.layers.size() - 1) + "\n"),
              std::string::npos)
        << p.name;
  }
}

TEST(TorchScript, FormsAreNamed) {
  EXPECT_EQ(parseTorchForm("frozen", "--torch-form"), TorchForm::Frozen);
  EXPECT_EQ(torchFormName(TorchForm::Eager), "eager");
  try {
    parseTorchForm("jit", "--torch-form");
    FAIL() << "jit is no form";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--torch-form: unknown form 'jit' (forms: eager or frozen)");
  }
}

}  // namespace
}  // namespace opevo::net
