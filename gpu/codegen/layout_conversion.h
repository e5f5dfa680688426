#pragma once

#include <string>

#include "codegen/code_writer.h"
#include "layout/layout.h"

namespace opevo::codegen {

// Writes extern "C" void NAME(const float* src, float* dst): a tensor laid out as `from` written
// out laid out as `to` (two layouts of the same logical tensor, dims in the same order; their
// names may differ). It visits every physical position of `to` and reads its logical element's
// home position in `from` (layout::Layout::offsetExpression), so padding becomes 0 and
// overlapping windows get their copies with no special case. Parallel (OpenMP) over enough outer
// loops to give every thread work even when the outermost one (a batch of 1) is one long.
void writeLayoutConversion(CodeWriter& w, const std::string& name, const layout::Layout& from,
                           const layout::Layout& to);

// What a CPU layout kernel's library exports beside the kernel ENTRY, for the harness and the
// network program (codegen/kernel_codegen.h): ENTRY_packed_size(operand) and the conversions
// ENTRY_pack_a, _pack_b, _pack_c (plain into the kernel's layouts) and _unpack_c (back).
void writeHarnessConversions(CodeWriter& w, const std::string& entry, const layout::Layout& a,
                             const layout::Layout& b, const layout::Layout& c);

// The row-major layout of a layout's logical tensor (no primitives).
layout::Layout plainLayout(const layout::Layout& l);

}  // namespace opevo::codegen
