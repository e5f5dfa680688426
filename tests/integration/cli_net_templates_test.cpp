// Which templates `opevo net tune` gives a network's tasks when --template is not given: the
// backend's default (net::defaultTaskTemplates), named wherever the run is printed or listed.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probe/backend_probe.h"
#include "run_process.h"

namespace opevo::test {
namespace {

// A conv chain with one dense layer (d), which the matrix-vector template applies to at batch 1.
const std::string kChain = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_conv_chain.json";

struct TempFolder {
  std::filesystem::path path;
  TempFolder() {
    char pattern[] = "/tmp/opevo-nettemplates-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempFolder() { std::filesystem::remove_all(path); }
};

// The list's templates, oldest run first.
std::vector<std::string> listedTemplates(const std::string& db) {
  const auto runs = runProcess(OPEVO_CLI, {"net", "runs", "--json", "--db", db});
  EXPECT_EQ(runs.status, 0) << runs.err;
  std::vector<std::string> out;
  for (const auto& r : nlohmann::json::parse(runs.out)) out.push_back(r["template"]);
  return out;
}

// On the CPU nothing changes: the direct templates unless asked; a run's first line names the
// templates it tunes beside the network, as `net runs` does.
TEST(CliNetTemplates, TheCpuTunesTheDirectTemplatesUnlessAskedAndTheRunSaysWhich) {
  const TempFolder dir;
  const std::string db = (dir.path / "runs.db").string();
  for (const char* asked : {"", "matvec"}) {
    std::vector<std::string> args = {
        "net", "tune",   kChain, "--param", "batch=1", "--mode",         "loop", "--trials",
        "4",   "--unit", "2",    "--runs",  "1",       "--no-reference", "--db", db};
    if (*asked) args.insert(args.end(), {"--template", asked});
    const auto r = runProcess(OPEVO_CLI, args);
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    const std::string header = r.err.substr(0, r.err.find('\n'));
    EXPECT_EQ(header.find("(matvec)") != std::string::npos, *asked != '\0') << header;
  }
  EXPECT_EQ(listedTemplates(db), (std::vector<std::string>{"direct", "matvec"}));
  const auto help = runProcess(OPEVO_CLI, {"net", "tune", "--help"});
  EXPECT_NE(help.out.find("matvec (default on cuda and hip)"), std::string::npos) << help.out;
}

// On a CUDA device the dense layer takes the matrix-vector template by default, and --template
// direct still gives the direct one (to compare the two); the JSON and the list say which.
TEST(CliNetTemplates, ACudaRunTakesTheMatrixVectorTemplateUnlessDirectIsAsked) {
  bool cuda = false;
  for (const BackendInfo& b : probeBackends()) cuda = cuda || (b.name == "cuda" && b.available);
  if (!cuda) GTEST_SKIP() << "no CUDA device here";
  const TempFolder dir;
  const std::string db = (dir.path / "runs.db").string();
  for (const char* asked : {"", "direct"}) {
    std::vector<std::string> args = {"net",  "tune",     kChain, "--param", "batch=1", "--backend",
                                     "cuda", "--trials", "8",    "--unit",  "2",       "--runs",
                                     "2",    "--json",   "--db", db};
    if (*asked) args.insert(args.end(), {"--template", asked});
    const auto r = runProcess(OPEVO_CLI, args);
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["template"], *asked ? "direct" : "matvec");
    for (const auto& t : j["tasks"])
      if (t["name"] == "d") {
        const std::string config = t["config"];
        EXPECT_EQ(config.find("unroll=") != std::string::npos, !*asked) << config;
      }
  }
  EXPECT_EQ(listedTemplates(db), (std::vector<std::string>{"matvec", "direct"}));
}

}  // namespace
}  // namespace opevo::test
