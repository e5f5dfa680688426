// The code of a fused epilogue (bias, relu, relu6, gelu, scale, residual add) and the kernel
// parameters that carry its operands: one place for every template and the reference kernels.

#include <cstdio>

#include "codegen/templates.h"

namespace opevo::codegen::detail {
namespace {

// GELU's erf on the CPU from multiplies, adds and one division, so that the loop around an
// epilogue vectorizes: glibc's erff is scalar code, about 12 ns an element, which took 3 of the
// 6 ms of BERT's ffn_in (128 x 3072 outputs). erf(a) = 1 - t (a1 + t (a2 + ... a5 t)) e^(-a^2),
// t = 1 / (1 + p a) (Abramowitz and Stegun 7.1.26, error at most 1.5e-7); e^(-a^2) is
// (e^(-a^2 / 16))^16, e^z for z in [-1, 0] as e^(-1/2) times the Taylor series of e^(z + 1/2) to
// degree 8 (relative error under 1e-8 before the squarings, a few 1e-7 after). |a| is capped at
// 4, where erf is 1 in float. 393,216 of them take 0.22 ms here, against 4.8 ms with erff.
void writeCpuGelu(CodeWriter& w, const std::string& value) {
  w.open("");
  w.line("const float gx = " + value + " * 0.70710678118654752f;");
  // A select, not fminf: without -ffinite-math-only GCC does not vectorize fminf, and then
  // nothing in the loop is.
  w.line("const float gabs = __builtin_fabsf(gx);");
  w.line("const float ga = gabs < 4.0f ? gabs : 4.0f;");
  w.line("const float gt = 1.0f / (1.0f + 0.3275911f * ga);");
  w.line("const float gz = 0.5f - ga * ga * 0.0625f;");
  w.line(
      "float ge = 1.0f + gz * (1.0f + gz * (0.5f + gz * (1.0f / 6 + gz * (1.0f / 24 + gz * "
      "(1.0f / 120 + gz * (1.0f / 720 + gz * (1.0f / 5040 + gz * (1.0f / 40320))))))));");
  w.line("ge *= 0.60653065971263342f;");
  w.line("ge *= ge;");
  w.line("ge *= ge;");
  w.line("ge *= ge;");
  w.line("ge *= ge;");
  w.line(
      "const float gp = gt * (0.254829592f + gt * (-0.284496736f + gt * (1.421413741f + gt * "
      "(-1.453152027f + gt * 1.061405429f))));");
  w.line("const float gerf = 1.0f - gp * ge;");
  w.line(value + " = 0.5f * " + value + " * (1.0f + (gx < 0.0f ? -gerf : gerf));");
  w.close();
}

}  // namespace

std::string kernelParams(Backend backend) {
  const std::string r = backend == Backend::Cpu ? "__restrict__" : "OPEVO_RESTRICT";
  return "(const float* " + r + " A, const float* " + r + " B, float* " + r + " C, const float* " +
         r + " Bias, const float* " + r + " Residual)";
}

void writeEpilogue(CodeWriter& w, const OperatorSpec& op, Backend backend, const std::string& value,
                   const std::string& channel, const std::string& offset) {
  // CPU sources are compiled without includes: the builtins stand in for <cmath>.
  const bool cpu = backend == Backend::Cpu;
  for (const EpilogueStep& s : op.epilogue) {
    switch (s.kind) {
      case EpilogueKind::Bias:
        w.line(value + " += Bias[" + channel + "];");
        break;
      case EpilogueKind::Relu:
        // On the CPU a select, not fmaxf: without -ffinite-math-only GCC does not vectorize
        // fmaxf, and a register tile's store loop with a scalar relu ran ResNet-50's 1x1
        // convolutions at 100 GFLOPS where the same loop without it ran 227 (oneDNN: 230). The
        // select keeps fmaxf's results: NaN gives 0, as fmaxf(NaN, 0) does.
        if (cpu)
          w.line(value + " = " + value + " > 0.0f ? " + value + " : 0.0f;");
        else
          w.line(value + " = fmaxf(" + value + ", 0.0f);");
        break;
      case EpilogueKind::Relu6:
        // Selects on the CPU, as for relu (fminf/fmaxf would keep the loop scalar); NaN gives
        // 0 there, as fmaxf(NaN, 0) does on the GPUs.
        if (cpu)
          w.line(value + " = " + value + " > 0.0f ? (" + value + " < 6.0f ? " + value +
                 " : 6.0f) : 0.0f;");
        else
          w.line(value + " = fminf(fmaxf(" + value + ", 0.0f), 6.0f);");
        break;
      case EpilogueKind::Gelu:
        if (cpu)
          writeCpuGelu(w, value);
        else
          w.line(value + " = 0.5f * " + value + " * (1.0f + erff(" + value +
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
