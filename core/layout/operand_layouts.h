#pragma once

// What every joint layout template (conv2d_layout.h, matmul_layout.h) shares: the layouts its
// configurations give the operator's three operands, and the one place that picks the template
// for an operator.

#include <array>
#include <cstdint>
#include <string>

#include "layout/layout.h"
#include "ops/operator.h"
#include "space/search_space.h"

namespace opevo::layout {

// A, B and C of every kernel's signature: a Conv2D's input, weights and output; a MatMul's left
// operand, right operand and result.
struct OperandLayouts {
  Layout a, b, c;
};

// The most accumulators a template's register tile may have (a constraint of every joint space):
// beyond it the tile is no register tile.
inline constexpr std::int64_t kMaxAccumulators = 1024;

// The operands' names as the user sees them: "input", "weight", "output" for a Conv2D and "a",
// "b", "c" for a MatMul or BatchMatMul (tune --json's best_layouts, the window's layout tab).
std::array<std::string, 3> operandNames(const OperatorSpec& op);

// Which templates a joint space's start point is chosen for: the CPU's (register tiles of this
// machine's vector unit, x86 libraries' blockings) or the GPU's (gpu/codegen's layout templates:
// register tiles are threads, output tiles thread blocks; gpu_start.h). The points of the space
// are the same.
enum class StartDevice { Cpu, Gpu };

// The joint layout space of op's template (conv2dLayoutSpace, matmulLayoutSpace), starting where
// `device`'s start blocking says. Throws InputError naming what is missing where op has none.
SearchSpace layoutSpace(const OperatorSpec& op, StartDevice device = StartDevice::Cpu);

// The layouts a configuration of layoutSpace(op) gives the operands.
OperandLayouts operandLayouts(const OperatorSpec& op, const SearchSpace& space, const Config& c);

// For the templates' readers of a configuration: the second factor (the tile) of the two-factor
// parameter `name` of length `length`; InputError naming a missing or malformed parameter.
std::int64_t tileOf(const SearchSpace& space, const Config& c, const char* name,
                    std::int64_t length);
// The largest divisor of n that is at most limit (1 at least): start points' tiles.
std::int64_t divisorUpTo(std::int64_t n, std::int64_t limit);

// True when the space has layout parameters (names beginning with "layout.").
bool isLayoutSpace(const SearchSpace& space);
// True for the parameters a layout stage tunes (names beginning with "layout.").
bool isLayoutParameter(const std::string& name);

}  // namespace opevo::layout
