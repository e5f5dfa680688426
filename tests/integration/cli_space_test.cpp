#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_process.h"

namespace opevo::test {
namespace {

ProcessResult opevo(const std::vector<std::string>& args) {
  return runProcess(OPEVO_CLI, args);
}

TEST(CliQwalk, Figure2AsJson) {
  const auto r =
      opevo({"qwalk", "--param", "factor:8:3", "--from", "8,1,1", "--q", "0.5", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["vertices"].size(), 10u);
  double sum = 0, p222 = 0, p214 = 0;
  for (const auto& v : j["vertices"]) {
    sum += v["probability"].get<double>();
    if (v["vertex"] == "2,2,2") p222 = v["probability"];
    if (v["vertex"] == "2,1,4") p214 = v["probability"];
    EXPECT_TRUE(v.contains("distance"));
    EXPECT_TRUE(v.contains("degree"));
  }
  EXPECT_NEAR(sum, 1.0, 1e-9);
  EXPECT_GT(p222, p214);
}

TEST(CliQwalk, SamplesAddFrequencies) {
  const auto r = opevo(
      {"qwalk", "--param", "perm:3", "--q", "0.7", "--samples", "20000", "--seed", "3", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["vertices"].size(), 6u);
  double sum = 0;
  for (const auto& v : j["vertices"]) {
    sum += v["frequency"].get<double>();
    EXPECT_NEAR(v["frequency"].get<double>(), v["probability"].get<double>(), 0.02);
  }
  EXPECT_NEAR(sum, 1.0, 1e-9);
}

TEST(CliQwalk, TableListsEveryVertex) {
  const auto r = opevo({"qwalk", "--param", "choice:relu,tanh,gelu", "--from", "tanh"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("relu"), std::string::npos);
  EXPECT_NE(r.out.find("3 vertices"), std::string::npos);
}

struct BadCase {
  std::vector<std::string> args;
  std::string mentions;
};

TEST(CliQwalk, BadInputExitsTwoWithOneLine) {
  const std::vector<BadCase> cases = {
      {{"--param", "factor:0:3"}, "C must be"},
      {{"--param", "factor:8:0"}, "nu must be"},
      {{"--param", "perm:0"}, "n must be"},
      {{"--param", "discrete:"}, "no values"},
      {{"--param", "choice:a,b,a"}, "twice"},
      {{"--param", "factor:8:3", "--q", "1"}, "strictly between 0 and 1"},
      {{"--param", "factor:8:3", "--q", "-0.1"}, "strictly between 0 and 1"},
      {{"--param", "factor:8:3", "--from", "3,3,3"}, "not a factorization of 8"},
      {{"--param", "perm:25"}, "vertices"},
      {{"--param", "factor:8:3", "--q", "abc"}, "--q"},
      {{"--param", "factor:8:3", "--samples", "-5"}, "--samples"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"qwalk"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = opevo(args);
    EXPECT_EQ(r.status, 2) << c.args[1] << ": " << r.err;
    EXPECT_NE(r.err.find(c.mentions), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(CliSpace, MM1) {
  const auto r = opevo({"space", "MM1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("tile_k"), std::string::npos);
  EXPECT_NE(r.out.find("4152720"), std::string::npos);  // 66 * 220 * 286
}

TEST(CliSpace, EveryPresetAsJson) {
  for (const char* name : {"MM1", "MM2", "MM3", "BMM1", "BMM2", "BMM3", "C1", "C2"}) {
    const auto r = opevo({"space", name, "--json"});
    ASSERT_EQ(r.status, 0) << name << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["operator"], name);
    EXPECT_GE(j["parameters"].size(), 3u);
  }
  const auto bad = opevo({"space", "MM9"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("'MM9' is neither a preset (MM1"), std::string::npos) << bad.err;
  // A path that names no file says so, without the presets' list.
  const auto missing = opevo({"space", "/nonexistent/mm.json"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("no operator file '/nonexistent/mm.json': no such file"),
            std::string::npos)
      << missing.err;
  EXPECT_EQ(missing.err.find("MM1"), std::string::npos) << missing.err;
}

// A layout template's loop orders print vertices such as 2,0,1: which loop each index is was said
// only in the window.
TEST(CliSpace, ALoopOrdersIndicesAreNamed) {
  const auto r = opevo({"space", "C2", "--mode", "joint"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("reduce_order: A vertex lists these loops outermost first: 0 = rc "
                       "(input-channel blocks), 1 = ry (kernel rows), 2 = rx (kernel columns)."),
            std::string::npos)
      << r.out;
  const auto j = nlohmann::json::parse(opevo({"space", "MM1", "--mode", "joint", "--json"}).out);
  bool named = false;
  for (const auto& p : j["parameters"])
    if (p["name"] == "tile_order") {
      named = true;
      EXPECT_EQ(p["loops"][0]["name"], "n");
      EXPECT_EQ(p["loops"][1]["walks"], "column tiles");
    } else if (p["name"] != "reg_order") {
      EXPECT_FALSE(p.contains("loops")) << p.dump();
    }
  EXPECT_TRUE(named) << j.dump();
  // The loop template's space has no loop order.
  EXPECT_EQ(opevo({"space", "C2"}).out.find("outermost"), std::string::npos);
}

// A joint space's start, where a fresh run begins: for --target gpu the GPU's blocking (what a
// CUDA or HIP run starts from, whatever this host's vector unit), for common this CPU's.
TEST(CliSpace, AJointSpaceShowsWhereARunStarts) {
  const std::string gpuStart =
      "layout.a_n=16,32; layout.a_k=1,1024; layout.b_k=1,1024; layout.b_m=8,128; "
      "layout.c_n=16,32; layout.c_m=8,128; tile_n=128,4; tile_m=256,4; tile_k=1,1024; "
      "tile_order=0,1; reg_order=0,1; unroll_k=4";
  const auto gpu = opevo({"space", "MM1", "--mode", "joint", "--target", "gpu"});
  ASSERT_EQ(gpu.status, 0) << gpu.err;
  EXPECT_NE(gpu.out.find("\nstart: " + gpuStart + "\n"), std::string::npos) << gpu.out;
  const auto j = nlohmann::json::parse(
      opevo({"space", "MM1", "--mode", "joint", "--target", "gpu", "--json"}).out);
  EXPECT_EQ(j["start"], gpuStart);
  const auto cpu = nlohmann::json::parse(opevo({"space", "MM1", "--mode", "joint", "--json"}).out);
  ASSERT_TRUE(cpu["start"].is_string()) << cpu.dump();
  EXPECT_NE(cpu["start"], gpuStart);
  // The loop template's space has none: tuners start where each one's method says.
  EXPECT_TRUE(nlohmann::json::parse(opevo({"space", "MM1", "--json"}).out)["start"].is_null());
  EXPECT_EQ(opevo({"space", "MM1"}).out.find("start:"), std::string::npos);
}

// `space` and `codegen` take an operator file as `tune` does, with the file's own space.
TEST(CliSpace, AnOperatorFileAndItsSpace) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("opevo-space-" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(file);
    out << R"({"name": "small", "kind": "conv2d", "shape": {"in_channels": 8, "height": 8,
              "width": 8, "out_channels": 8, "kernel_h": 3, "kernel_w": 3, "pad": 1},
              "space": {"auto_unroll_max_step": "discrete:0,256"}})";
  }
  const auto r = opevo({"space", file.string(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["operator"], "small");
  bool overridden = false;
  for (const auto& p : j["parameters"])
    overridden =
        overridden || (p["name"] == "auto_unroll_max_step" && p["spec"] == "discrete:0,256");
  EXPECT_TRUE(overridden) << j["parameters"].dump();
  const auto kernel = opevo({"codegen", "--op", file.string(), "--backend", "cpu", "--random"});
  EXPECT_EQ(kernel.status, 0) << kernel.err;
  EXPECT_NE(kernel.out.find("Operator:      small: Conv2D input 1x8x8x8"), std::string::npos)
      << kernel.out.substr(0, 400);
  std::filesystem::remove(file);
}

// `space prime.json --target gpu` printed the example tile_k 1,1009,1 beside split_k 4, against
// its own constraint "split_k divides tile_k's outer factor", and only the size before
// constraints: the example is now a valid configuration and the valid ones are counted.
TEST(CliSpace, TheExampleKeepsTheConstraintsAndTheValidOnesAreCounted) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("opevo-prime-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << R"({"name": "prime", "kind": "matmul",
                             "shape": {"n": 997, "k": 1009, "m": 1013}})";
  for (int seed = 1; seed <= 8; ++seed) {
    const auto r = opevo(
        {"space", file.string(), "--target", "gpu", "--json", "--seed", std::to_string(seed)});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    std::string tileK, splitK;
    for (const auto& p : j["parameters"]) {
      if (p["name"] == "tile_k") tileK = p["example"];
      if (p["name"] == "split_k") splitK = p["example"];
    }
    const long outer = std::stol(tileK.substr(0, tileK.find(',')));
    EXPECT_EQ(outer % std::stol(splitK), 0) << "tile_k " << tileK << " split_k " << splitK;
    EXPECT_TRUE(j["example_valid"].get<bool>());
    EXPECT_EQ(j["size"], "480");
    EXPECT_EQ(j["valid"], 52);
  }
  const auto text = opevo({"space", file.string(), "--target", "gpu"});
  EXPECT_NE(text.out.find("valid: 52 configurations (10.8%)"), std::string::npos) << text.out;
  const auto bounded = opevo({"space", file.string(), "--target", "gpu", "--max-points", "100"});
  EXPECT_NE(bounded.out.find("valid: not counted (more than 100 points"), std::string::npos)
      << bounded.out;
  std::filesystem::remove(file);
}

// The mode a file is read for: --mode joint takes the joint template's unroll_c override.
TEST(CliSpace, ModeChoosesTheTemplateTheOverridesMustFit) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("opevo-lj-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << R"({"name": "lj", "kind": "conv2d", "shape": {"batch": 1,
      "in_channels": 4, "height": 8, "width": 8, "out_channels": 8, "kernel_h": 3,
      "kernel_w": 3}, "space": {"unroll_c": "choice:1,2"}})";
  const auto loop = opevo({"space", file.string()});
  EXPECT_EQ(loop.status, 2);
  EXPECT_NE(loop.err.find("the loop template of this conv2d has"), std::string::npos) << loop.err;
  const auto joint = opevo({"space", file.string(), "--mode", "joint", "--json"});
  ASSERT_EQ(joint.status, 0) << joint.err;
  const nlohmann::json j = nlohmann::json::parse(joint.out);
  bool overridden = false;
  for (const auto& p : j["parameters"])
    overridden = overridden || (p["name"] == "unroll_c" && p["spec"] == "choice:1,2");
  EXPECT_TRUE(overridden) << joint.out;
  std::filesystem::remove(file);
}

// Every wrong field of a file in the one line the command prints.
TEST(CliSpace, EveryWrongFieldOfAFileIsInItsOneLine) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("opevo-wc-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << R"({"name": "walk_conv", "kind": "conv2d", "shape": {"batch": 1,
      "in_channels": 4, "height": "3O", "width": 8, "out_channels": 8, "kernel_h": 3,
      "kernel_w": 0, "pad": -1}})";
  const auto r = opevo({"space", file.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("height must be a positive integer, got \"3O\"; kernel_w must be a "
                       "positive integer, got 0; pad must be an integer, 0 or more, got -1"),
            std::string::npos)
      << r.err;
  std::filesystem::remove(file);
}

// An operator file whose "target" does not fit the operator is the file's mistake: space, tune
// and codegen name the file and the field, as for its other fields; a command-line choice of the
// template names its option.
TEST(CliSpace, ATemplateThatDoesNotFitNamesTheFileFieldOrOption) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("opevo-tw-" + std::to_string(::getpid()) + ".json");
  const std::filesystem::path db =
      std::filesystem::temp_directory_path() / ("opevo-tw-" + std::to_string(::getpid()) + ".db");
  std::ofstream(file) << R"({"name": "w", "kind": "matmul", "target": "winograd",
      "shape": {"m": 64, "k": 4, "n": 4}})";
  const std::string winograd =
      "the Winograd template takes ungrouped stride-1 Conv2Ds with square kernels of 2 to 5 taps; "
      "this is not a Conv2D\n";
  const std::string fromFile = "opevo: " + file.string() +
                               ": \"target\": \"winograd\" does not fit operator 'w': " + winograd;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"space", file.string()},
        {"tune", "--op", file.string(), "--backend", "cpu", "--trials", "2", "--db", db.string()},
        {"codegen", "--op", file.string(), "--backend", "cpu", "--random"}}) {
    const auto r = opevo(args);
    EXPECT_EQ(r.status, 2) << args[0];
    EXPECT_EQ(r.err, fromFile) << args[0];
  }
  EXPECT_FALSE(std::filesystem::exists(db));  // refused before a database is opened
  const auto target = opevo({"space", "MM1", "--target", "winograd"});
  EXPECT_EQ(target.status, 2);
  EXPECT_EQ(target.err, "opevo: --target winograd does not fit operator 'MM1': " + winograd);
  const auto tune = opevo({"tune", "--op", "C1", "--template", "matvec", "--backend", "cpu",
                           "--trials", "2", "--db", db.string()});
  EXPECT_EQ(tune.status, 2);
  EXPECT_EQ(tune.err.rfind("opevo: --template matvec does not fit operator 'C1': the "
                           "matrix-vector template takes",
                           0),
            0)
      << tune.err;
  const auto codegen =
      opevo({"codegen", "--op", "MM1", "--template", "winograd", "--backend", "cpu", "--random"});
  EXPECT_EQ(codegen.status, 2);
  EXPECT_EQ(codegen.err, "opevo: --template winograd does not fit operator 'MM1': " + winograd);
  EXPECT_FALSE(std::filesystem::exists(db));
  std::filesystem::remove(file);
}

TEST(Worker, AnswersHello) {
  const auto r =
      runProcess(OPEVO_WORKER, {}, "{\"cmd\":\"hello\"}\nnot json\n{\"cmd\":\"quit\"}\n");
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(nlohmann::json::parse(first)["worker"], "opevo-worker");
  EXPECT_EQ(nlohmann::json::parse(second)["ok"], false);
}

}  // namespace
}  // namespace opevo::test
