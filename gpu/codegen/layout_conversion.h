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

// The row-major layout of a layout's logical tensor (no primitives).
layout::Layout plainLayout(const layout::Layout& l);

}  // namespace opevo::codegen
