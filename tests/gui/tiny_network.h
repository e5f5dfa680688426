#pragma once

namespace opevo::ui::test {

// A network small enough that a CPU trial takes well under a second: one convolution with its
// bias and relu fused, a pool (a fixed kernel), a flatten (a view) and a dense layer. The
// Networks page's tests race it.
constexpr const char* kTinyNetwork = R"({
  "name": "tiny", "description": "a small CNN", "params": {"batch": 1},
  "inputs": [{"name": "image", "shape": ["batch", 3, 12, 12]}],
  "layers": [
    {"name": "c1", "op": "conv2d", "input": "image", "out_channels": 8, "kernel": 3,
     "padding": 1, "bias": true},
    {"name": "r1", "op": "relu", "input": "c1"},
    {"name": "p1", "op": "max_pool", "input": "r1", "kernel": 2, "stride": 2},
    {"name": "f1", "op": "flatten", "input": "p1"},
    {"name": "d1", "op": "dense", "input": "f1", "units": 10}
  ]})";

}  // namespace opevo::ui::test
