// Split K, shared by the GPU MatMul and direct Conv2D templates (templates.h).

#include "codegen/templates.h"

namespace opevo::codegen::detail {

void writeSplitKTurns(CodeWriter& w, const std::string& turn, std::int64_t tiles) {
  w.comment(
      "Split K: which split of each output tile adds its partial sums next. Zero when the\n"
      "module loads; the last split sets it back to zero, so every launch starts from zero.");
  w.line("__device__ unsigned int " + turn + "[" + std::to_string(tiles) + "];");
  w.line();
}

// The splits of one output tile add their partial sums into C in turn, the last one applying
// the epilogue: deterministic sums, no workspace and no zeroed C (the kernel keeps the one
// signature). Split s waits for split s - 1 of its tile; it cannot wait on a block not yet
// started, since blocks start in launch order and every split s - 1 block comes first (the
// templates put the splits last along grid z), and split 0 waits for nothing. C is read through
// a volatile pointer so that the partial sums another SM wrote are not served from this SM's L1.
void writeSplitKStore(CodeWriter& w, const std::string& turn, const std::string& tile,
                      const std::function<void()>& writeStores) {
  w.line("const unsigned tile = " + tile + ";");
  w.open("if (split > 0)");
  w.open("if (tid == 0)");
  w.line("while (atomicAdd(&" + turn + "[tile], 0u) != (unsigned)split) {");
  w.line("}");
  w.line("__threadfence();  // what split - 1 wrote before its turn ended is visible now");
  w.close();
  w.line("__syncthreads();");
  w.close();
  w.line("const volatile float* partial = C;");
  writeStores();
  w.line("__threadfence();  // this split's sums reach global memory before its turn ends");
  w.line("__syncthreads();");
  w.line("if (tid == 0) atomicExch(&" + turn +
         "[tile], split == SPLIT_K - 1 ? 0u : (unsigned)split + 1u);");
}

void writeSplitKSum(CodeWriter& w, const OperatorSpec& op, Backend backend,
                    const std::string& value, const std::string& channel,
                    const std::string& offset) {
  w.line("if (split > 0) " + value + " += partial[" + offset + "];");
  if (op.epilogue.empty()) return;
  w.open("if (split == SPLIT_K - 1)");
  writeEpilogue(w, op, backend, value, channel, offset);
  w.close();
}

}  // namespace opevo::codegen::detail
