// The code of a fused epilogue (bias, relu, gelu, scale, residual add) and the kernel parameters
// that carry its operands: one place for every template and the reference kernels.

#include <cstdio>

#include "codegen/templates.h"

namespace opevo::codegen::detail {

std::string kernelParams(Backend backend) {
  const std::string r = backend == Backend::Cpu ? "__restrict__" : "OPEVO_RESTRICT";
  return "(const float* " + r + " A, const float* " + r + " B, float* " + r + " C, const float* " +
         r + " Bias, const float* " + r + " Residual)";
}

void writeEpilogue(CodeWriter& w, const OperatorSpec& op, Backend backend, const std::string& value,
                   const std::string& channel, const std::string& offset) {
  // CPU sources are compiled without includes: the builtins stand in for <cmath>.
  const bool cpu = backend == Backend::Cpu;
  const std::string fmax = cpu ? "__builtin_fmaxf" : "fmaxf";
  const std::string erf = cpu ? "__builtin_erff" : "erff";
  for (const EpilogueStep& s : op.epilogue) {
    switch (s.kind) {
      case EpilogueKind::Bias:
        w.line(value + " += Bias[" + channel + "];");
        break;
      case EpilogueKind::Relu:
        w.line(value + " = " + fmax + "(" + value + ", 0.0f);");
        break;
      case EpilogueKind::Gelu:
        w.line(value + " = 0.5f * " + value + " * (1.0f + " + erf + "(" + value +
               " * 0.70710678118654752f));");
        break;
      case EpilogueKind::Scale: {
        char factor[40];
        std::snprintf(factor, sizeof factor, "%.9g", s.factor);
        w.line(value + " *= (float)(" + factor + ");");
        break;
      }
      case EpilogueKind::Add:
        w.line(value + " += Residual[" + offset + "];");
        break;
    }
  }
}

}  // namespace opevo::codegen::detail
