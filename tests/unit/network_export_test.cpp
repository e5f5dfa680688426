// The program `opevo net export` writes times its network as opevo did: with OpenMP's idle
// threads bounded (GOMP_SPINCOUNT=1000, common/openmp_waiting.h) unless the user chose a waiting
// policy, and it says which. Without it, an exported AlexNet timed 128 ms on a loaded 2-core
// machine where opevo had measured 17.1 ms.

#include "export/network_export.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "temp_dir.h"

namespace opevo {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs a shell command and returns what it printed.
std::string output(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  pclose(pipe);
  return out;
}

// A network of one input that is its own output: no kernel, so the program builds in a moment.
net::NetworkProgram identity() {
  net::NetworkProgram p;
  net::ProgramTensor t;
  t.name = "image";
  t.elements = 4;
  t.input = {1, 2, 3, 4};
  p.tensors.push_back(t);
  p.source = "// no kernels\n";
  return p;
}

TEST(NetworkExport, TheProgramBoundsOpenMpWaitingAsOpevoTimedAndSaysSo) {
  const test::TempDir dir;
  const std::string out = dir.file("program");
  net::exportNetworkProgram(identity(), {1, 2, 3, 4}, "itself", "identity", out);
  EXPECT_NE(slurp(out + "/README.txt").find("GOMP_SPINCOUNT=1000"), std::string::npos);
  ASSERT_EQ(std::system((out + "/build.sh >/dev/null 2>&1").c_str()), 0);
  const std::string run = "cd " + out + " && env -u GOMP_SPINCOUNT -u OMP_WAIT_POLICY ";
  const std::string bounded = output(run + "./network");
  EXPECT_NE(bounded.find("PASS"), std::string::npos) << bounded;
  EXPECT_NE(bounded.find("GOMP_SPINCOUNT=1000 (as opevo times networks)"), std::string::npos)
      << bounded;
  // A policy of the user's own is kept, and named.
  const std::string passive = output(run + "OMP_WAIT_POLICY=passive ./network");
  EXPECT_NE(passive.find("PASS"), std::string::npos) << passive;
  EXPECT_NE(passive.find("OMP_WAIT_POLICY=passive (yours"), std::string::npos) << passive;
}

}  // namespace
}  // namespace opevo
