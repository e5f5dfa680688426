// `opevo dataset` on the shipped measurements, and its answer to files it cannot use.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "run_process.h"

namespace opevo::test {
namespace {

std::string dataset(const std::string& relative) {
  return std::string(OPEVO_DATASETS_DIR) + "/" + relative;
}

TEST(CliDataset, GemmAsJson) {
  const auto r = runProcess(OPEVO_CLI, {"dataset", dataset("gemm/RTX_2080_Ti.json.gz"), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "kernel_tuner_cache");
  EXPECT_EQ(j["device"], "NVIDIA GeForce RTX 2080 Ti");
  EXPECT_EQ(j["kernel"], "Xgemm");
  EXPECT_EQ(j["configurations"], 17956);
  EXPECT_EQ(j["failed"], 0);
  EXPECT_EQ(j["cartesian_size"], "82944");
  EXPECT_EQ(j["valid"], 17956);
  EXPECT_EQ(j["speed_unit"], "GFLOP/s");
  EXPECT_EQ(j["parameters"].size(), 15u);
  EXPECT_EQ(j["parameters"][0]["name"], "MWG");
  EXPECT_EQ(j["parameters"][0]["values"], 4);
  EXPECT_GT(j["best"]["speed"].get<double>(), 10000);
  // The file's own compile, benchmark and verification times of its 17956 entries, added up: what
  // a replay of it charges (compare's device_seconds).
  EXPECT_NEAR(j["device_seconds"].get<double>(), 26798.3, 0.5);
  EXPECT_NE(j["device_time"].get<std::string>().find("compile_time + benchmark_time"),
            std::string::npos);
}

TEST(CliDataset, ConvolutionTableNamesTheFailures) {
  const auto r = runProcess(OPEVO_CLI, {"dataset", dataset("convolution_milo/A100.json.gz")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("NVIDIA A100-PCIE-40GB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4362 (4201 ok, 161 failed)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("155 runtime_fault (RuntimeFailedConfig)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("6 compile_error (CompilationFailedConfig)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("10240 Cartesian points, 4362 valid"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GFLOP/s"), std::string::npos) << r.out;
  // In compare's spelling (engine/device_time.h deviceTimeText), not "12190.4 s (3.39 h)".
  EXPECT_NE(r.out.find("device time: 12190 s (3.39 h) to measure every configuration once ("),
            std::string::npos)
      << r.out;
}

// Our T4 export of an opevo run writes its factor parameters as "1,16,16,2": they show as the
// tuples they are, not as choices whose spec runs every value's numbers together.
TEST(CliDataset, FactorTuplesOfOurExportShowAsTuples) {
  const std::string file = std::string(OPEVO_SOURCE_DIR) +
                           "/resources/measurements/h200/2026-11-27/MM1_opevo-m_seed1.json.gz";
  const auto text = runProcess(OPEVO_CLI, {"dataset", file});
  ASSERT_EQ(text.status, 0) << text.err;
  // Sorted as their integers, not in the order the run met them.
  EXPECT_NE(text.out.find("tuple          69  (1,1,64,8) (1,1,256,2) (1,8,1,64) "),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("split_k                      discrete"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("choice"), std::string::npos) << text.out;
  const auto r = runProcess(OPEVO_CLI, {"dataset", file, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& tileN = j["parameters"][0];
  EXPECT_EQ(tileN["name"], "tile_n");
  EXPECT_EQ(tileN["kind"], "tuple");
  EXPECT_EQ(tileN["tuples"][0], nlohmann::json({1, 1, 64, 8}));
  EXPECT_EQ(tileN["tuples"].size(), 69u);
  EXPECT_EQ(j["parameters"][3]["kind"], "discrete");
  EXPECT_EQ(j["best"]["values"]["tile_n"], nlohmann::json({8, 1, 8, 8}));
  EXPECT_EQ(j["best"]["values"]["split_k"], 4);
}

TEST(CliDataset, BadFilesExitTwoWithOneLine) {
  char name[] = "/tmp/opevo-cli-dataset-XXXXXX";
  close(mkstemp(name));
  std::ofstream(name) << "{\"results\": [ {\"configuration\": {\"a\": 1}}";
  struct Case {
    std::string file;
    std::string mentions;
  };
  for (const Case& c :
       {Case{"/nonexistent/file.json.gz", "cannot open"}, Case{name, "not valid JSON"}}) {
    const auto r = runProcess(OPEVO_CLI, {"dataset", c.file});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(c.mentions), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.file), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  std::remove(name);
  EXPECT_EQ(runProcess(OPEVO_CLI, {"dataset"}).status, 2);  // the file is required
}

}  // namespace
}  // namespace opevo::test
