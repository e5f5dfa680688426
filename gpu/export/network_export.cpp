#include "export/network_export.h"

#include <algorithm>
#include <sstream>

#include "codegen/cpu_compiler.h"
#include "cpu/operator_buffers.h"
#include "io/export_file.h"
#include "net/ms_text.h"

namespace opevo::net {
namespace {

std::string operand(const ProgramOperand& o, const std::vector<std::size_t>& paramOffset) {
  if (o.kind == ProgramOperand::Kind::Tensor) return "T[" + std::to_string(o.index) + "]";
  if (o.kind == ProgramOperand::Kind::Param)
    return "data.data() + " + std::to_string(paramOffset[static_cast<std::size_t>(o.index)]);
  return "nullptr";
}

// A C string literal of any text (names come from the user's network file).
std::string cString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Text for a // comment: one line.
std::string oneLine(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

// The exported program's own copy of common/openmp_waiting.cpp (it cannot link opevo): opevo
// times networks with GOMP_SPINCOUNT=1000, and a program timed under libgomp's default spinning
// read 128 ms for an AlexNet opevo had timed at 17.1 ms on a loaded 2-core machine (19-24 ms with
// the variable). The marker tells the re-executed program that the value is its own, not the
// user's.
constexpr const char* kBoundWaiting =
    R"program(// OpenMP's idle threads as opevo timed the network: libgomp reads GOMP_SPINCOUNT when it
// loads, so unless the user chose (GOMP_SPINCOUNT or OMP_WAIT_POLICY set), the program starts
// itself anew with GOMP_SPINCOUNT=1000. Returns what it runs under, for the report.
static std::string boundOpenMpWaiting(char** argv) {
  if (std::getenv("OPEVO_EXPORT_WAITING")) {
    unsetenv("OPEVO_EXPORT_WAITING");
    return "GOMP_SPINCOUNT=1000 (as opevo times networks)";
  }
  if (const char* spins = std::getenv("GOMP_SPINCOUNT"))
    return std::string("GOMP_SPINCOUNT=") + spins + " (yours; opevo times with 1000)";
  if (const char* policy = std::getenv("OMP_WAIT_POLICY"))
    return std::string("OMP_WAIT_POLICY=") + policy +
           " (yours; opevo times with GOMP_SPINCOUNT=1000)";
  const std::string unbounded =
      "libgomp's default spinning (not restarted: its times may be far slower than opevo's on a "
      "busy machine; set GOMP_SPINCOUNT=1000)";
  // Under valgrind or through the dynamic loader, /proc/self/exe is not this program.
  if (const char* preload = std::getenv("LD_PRELOAD"); preload && std::strstr(preload, "vgpreload"))
    return unbounded;
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return unbounded;
  self[n] = '\0';
  const char* base = std::strrchr(self, '/');
  if (std::strncmp(base ? base + 1 : self, "ld-", 3) == 0) return unbounded;
  setenv("GOMP_SPINCOUNT", "1000", 1);
  setenv("OPEVO_EXPORT_WAITING", "1", 1);
  execv(self, argv);
  unsetenv("GOMP_SPINCOUNT");
  unsetenv("OPEVO_EXPORT_WAITING");
  return unbounded;
}

)program";

constexpr const char* kWaitingReadme =
    "Timing: opevo times networks with OpenMP's idle threads spinning at most 1,000 times before "
    "they sleep (GOMP_SPINCOUNT=1000; libgomp's default of 300,000 holds a core that other work "
    "needs, and on a busy machine made this kind of program several times slower). Unless you "
    "set GOMP_SPINCOUNT or OMP_WAIT_POLICY yourself, ./network starts itself anew with "
    "GOMP_SPINCOUNT=1000, so its figure compares with the one opevo stored; it prints which "
    "setting it ran under.\n";

// Appends floats to data.bin's bytes; returns where they start, counted in floats. The bytes are
// built as the file they become: data.bin is hundreds of MB for a large network, and a vector of
// floats copied into the file's bytes would hold it twice.
std::size_t appendFloats(std::string& bytes, const std::vector<float>& values) {
  const std::size_t offset = bytes.size() / sizeof(float);
  bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  return offset;
}

}  // namespace

void exportNetworkProgram(const NetworkProgram& p, const std::vector<float>& expected,
                          const std::string& expectedFrom, const std::string& title,
                          const std::string& directory) {
  // data.bin: the inputs (tensor order), the parameters (index order), the expected output.
  std::string data;
  std::vector<std::size_t> inputOffset(p.tensors.size(), 0), paramOffset;
  for (std::size_t i = 0; i < p.tensors.size(); ++i)
    if (!p.tensors[i].input.empty()) inputOffset[i] = appendFloats(data, p.tensors[i].input);
  for (const auto& q : p.params) paramOffset.push_back(appendFloats(data, q));
  const std::size_t expectedOffset = appendFloats(data, expected);
  const std::size_t dataFloats = data.size() / sizeof(float);

  std::ostringstream m;
  m << "// " << oneLine(title)
    << ": the tuned network as a standalone program, generated by OpEvo Studio.\n"
    << "// It runs every kernel in order on the input in data.bin, checks the output against the\n"
    << "// expected one (" << oneLine(expectedFrom)
    << "), and prints its latency. Build: ./build.sh\n"
    << "#include <unistd.h>\n\n#include <algorithm>\n#include <chrono>\n#include <climits>\n"
    << "#include <cmath>\n#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n"
    << "#include <fstream>\n#include <string>\n#include <vector>\n\n"
    << kBoundWaiting;
  m << "extern \"C\" {\n";
  std::vector<std::string> declared;
  for (const ProgramStep& s : p.steps) {
    if (std::find(declared.begin(), declared.end(), s.entry) != declared.end()) continue;
    declared.push_back(s.entry);
    const char* signature = s.kind == StepKind::Task
                                ? "(const float*, const float*, float*, const float*, const float*)"
                            : s.kind == StepKind::Convert
                                ? "(const float*, float*)"
                                : "(const float* const*, float*, const float* const*)";
    m << "void " << s.entry << signature << ";\n";
  }
  m << "}\n\nint main(int argc, char** argv) {\n";
  m << "  const std::string waiting = boundOpenMpWaiting(argv);\n";
  m << "  const char* path = argc > 1 ? argv[1] : \"data.bin\";\n";
  m << "  std::vector<float> data(" << dataFloats << ");\n";
  m << "  std::ifstream in(path, std::ios::binary);\n";
  m << "  if (!in.read(reinterpret_cast<char*>(data.data()), (std::streamsize)(data.size() * "
       "sizeof(float)))) {\n"
    << "    std::printf(\"FAIL: cannot read %zu floats from %s (run it in its own folder, or give "
       "the path of its data.bin)\\n\", data.size(), path);\n"
    << "    return 2;\n  }\n";
  m << "  std::vector<std::vector<float>> storage(" << p.tensors.size() << ");\n";
  m << "  float* T[" << p.tensors.size() << "];\n";
  for (std::size_t i = 0; i < p.tensors.size(); ++i) {
    const ProgramTensor& t = p.tensors[i];
    if (t.aliasOf >= 0) {
      m << "  T[" << i << "] = T[" << t.aliasOf << "];  // " << t.name << " (a view)\n";
      continue;
    }
    m << "  storage[" << i << "].resize(" << t.elements << "); T[" << i << "] = storage[" << i
      << "].data();  // " << t.name << "\n";
    if (!t.input.empty())
      m << "  std::copy(data.begin() + " << inputOffset[i] << ", data.begin() + "
        << inputOffset[i] + t.input.size() << ", T[" << i << "]);\n";
  }
  m << "  auto forward = [&] {\n";
  for (const ProgramStep& s : p.steps) {
    if (s.kind == StepKind::Convert) {
      m << "    " << s.entry << "(" << operand(s.in[0], paramOffset) << ", T[" << s.out
        << "]);  // " << s.name << ": layout conversion\n";
      continue;
    }
    if (s.kind == StepKind::Task) {
      m << "    " << s.entry << "(" << operand(s.in[0], paramOffset) << ", "
        << operand(s.in[1], paramOffset) << ", T[" << s.out << "], "
        << operand(s.in[2], paramOffset) << ", " << operand(s.in[3], paramOffset) << ");  // "
        << s.name << "\n";
      continue;
    }
    m << "    {  // " << s.name << "\n      const float* in[] = {";
    for (std::size_t k = 0; k < s.in.size(); ++k)
      m << (k ? ", " : "") << operand(s.in[k], paramOffset);
    m << "};\n      const float* params[] = {";
    for (std::size_t k = 0; k < s.params.size(); ++k)
      m << (k ? ", " : "") << operand(s.params[k], paramOffset);
    if (s.params.empty()) m << "nullptr";
    m << "};\n      " << s.entry << "(in, T[" << s.out << "], params);\n    }\n";
  }
  m << "  };\n";
  const std::size_t outputElements = expected.size();
  // The measure of net::maxNetworkError: each element against the larger of 1 + |want| and the
  // expected output's root mean square.
  m << "  forward();\n  double worst = 0, squares = 0;\n";
  m << "  for (long i = 0; i < " << outputElements << "; ++i)\n"
    << "    squares += double(data[" << expectedOffset << " + i]) * data[" << expectedOffset
    << " + i];\n"
    << "  const double rms = std::sqrt(squares / " << std::max<std::size_t>(outputElements, 1)
    << ");\n";
  m << "  for (long i = 0; i < " << outputElements << "; ++i) {\n"
    << "    const double want = data[" << expectedOffset << " + i], got = T[" << p.output
    << "][i];\n"
    << "    const double e = std::fabs(got - want) / std::max(1.0 + std::fabs(want), rms);\n"
    << "    if (!(e <= worst)) worst = std::isnan(e) ? INFINITY : e;\n  }\n";
  m << "  std::vector<double> times;\n  for (int r = 0; r < 3; ++r) forward();\n"
    << "  for (int r = 0; r < 20; ++r) {\n"
    << "    const auto t0 = std::chrono::steady_clock::now();\n    forward();\n"
    << "    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::"
       "now() - t0).count());\n  }\n"
    << "  std::sort(times.begin(), times.end());\n";
  // As opevo writes latencies (net/ms_text.h; "%.3f" printed 0.002 for 0.00156).
  m << "  char ms[32];\n  std::snprintf(ms, sizeof ms, times[10] < " << kSignificantDigitsBelowMs
    << " ? \"%.3g\" : \"%.3f\", times[10]);\n";
  m << "  std::printf(\"%s: %s ms (median of 20), max relative error %.3g against %s\\n\", "
    << cString(title) << ", ms, worst, " << cString(expectedFrom) << ");\n";
  m << "  std::printf(\"OpenMP's idle threads: %s\\n\", waiting.c_str());\n";
  m << "  const double tolerance = " << kVerifyTolerance << ";\n";
  m << "  std::printf(worst <= tolerance ? \"PASS\\n\" : \"FAIL\\n\");\n"
    << "  return worst <= tolerance ? 0 : 1;\n}\n";
  const std::string buildScript =
      "#!/bin/sh\n# Builds the network program with the flags its kernels were tuned with.\n"
      "set -e\ncd \"$(dirname \"$0\")\"\n"
      "${CXX:-c++} " +
      cpuKernelFlagsText() +
      " -o network main.cpp kernels.cpp\n"
      "echo \"built ./network: run it from this folder (it reads data.bin)\"\n";
  const std::string readme =
      title +
      "\n\n./build.sh && ./network\n\nkernels.cpp: every kernel (tuned tasks and fixed "
      "layers); main.cpp: the calls in order, the check and the timing; data.bin: the input, the "
      "parameters and the expected output (" +
      expectedFrom + "), float32. The program prints PASS when its output matches.\n\n" +
      kWaitingReadme;
  // All or none (a full disk left a 0-byte or cut data.bin and said it wrote the program).
  writeExportFolder(directory, {{"data.bin", std::move(data)},
                                {"kernels.cpp", p.source},
                                {"main.cpp", m.str()},
                                {"build.sh", buildScript, /*executable=*/true},
                                {"README.txt", readme}});
}

}  // namespace opevo::net
