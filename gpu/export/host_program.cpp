#include "export/host_program.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "codegen/layout_conversion.h"
#include "codegen/winograd_transforms.h"
#include "common/openmp_waiting.h"
#include "engine/speed_unit.h"
#include "ops/winograd_space.h"

namespace opevo {
namespace {

// The epilogue as a host lambda over double values (Bias and Res are the host copies).
std::string epilogueLambda(const OperatorSpec& op) {
  std::string body;
  for (const EpilogueStep& e : op.epilogue) {
    switch (e.kind) {
      case EpilogueKind::Bias:
        body += " v += Bias[ch];";
        break;
      case EpilogueKind::Relu:
        body += " v = v > 0 ? v : 0;";
        break;
      case EpilogueKind::Relu6:
        body += " v = v > 0 ? (v < 6 ? v : 6) : 0;";
        break;
      case EpilogueKind::Gelu:
        body += " v = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));";
        break;
      case EpilogueKind::Scale:
        body += " v *= (float)(" + std::to_string(e.factor) + ");";
        break;
      case EpilogueKind::Add:
        body += " v += Res[at];";
        break;
    }
  }
  return "  auto epilogue = [&](double v, long ch, long at) {" + body +
         " (void)ch; (void)at; return v; };\n";
}

std::string referenceLoops(const OperatorSpec& op) {
  auto s = [](std::int64_t v) { return std::to_string(v); };
  if (op.kind == OpKind::Conv2D)
    return "  const long NB = " + s(op.batch) + ", CI = " + s(op.inChannels) +
           ", H = " + s(op.height) + ", W = " + s(op.width) + ", CO = " + s(op.outChannels) +
           ", KH = " + s(op.kernelH) + ", KW = " + s(op.kernelW) + ", S = " + s(op.stride) +
           ", P = " + s(op.pad) + ", OH = " + s(op.outHeight()) + ", OW = " + s(op.outWidth()) +
           ", CG = " + s(op.inChannels / op.groups) + ", FG = " + s(op.outChannels / op.groups) +
           R"(;
  for (long b = 0; b < NB; ++b) for (long f = 0; f < CO; ++f)
    for (long y = 0; y < OH; ++y) for (long x = 0; x < OW; ++x) {
      double acc = 0;
      for (long c = 0; c < CG; ++c) for (long ky = 0; ky < KH; ++ky) for (long kx = 0; kx < KW; ++kx) {
        const long iy = y * S - P + ky, ix = x * S - P + kx;
        if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
        acc += (double)A[((b * CI + (f / FG) * CG + c) * H + iy) * W + ix] * B[((f * CG + c) * KH + ky) * KW + kx];
      }
      const long at = ((b * CO + f) * OH + y) * OW + x;
      ref[at] = epilogue(acc, f, at);
    }
)";
  return "  const long NB = " + s(op.batch) + ", N = " + s(op.n) + ", M = " + s(op.m) +
         ", K = " + s(op.k) +
         ";\n"
         "  for (long b = 0; b < NB; ++b) for (long i = 0; i < N; ++i) for (long j = 0; j < M; "
         "++j) {\n"
         "    double acc = 0;\n"
         "    for (long k = 0; k < K; ++k)\n"
         "      acc += (double)A[b * N * K + " +
         std::string(op.transA ? "k * N + i" : "i * K + k") + "] * B[b * K * M + " +
         std::string(op.transB ? "j * K + k" : "k * M + j") +
         "];\n"
         "    ref[(b * N + i) * M + j] = epilogue(acc, j, (b * N + i) * M + j);\n"
         "  }\n";
}

std::string sizes(const OperatorSpec& op) {
  const codegen::OperandSizes o = codegen::operandSizes(op);
  // Unused epilogue operands still get one element, so every pointer passed is valid.
  const std::int64_t bias = std::max<std::int64_t>(codegen::biasSize(op), 1);
  const std::int64_t res = std::max<std::int64_t>(codegen::residualSize(op), 1);
  return "  const size_t sizeA = " + std::to_string(o.a) + ", sizeB = " + std::to_string(o.b) +
         ", sizeC = " + std::to_string(o.c) + ", sizeBias = " + std::to_string(bias) +
         ", sizeRes = " + std::to_string(res) + ";\n";
}

// A host function transform_weights(const float* B, float* U) writing the weights as a GPU
// kernel with GeneratedKernel::packedWeights reads them: U[E][CI][F] = G g G^T for each (input
// channel, output channel) pair, in double as codegen::winogradWeights computes them.
std::string winogradWeightsFunction(const OperatorSpec& op) {
  const WinogradShape shape = winogradShape(op);
  const codegen::WinogradTransforms x =
      codegen::winogradTransforms(static_cast<int>(shape.m), static_cast<int>(shape.r));
  auto s = [](std::int64_t v) { return std::to_string(v); };
  std::string g;
  for (const std::vector<double>& row : x.g) {
    g += "{";
    for (double v : row) {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g, ", v);
      g += text;
    }
    g += "}, ";
  }
  return "// The weights transformed once, as the kernel reads them: U[ALPHA^2][CI][F] = G g G^T.\n"
         "static void transform_weights(const float* B, float* U) {\n"
         "  const long CI = " +
         s(op.inChannels) + ", F = " + s(op.outChannels) + ";\n  const int R = " + s(shape.r) +
         ", ALPHA = " + s(shape.alpha) + ";\n  static const double G[" + s(shape.alpha) + "][" +
         s(shape.r) + "] = {" + g +
         "};\n"
         R"(  for (long o = 0; o < F; ++o)
    for (long i = 0; i < CI; ++i) {
      const float* k = B + (o * CI + i) * R * R;
      double gk[ALPHA][R];
      for (int a = 0; a < ALPHA; ++a)
        for (int b = 0; b < R; ++b) {
          gk[a][b] = 0;
          for (int j = 0; j < R; ++j) gk[a][b] += G[a][j] * k[j * R + b];
        }
      for (int a = 0; a < ALPHA; ++a)
        for (int b = 0; b < ALPHA; ++b) {
          double v = 0;
          for (int j = 0; j < R; ++j) v += gk[a][j] * G[b][j];
          U[((a * ALPHA + b) * CI + i) * F + o] = (float)v;
        }
    }
}

)";
}

}  // namespace

std::string openMpWaitingFunction(const std::string& timed) {
  // The marker OPEVO_EXPORT_WAITING tells the restarted program that the spin count is its own,
  // not the user's.
  std::string text = R"program(#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

// OpenMP's idle threads as opevo timed them: libgomp reads GOMP_SPINCOUNT when it loads, so
// unless the user chose (GOMP_SPINCOUNT or OMP_WAIT_POLICY set), the program starts itself anew
// with GOMP_SPINCOUNT=@SPINS@. Returns what it runs under, for the report.
static std::string boundOpenMpWaiting(char** argv) {
  if (std::getenv("OPEVO_EXPORT_WAITING")) {
    unsetenv("OPEVO_EXPORT_WAITING");
    return "GOMP_SPINCOUNT=@SPINS@ (as opevo times @TIMED@)";
  }
  if (const char* spins = std::getenv("GOMP_SPINCOUNT"))
    return std::string("GOMP_SPINCOUNT=") + spins + " (yours; opevo times with @SPINS@)";
  if (const char* policy = std::getenv("OMP_WAIT_POLICY"))
    return std::string("OMP_WAIT_POLICY=") + policy +
           " (yours; opevo times with GOMP_SPINCOUNT=@SPINS@)";
  const std::string unbounded =
      "libgomp's default spinning (not restarted: its times may be far slower than opevo's on a "
      "busy machine; set GOMP_SPINCOUNT=@SPINS@)";
  // Under valgrind or through the dynamic loader, /proc/self/exe is not this program.
  if (const char* preload = std::getenv("LD_PRELOAD"); preload && std::strstr(preload, "vgpreload"))
    return unbounded;
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return unbounded;
  self[n] = '\0';
  const char* base = std::strrchr(self, '/');
  if (std::strncmp(base ? base + 1 : self, "ld-", 3) == 0) return unbounded;
  setenv("GOMP_SPINCOUNT", "@SPINS@", 1);
  setenv("OPEVO_EXPORT_WAITING", "1", 1);
  execv(self, argv);
  unsetenv("GOMP_SPINCOUNT");
  unsetenv("OPEVO_EXPORT_WAITING");
  return unbounded;
}

)program";
  for (const auto& [mark, value] :
       {std::pair<std::string, std::string>{"@SPINS@", kBoundedSpinCount}, {"@TIMED@", timed}})
    for (std::size_t at = text.find(mark); at != std::string::npos; at = text.find(mark, at))
      text.replace(at, mark.size(), value);
  return text;
}

std::string openMpWaitingNote(const std::string& program, const std::string& timed) {
  const std::string spins = kBoundedSpinCount;
  return "Timing: opevo times " + timed + " with OpenMP's idle threads spinning at most " + spins +
         " times before they sleep (GOMP_SPINCOUNT=" + spins +
         "; libgomp's default of 300,000 holds a core that other work needs, and on a busy "
         "machine made exported programs several times slower and their figures erratic). Unless "
         "you set GOMP_SPINCOUNT or OMP_WAIT_POLICY yourself, " +
         program + " starts itself anew with GOMP_SPINCOUNT=" + spins +
         ", so its figure compares with the one opevo stored; it prints which setting it ran "
         "under.\n";
}

std::string hostProgram(const OperatorSpec& op, const codegen::GeneratedKernel& kernel,
                        const std::string& kernelFile, const layout::OperandLayouts* layouts) {
  const bool gpu = kernel.backend != codegen::Backend::Cpu;
  const bool gpuLayouts = gpu && kernel.usesLayouts();
  if (gpuLayouts && !layouts)
    throw std::logic_error("hostProgram: a GPU layout kernel needs its operands' layouts");
  const std::string api = kernel.backend == codegen::Backend::Hip ? "hip" : "cuda";
  std::string p =
      "// Self-check of the exported kernel: plain loops in double precision are the "
      "reference.\n";
  p += gpu ? (api == "hip" ? "#include <hip/hip_runtime.h>\n" : "#include <cuda_runtime.h>\n")
           : "#include <algorithm>\n#include <chrono>\n";
  p += "#include <cmath>\n#include <cstdio>\n#include <vector>\n\n#include \"" + kernelFile +
       "\"\n\n";
  // A CPU kernel is timed under opevo's OpenMP waiting policy (its figure varied 30-fold
  // without).
  if (!gpu) p += openMpWaitingFunction("kernels");
  if (gpuLayouts) {
    // Host conversions between the plain operands and the kernel's layouts (its header lists
    // them), as the producers of a network would write them.
    codegen::CodeWriter w;
    codegen::writeLayoutConversion(w, "pack_a", codegen::plainLayout(layouts->a), layouts->a);
    codegen::writeLayoutConversion(w, "pack_b", codegen::plainLayout(layouts->b), layouts->b);
    codegen::writeLayoutConversion(w, "pack_c", codegen::plainLayout(layouts->c), layouts->c);
    codegen::writeLayoutConversion(w, "unpack_c", layouts->c, codegen::plainLayout(layouts->c));
    p += w.str() + "\n";
  }
  const bool gpuWeights = gpu && kernel.packedWeights;
  if (gpuWeights) p += winogradWeightsFunction(op);
  p += gpu ? "int main() {\n"
           : "int main(int, char** argv) {\n  const std::string waiting = "
             "boundOpenMpWaiting(argv);\n";
  p += sizes(op);
  p += "  std::vector<float> A(sizeA), B(sizeB), C(sizeC, 1e30f), Bias(sizeBias), Res(sizeRes);\n";
  p += "  std::vector<double> ref(sizeC);\n";
  p += "  unsigned state = 12345u;  // a fixed LCG: the same inputs on every machine\n";
  p += "  auto next = [&] { state = state * 1664525u + 1013904223u; return (float)((state >> 8) * "
       "(2.0 / 16777216.0) - 1.0); };\n";
  p += "  for (auto* v : {&A, &B, &Bias, &Res}) for (auto& x : *v) x = next();\n";
  p += epilogueLambda(op) + referenceLoops(op);
  if (gpuLayouts) {
    // From here on A, B, C and Res hold the laid-out operands; C goes back to plain at the end.
    p += "  std::vector<float> plainC(sizeC);\n";
    p += "  {\n    std::vector<float> a(" + std::to_string(layouts->a.size()) + "), b(" +
         std::to_string(layouts->b.size()) + "), res(" +
         (codegen::residualSize(op) > 0 ? std::to_string(layouts->c.size()) : std::string("1")) +
         ");\n";
    p += "    pack_a(A.data(), a.data());\n    pack_b(B.data(), b.data());\n";
    if (codegen::residualSize(op) > 0) p += "    pack_c(Res.data(), res.data());\n";
    p += "    A.swap(a);\n    B.swap(b);\n    Res.swap(res);\n    C.assign(" +
         std::to_string(layouts->c.size()) + ", 1e30f);\n  }\n";
    p += "  const size_t laidA = A.size(), laidB = B.size(), laidC = C.size(), laidRes = "
         "Res.size();\n";
  }
  if (gpuWeights) {
    // From here on B holds the transformed weights (not timed, as a deployment stores them).
    const WinogradShape shape = winogradShape(op);
    p += "  {\n    std::vector<float> u(" +
         std::to_string(shape.elements() * op.inChannels * op.outChannels) +
         ");\n    transform_weights(B.data(), u.data());\n    B.swap(u);\n  }\n";
  }
  if (!gpu)
    // Each call timed alone until 100 ms and at least 10 calls have run, the median kept, as the
    // tuner keeps a median (a mean of ten calls swung 8-102 GFLOP/s with a stalled call in it).
    p += "  auto median_ms = [](auto&& call) {\n"
         "    std::vector<double> t;\n    double total = 0;\n"
         "    while ((total < 100 || t.size() < 10) && t.size() < 1000) {\n"
         "      const auto s = std::chrono::steady_clock::now();\n      call();\n"
         "      t.push_back(std::chrono::duration<double, std::milli>("
         "std::chrono::steady_clock::now() - s).count());\n"
         "      total += t.back();\n    }\n"
         "    std::sort(t.begin(), t.end());\n    return t[t.size() / 2];\n  };\n";
  if (gpu) {
    const auto& l = kernel.launch;
    const std::string sa = gpuLayouts ? "laidA" : "sizeA",
                      sb = gpuLayouts   ? "laidB"
                           : gpuWeights ? "B.size()"
                                        : "sizeB",
                      sc = gpuLayouts ? "laidC" : "sizeC", sr = gpuLayouts ? "laidRes" : "sizeRes";
    p += "  float *dA, *dB, *dC, *dBias, *dRes;\n";
    p += "  " + api + "Malloc(&dA, " + sa + " * 4); " + api + "Malloc(&dB, " + sb + " * 4); " +
         api + "Malloc(&dC, " + sc + " * 4);\n";
    p += "  " + api + "Malloc(&dBias, sizeBias * 4); " + api + "Malloc(&dRes, " + sr + " * 4);\n";
    p += "  " + api + "Memcpy(dA, A.data(), " + sa + " * 4, " + api + "MemcpyHostToDevice);\n";
    p += "  " + api + "Memcpy(dB, B.data(), " + sb + " * 4, " + api + "MemcpyHostToDevice);\n";
    p += "  " + api + "Memcpy(dBias, Bias.data(), sizeBias * 4, " + api + "MemcpyHostToDevice);\n";
    p += "  " + api + "Memcpy(dRes, Res.data(), " + sr + " * 4, " + api + "MemcpyHostToDevice);\n";
    p += "  const dim3 grid(" + std::to_string(l.grid.x) + ", " + std::to_string(l.grid.y) + ", " +
         std::to_string(l.grid.z) + "), block(" + std::to_string(l.block.x) + ", " +
         std::to_string(l.block.y) + ", " + std::to_string(l.block.z) + ");\n";
    p += "  const size_t shared = " + std::to_string(l.sharedBytes) + ";\n";
    p += "  " + api + "FuncSetAttribute((const void*)" + kernel.entry + ", " + api +
         "FuncAttributeMaxDynamicSharedMemorySize, (int)shared);\n";
    p += "  " + kernel.entry + "<<<grid, block, shared>>>(dA, dB, dC, dBias, dRes);\n";
    p += "  if (" + api + "DeviceSynchronize() != " + api +
         "Success) { std::printf(\"FAIL: launch error %s\\n\", " + api + "GetErrorString(" + api +
         "GetLastError())); return 1; }\n";
    p += "  " + api + "Memcpy(C.data(), dC, " + sc + " * 4, " + api + "MemcpyDeviceToHost);\n";
    p += "  " + api + "Event_t t0, t1; " + api + "EventCreate(&t0); " + api + "EventCreate(&t1);\n";
    p += "  " + api + "EventRecord(t0);\n  for (int r = 0; r < 10; ++r) " + kernel.entry +
         "<<<grid, block, shared>>>(dA, dB, dC, dBias, dRes);\n";
    p += "  " + api + "EventRecord(t1); " + api + "EventSynchronize(t1);\n  float ms = 0; " + api +
         "EventElapsedTime(&ms, t0, t1); ms /= 10;\n";
    if (gpuLayouts) p += "  unpack_c(C.data(), plainC.data());\n  C.swap(plainC);\n";
  } else if (kernel.usesLayouts()) {
    // The kernel reads and writes layouts of its own (its file's header lists them): the operands
    // are converted once, as its producers would write them, and the output converted back.
    const std::string& e = kernel.entry;
    const bool residual = codegen::residualSize(op) > 0;
    p += "  std::vector<float> pA(" + e + "_packed_size(0)), pB(" + e + "_packed_size(1)), pC(" +
         e + "_packed_size(2)), pRes(" + (residual ? e + "_packed_size(2)" : std::string("1")) +
         ");\n";
    p += "  " + e + "_pack_a(A.data(), pA.data());\n  " + e + "_pack_b(B.data(), pB.data());\n";
    if (residual) p += "  " + e + "_pack_c(Res.data(), pRes.data());\n";
    const std::string call = e + "(pA.data(), pB.data(), pC.data(), Bias.data(), pRes.data())";
    p += "  " + call + ";\n  " + e + "_unpack_c(pC.data(), C.data());\n";
    p += "  const double ms = median_ms([&] { " + call + "; });\n";
  } else if (kernel.packedWeights) {
    // The kernel reads its weights transformed (Winograd's): once, as a deployment stores them.
    const std::string& e = kernel.entry;
    p += "  std::vector<float> pB(" + e + "_packed_size(1));\n  " + e +
         "_pack_b(B.data(), pB.data());\n";
    const std::string call = e + "(A.data(), pB.data(), C.data(), Bias.data(), Res.data())";
    p += "  " + call + ";\n";
    p += "  const double ms = median_ms([&] { " + call + "; });\n";
  } else {
    const std::string call =
        kernel.entry + "(A.data(), B.data(), C.data(), Bias.data(), Res.data())";
    p += "  " + call + ";\n";
    p += "  const double ms = median_ms([&] { " + call + "; });\n";
  }
  p += "  double worst = 0;\n  for (size_t i = 0; i < sizeC; ++i) {\n";
  p += "    const double e = std::fabs(C[i] - ref[i]) / (1.0 + std::fabs(ref[i]));\n";
  p += "    if (!(e <= worst)) worst = std::isnan(e) ? INFINITY : e;\n  }\n";
  p += "  const double flops = " + std::to_string(op.flops()) + ";\n";
  // In the unit the tuner measured this backend's kernels in, so the two read side by side.
  const std::string unit = deviceSpeedUnit(gpu ? "cuda" : "cpu");
  // A layout kernel is timed alone, as the tuner timed it: its operands' conversions are its
  // producers' work in a network.
  const std::string what =
      !gpu && kernel.usesLayouts() ? " (the kernel alone; its layout conversions not timed)" : "";
  p += "  std::printf(\"max relative error %.3g, %.4f ms, %.4g " + unit + what +
       "\\n\", worst, (double)ms, flops / (ms * 1e-3) / " + std::to_string(flopsPerSecondIn(unit)) +
       ");\n";
  if (!gpu) p += "  std::printf(\"OpenMP's idle threads: %s\\n\", waiting.c_str());\n";
  p += "  std::printf(worst <= 1e-3 ? \"PASS\\n\" : \"FAIL\\n\");\n  return worst <= 1e-3 ? 0 : "
       "1;\n}\n";
  return p;
}

}  // namespace opevo
