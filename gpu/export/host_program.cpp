#include "export/host_program.h"

namespace opevo {
namespace {

std::string referenceLoops(const OperatorSpec& op) {
  auto s = [](std::int64_t v) { return std::to_string(v); };
  if (op.kind == OpKind::Conv2D)
    return "  const long NB = " + s(op.batch) + ", CI = " + s(op.inChannels) + ", H = " + s(op.height) +
           ", W = " + s(op.width) + ", CO = " + s(op.outChannels) + ", KH = " + s(op.kernelH) +
           ", KW = " + s(op.kernelW) + ", S = " + s(op.stride) + ", P = " + s(op.pad) +
           ", OH = " + s(op.outHeight()) + ", OW = " + s(op.outWidth()) + R"(;
  for (long b = 0; b < NB; ++b) for (long f = 0; f < CO; ++f)
    for (long y = 0; y < OH; ++y) for (long x = 0; x < OW; ++x) {
      double acc = 0;
      for (long c = 0; c < CI; ++c) for (long ky = 0; ky < KH; ++ky) for (long kx = 0; kx < KW; ++kx) {
        const long iy = y * S - P + ky, ix = x * S - P + kx;
        if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
        acc += (double)A[((b * CI + c) * H + iy) * W + ix] * B[((f * CI + c) * KH + ky) * KW + kx];
      }
      ref[((b * CO + f) * OH + y) * OW + x] = acc;
    }
)";
  return "  const long NB = " + s(op.batch) + ", N = " + s(op.n) + ", M = " + s(op.m) + ", K = " + s(op.k) +
         ";\n"
         "  for (long b = 0; b < NB; ++b) for (long i = 0; i < N; ++i) for (long j = 0; j < M; ++j) {\n"
         "    double acc = 0;\n"
         "    for (long k = 0; k < K; ++k)\n"
         "      acc += (double)A[b * N * K + " +
         std::string(op.transA ? "k * N + i" : "i * K + k") + "] * B[b * K * M + " +
         std::string(op.transB ? "j * K + k" : "k * M + j") +
         "];\n"
         "    ref[(b * N + i) * M + j] = acc;\n"
         "  }\n";
}

std::string sizes(const OperatorSpec& op) {
  std::int64_t a, b;
  if (op.kind == OpKind::Conv2D) {
    a = op.batch * op.inChannels * op.height * op.width;
    b = op.outChannels * op.inChannels * op.kernelH * op.kernelW;
  } else {
    a = op.batch * op.n * op.k;
    b = op.batch * op.k * op.m;
  }
  const std::int64_t c = op.kind == OpKind::Conv2D ? op.batch * op.outChannels * op.outHeight() * op.outWidth()
                                                   : op.batch * op.n * op.m;
  return "  const size_t sizeA = " + std::to_string(a) + ", sizeB = " + std::to_string(b) +
         ", sizeC = " + std::to_string(c) + ";\n";
}

}  // namespace

std::string hostProgram(const OperatorSpec& op, const codegen::GeneratedKernel& kernel,
                        const std::string& kernelFile) {
  const bool gpu = kernel.backend != codegen::Backend::Cpu;
  const std::string api = kernel.backend == codegen::Backend::Hip ? "hip" : "cuda";
  std::string p = "// Self-check of the exported kernel: plain loops in double precision are the reference.\n";
  p += gpu ? (api == "hip" ? "#include <hip/hip_runtime.h>\n" : "#include <cuda_runtime.h>\n") : "#include <chrono>\n";
  p += "#include <cmath>\n#include <cstdio>\n#include <vector>\n\n#include \"" + kernelFile + "\"\n\n";
  p += "int main() {\n" + sizes(op);
  p += "  std::vector<float> A(sizeA), B(sizeB), C(sizeC, 1e30f);\n  std::vector<double> ref(sizeC);\n";
  p += "  unsigned state = 12345u;  // a fixed LCG: the same inputs on every machine\n";
  p += "  auto next = [&] { state = state * 1664525u + 1013904223u; return (float)((state >> 8) * (2.0 / 16777216.0) - 1.0); };\n";
  p += "  for (auto& x : A) x = next();\n  for (auto& x : B) x = next();\n";
  p += referenceLoops(op);
  if (gpu) {
    const auto& l = kernel.launch;
    p += "  float *dA, *dB, *dC;\n";
    p += "  " + api + "Malloc(&dA, sizeA * 4); " + api + "Malloc(&dB, sizeB * 4); " + api + "Malloc(&dC, sizeC * 4);\n";
    p += "  " + api + "Memcpy(dA, A.data(), sizeA * 4, " + api + "MemcpyHostToDevice);\n";
    p += "  " + api + "Memcpy(dB, B.data(), sizeB * 4, " + api + "MemcpyHostToDevice);\n";
    p += "  const dim3 grid(" + std::to_string(l.grid.x) + ", " + std::to_string(l.grid.y) + ", " +
         std::to_string(l.grid.z) + "), block(" + std::to_string(l.block.x) + ", " + std::to_string(l.block.y) +
         ", " + std::to_string(l.block.z) + ");\n";
    p += "  const size_t shared = " + std::to_string(l.sharedBytes) + ";\n";
    p += "  " + api + "FuncSetAttribute((const void*)" + kernel.entry + ", " + api +
         "FuncAttributeMaxDynamicSharedMemorySize, (int)shared);\n";
    p += "  " + kernel.entry + "<<<grid, block, shared>>>(dA, dB, dC);\n";
    p += "  if (" + api + "DeviceSynchronize() != " + api + "Success) { std::printf(\"FAIL: launch error %s\\n\", " + api +
         "GetErrorString(" + api + "GetLastError())); return 1; }\n";
    p += "  " + api + "Memcpy(C.data(), dC, sizeC * 4, " + api + "MemcpyDeviceToHost);\n";
    p += "  " + api + "Event_t t0, t1; " + api + "EventCreate(&t0); " + api + "EventCreate(&t1);\n";
    p += "  " + api + "EventRecord(t0);\n  for (int r = 0; r < 10; ++r) " + kernel.entry + "<<<grid, block, shared>>>(dA, dB, dC);\n";
    p += "  " + api + "EventRecord(t1); " + api + "EventSynchronize(t1);\n  float ms = 0; " + api + "EventElapsedTime(&ms, t0, t1); ms /= 10;\n";
  } else {
    p += "  " + kernel.entry + "(A.data(), B.data(), C.data());\n";
    p += "  const auto t0 = std::chrono::steady_clock::now();\n  for (int r = 0; r < 10; ++r) " + kernel.entry +
         "(A.data(), B.data(), C.data());\n";
    p += "  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / 10;\n";
  }
  p += "  double worst = 0;\n  for (size_t i = 0; i < sizeC; ++i) {\n";
  p += "    const double e = std::fabs(C[i] - ref[i]) / (1.0 + std::fabs(ref[i]));\n";
  p += "    if (!(e <= worst)) worst = std::isnan(e) ? INFINITY : e;\n  }\n";
  p += "  const double flops = " + std::to_string(op.flops()) + ";\n";
  p += "  std::printf(\"max relative error %.3g, %.4f ms, %.4g TFLOPS\\n\", worst, (double)ms, flops / (ms * 1e-3) / 1e12);\n";
  p += "  std::printf(worst <= 1e-3 ? \"PASS\\n\" : \"FAIL\\n\");\n  return worst <= 1e-3 ? 0 : 1;\n}\n";
  return p;
}

}  // namespace opevo
