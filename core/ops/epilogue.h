#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opevo {

// An elementwise step applied to a complex operator's output before it is stored, in order: the
// work a network does between two convolutions or dense layers (bias, activation, residual add,
// scaling) fused into the kernel that produced the values, as TVM fuses a task's epilogue.
enum class EpilogueKind {
  Bias,   // + a per-channel vector (Conv2D: output channel; MatMul: column)
  Relu,   // max(x, 0)
  Gelu,   // x * Phi(x), the exact (erf) form
  Scale,  // x * factor
  Add,    // + a tensor of the output's shape (a residual)
  Relu6,  // min(max(x, 0), 6): MobileNet's activation (torch.nn.ReLU6)
};

struct EpilogueStep {
  EpilogueKind kind = EpilogueKind::Relu;
  double factor = 1;  // Scale only

  bool operator==(const EpilogueStep&) const = default;
};

using Epilogue = std::vector<EpilogueStep>;

std::string_view epilogueKindName(EpilogueKind kind);
// " +bias +relu", " *0.125": appended to an operator's description; empty for none.
std::string describeEpilogue(const Epilogue& epilogue);
// Extra operations per output element (for FLOP counts: gelu counts as 8, the others as 1).
double epilogueFlopsPerElement(const Epilogue& epilogue);

}  // namespace opevo
