#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "run_process.h"
#include "store/run_lock.h"
#include "store/store.h"

namespace opevo::test {
namespace {

const std::string kAllOps = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_all_ops.json";

TEST(CliNet, ListsThePresetsAndShowsTasks) {
  const auto list = runProcess(OPEVO_CLI, {"net", "list"});
  ASSERT_EQ(list.status, 0) << list.err;
  for (const char* name : {"alexnet", "resnet18", "resnet50", "bert_base_layer", "mobilenet_v2"})
    EXPECT_NE(list.out.find(name), std::string::npos) << list.out;
  const auto show =
      runProcess(OPEVO_CLI, {"net", "show", "alexnet", "--param", "batch=2", "--json"});
  ASSERT_EQ(show.status, 0) << show.err;
  const nlohmann::json j = nlohmann::json::parse(show.out);
  EXPECT_EQ(j["tasks"].size(), 8u);
  EXPECT_EQ(j["output_shape"], nlohmann::json::array({2, 1000}));
}

TEST(CliNet, ABadFileIsOneLineNamingTheLayer) {
  const auto r = runProcess(OPEVO_CLI, {"net", "show", kAllOps, "--param", "width=3"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("has no param 'width' (params: batch)"), std::string::npos) << r.err;
  const auto missing = runProcess(OPEVO_CLI, {"net", "show", "no_such_net"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("neither a network preset"), std::string::npos) << missing.err;
}

// Runs `opevo net run ... --json`; skips when this build has no libtorch reference.
nlohmann::json runNetwork(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"net", "run"};
  all.insert(all.end(), args.begin(), args.end());
  all.push_back("--json");
  const auto r = runProcess(OPEVO_CLI, all);
  EXPECT_EQ(r.status, 0) << r.err << r.out;
  return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

TEST(CliNet, EveryLayerKindMatchesLibtorch) {
  // Random task configurations, a grouped convolution with a folded norm, an unfolded norm,
  // pools with padding, fused epilogues (bias, add, gelu, scale, relu), views and transposes.
  for (const char* seed : {"1", "2"}) {
    const nlohmann::json j = runNetwork(
        {kAllOps, "--configs", "random", "--seed", seed, "--runs", "3", "--warmup", "1"});
    if (j.empty()) return;
    if (j["reference"]["ms"].is_null()) GTEST_SKIP() << j["reference"]["missing"];
    EXPECT_TRUE(j["verified"].get<bool>()) << j.dump(2);
    // The CPU's GELU (erf) and softmax (exp) are approximations within about 2e-7 each; the
    // whole network stays at 2-3e-7 of libtorch.
    EXPECT_LT(j["reference"]["max_relative_error"].get<double>(), 1e-5);
    EXPECT_EQ(j["tasks"].size(), 8u);  // c1, c2, d1, q, mm, q2, m2, d3
  }
}

// The reference as a deployed model runs (TorchScript, frozen and optimized for inference) computes
// what the eager one does: every layer kind's statement (net/torch_script.h) is checked here.
// Operands read transposed (mm's and bmm's trans_a) and a bias added across a 4-D tensor's
// channels are in a file of their own.
TEST(CliNet, EveryLayerKindMatchesFrozenLibtorch) {
#ifndef OPEVO_TORCH
  GTEST_SKIP() << "opevo-torch was not built (Debian libtorch-dev)";
#endif
  const std::string transposed =
      std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_transposed_ops.json";
  for (const std::string& file : {kAllOps, transposed}) {
    const nlohmann::json j =
        runNetwork({file, "--torch-form", "frozen", "--runs", "3", "--warmup", "1"});
    ASSERT_FALSE(j.empty()) << file;
    // Not skipped when the reference fails: a statement TorchScript refuses fails opevo-torch.
    ASSERT_FALSE(j["reference"]["ms"].is_null()) << j["reference"]["missing"];
    EXPECT_EQ(j["reference"]["form"], "frozen") << j.dump(2);
    const std::string name = j["reference"]["name"];
    EXPECT_EQ(name.substr(name.size() - 7), " frozen") << name;
    EXPECT_TRUE(j["verified"].get<bool>()) << j.dump(2);
    EXPECT_LT(j["reference"]["max_relative_error"].get<double>(), 1e-5) << j.dump(2);
  }
}

// --torch-form is refused where it would be ignored: with no reference, and on a GPU, where the
// tasks' libraries are the reference. Checked before a database is made. No libtorch needed.
TEST(CliNet, TheTorchFormIsRefusedWhereItCannotApply) {
  const auto bad = runProcess(OPEVO_CLI, {"net", "run", kAllOps, "--torch-form", "jit"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--torch-form: unknown form 'jit' (forms: eager or frozen)"),
            std::string::npos)
      << bad.err;
  for (const char* command : {"run", "compare"}) {
    std::vector<std::string> args = {"net",          command, kAllOps, "--no-reference",
                                     "--torch-form", "frozen"};
    if (std::string(command) == "compare")
      args.insert(args.end(), {"--trials", "8", "--out", "/tmp/opevo-never-written"});
    const auto none = runProcess(OPEVO_CLI, args);
    EXPECT_EQ(none.status, 2) << command;
    EXPECT_NE(none.err.find("--no-reference excludes --torch-form"), std::string::npos)
        << command << ": " << none.err;
  }
  char pattern[] = "/tmp/opevo-netform-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  const auto gpu = runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "8", "--backend",
                                          "cuda", "--torch-form", "frozen", "--db", db});
  EXPECT_EQ(gpu.status, 2);
  EXPECT_NE(gpu.err.find("--torch-form: libtorch is the reference on the cpu backend only (on "
                         "cuda the network is checked against its tasks' libraries)"),
            std::string::npos)
      << gpu.err;
  EXPECT_FALSE(std::filesystem::exists(db));
  std::filesystem::remove_all(dir);
}

// A run tuned against libtorch's frozen form says so in the stored runs' list, where eager and
// frozen runs read alike, and its end-to-end result names the form.
TEST(CliNet, TheRunsListNamesAFrozenReference) {
#ifndef OPEVO_TORCH
  GTEST_SKIP() << "opevo-torch was not built (Debian libtorch-dev)";
#endif
  char pattern[] = "/tmp/opevo-netfrozen-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  for (const char* form : {"frozen", "eager"}) {
    const auto tuned =
        runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "8", "--unit", "2", "--runs",
                               "3", "--torch-form", form, "--json", "--db", db});
    ASSERT_EQ(tuned.status, 0) << tuned.err << tuned.out;
    EXPECT_EQ(nlohmann::json::parse(tuned.out)["reference"]["form"], form);
  }
  const auto listed = runProcess(OPEVO_CLI, {"net", "runs", "--json", "--db", db});
  ASSERT_EQ(listed.status, 0) << listed.err;
  const nlohmann::json runs = nlohmann::json::parse(listed.out);
  ASSERT_EQ(runs.size(), 2u) << runs.dump(2);
  std::map<long long, std::string> forms;
  for (const auto& r : runs) forms[r["id"].get<long long>()] = r["reference_form"];
  EXPECT_EQ(forms[1], "frozen");
  EXPECT_EQ(forms[2], "eager");
  const auto text = runProcess(OPEVO_CLI, {"net", "runs", "--db", db});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_EQ(std::count(text.out.begin(), text.out.end(), '\n'), 3) << text.out;
  EXPECT_NE(text.out.find(" ms frozen"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find(" ms eager"), std::string::npos) << "eager is the default" << text.out;
  const auto shown = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", db});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.out.find("frozen"), std::string::npos) << shown.out;
  std::filesystem::remove_all(dir);
}

// The conversion steps of a network run, by the layer they serve.
std::vector<std::string> conversionsOf(const nlohmann::json& run) {
  std::vector<std::string> converts;
  for (const auto& s : run["steps"])
    if (s["kind"] == "convert") converts.push_back(s["name"].get<std::string>());
  return converts;
}

// Whether the run's program has `reader` read its input as its producer wrote it, having taken
// the producer's blocking (the sentence adoptProducerLayouts records).
bool adoptedInput(const nlohmann::json& run, const std::string& reader) {
  for (const auto& sentence : run["adopted_layouts"])
    if (sentence.get<std::string>().rfind(reader + " reads its input (", 0) == 0) return true;
  return false;
}

// Whether a run's program has a task read another's output as its residual as it is, the
// producer having taken the reader's output layout.
bool adoptedResidual(const nlohmann::json& run) {
  for (const auto& sentence : run["adopted_layouts"])
    if (sentence.get<std::string>().find("reads it as its residual") != std::string::npos)
      return true;
  return false;
}

TEST(CliNet, LayoutTasksConvertStraightIntoEachOther) {
  // a -> b (input and residual) -> c -> pool: the outputs of a and b are read only by layout
  // tasks, so they are never unpacked; c's is unpacked for the pool without propagation, and
  // read by the pool in c's layout with it. Random layouts and loops in every task, checked
  // against libtorch.
  const std::string chain = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_conv_chain.json";
  for (const char* seed : {"1", "2", "3"})
    for (const char* mode : {"joint-np", "joint"}) {
      SCOPED_TRACE(std::string(mode) + ", seed " + seed);
      const nlohmann::json j = runNetwork({chain, "--mode", mode, "--configs", "random", "--seed",
                                           seed, "--runs", "2", "--warmup", "1"});
      if (j.empty()) return;
      // a: image in; b: input and residual from a; c: input from b, output out to the pool.
      // With propagation a writes b's output layout where its space allows, and b reads its
      // residual as it is; c (1x1, stride 2) takes b's blocking where its space allows, and
      // reads b's output as it is. The dense layer d tunes its layouts too: its input (the
      // flattened pool) packed, its output (the network's) unpacked.
      std::vector<std::string> want{"a", "b", "b", "c", "c", "d", "d"};
      if (std::string(mode) == "joint") {
        want = {"a", "b"};
        if (!adoptedResidual(j)) want.push_back("b");
        if (!adoptedInput(j, "c")) want.push_back("c");
        want.insert(want.end(), {"d", "d"});
      }
      EXPECT_EQ(conversionsOf(j), want) << j["steps"].dump();
      if (j["reference"]["ms"].is_null()) GTEST_SKIP() << j["reference"]["missing"];
      EXPECT_TRUE(j["verified"].get<bool>()) << j.dump(2);
    }
}

// Layout tasks of different kinds see a tensor with different dims (a convolution's output as a
// dense layer's (1, n, k) input, a dense layer's as a batch matmul's (b, n, k)): their layouts
// meet through the plain one. A straight conversion between them once failed the build ("the
// layouts are of different tensors").
TEST(CliNet, LayoutTasksOfDifferentKindsMeetThroughThePlainLayout) {
  const std::string net = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_kinds_meet.json";
  for (const char* seed : {"1", "2"})
    for (const char* mode : {"joint", "joint-np"}) {
      SCOPED_TRACE(std::string(mode) + ", seed " + seed);
      const nlohmann::json j = runNetwork({net, "--mode", mode, "--configs", "random", "--seed",
                                           seed, "--runs", "2", "--warmup", "1"});
      if (j.empty()) return;
      // c's input in and its output out; cd's and d's in and out; mm's A and B in, its output
      // out (for the transpose that moves its last dim, element by element).
      EXPECT_EQ(conversionsOf(j),
                (std::vector<std::string>{"c", "c", "cd", "cd", "d", "d", "mm", "mm", "mm"}))
          << j["steps"].dump();
      if (j["reference"]["ms"].is_null()) GTEST_SKIP() << j["reference"]["missing"];
      EXPECT_TRUE(j["verified"].get<bool>()) << j.dump(2);
    }
}

TEST(CliNet, PropagatedLayoutsNeedNoConversion) {
  // b1 and b2 are one task (conv, add, relu: one configuration, one layout): b2's residual, b1's
  // output, is already in b2's output layout, and both pools read b2's layout. Without
  // propagation (joint-np) both are converted.
  const std::string chain = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_same_task_chain.json";
  for (const char* seed : {"1", "2"}) {
    SCOPED_TRACE(std::string("seed ") + seed);
    const nlohmann::json alt = runNetwork({chain, "--mode", "joint", "--configs", "random",
                                           "--seed", seed, "--runs", "2", "--warmup", "1"});
    const nlohmann::json wp = runNetwork({chain, "--mode", "joint-np", "--configs", "random",
                                          "--seed", seed, "--runs", "2", "--warmup", "1"});
    if (alt.empty() || wp.empty()) return;
    EXPECT_EQ(alt["mode"], "joint");
    EXPECT_EQ(wp["mode"], "joint-np");
    EXPECT_EQ(alt["tasks"].size(), 3u);  // a, b (b1 and b2), d
    // a's output (b1's residual) in b's layout too, where a's space allows.
    // The dense layer d packs its input and unpacks its output in both.
    EXPECT_EQ(conversionsOf(alt), alt["adopted_layouts"].empty()
                                      ? (std::vector<std::string>{"a", "b1", "b1", "b2", "d", "d"})
                                      : (std::vector<std::string>{"a", "b1", "b2", "d", "d"}))
        << alt["steps"].dump();
    EXPECT_EQ(conversionsOf(wp),
              (std::vector<std::string>{"a", "b1", "b1", "b2", "b2", "b2", "d", "d"}))
        << wp["steps"].dump();
    if (alt["reference"]["ms"].is_null()) GTEST_SKIP() << alt["reference"]["missing"];
    EXPECT_TRUE(alt["verified"].get<bool>()) << alt.dump(2);
    EXPECT_TRUE(wp["verified"].get<bool>()) << wp.dump(2);
  }
}

TEST(CliNet, AResidualsProducerWritesItsReadersLayout) {
  // The shortcut (a 1x1 convolution, a task of its own, as ResNet's downsampling) and the block's
  // convolution: the task that fuses the add reads the other's output as its residual. With
  // propagation the producer writes the reader's output layout where its space allows (seeds 1
  // and 3 here), and that residual needs no conversion; without (joint-np) it is converted. The
  // shortcut also takes a's blocking where its space allows (seed 3), and reads its input as a
  // wrote it: one conversion less again.
  const std::string net = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_residual_producer.json";
  for (const char* seed : {"1", "3"}) {
    SCOPED_TRACE(std::string("seed ") + seed);
    const nlohmann::json alt = runNetwork({net, "--mode", "joint", "--configs", "random", "--seed",
                                           seed, "--runs", "2", "--warmup", "1"});
    const nlohmann::json wp = runNetwork({net, "--mode", "joint-np", "--configs", "random",
                                          "--seed", seed, "--runs", "2", "--warmup", "1"});
    if (alt.empty() || wp.empty()) return;
    EXPECT_TRUE(adoptedResidual(alt)) << alt.dump(2);
    EXPECT_EQ(adoptedInput(alt, "short"), std::string(seed) == "3") << alt.dump(2);
    EXPECT_TRUE(wp["adopted_layouts"].empty());
    EXPECT_EQ(conversionsOf(alt).size() + alt["adopted_layouts"].size(), conversionsOf(wp).size())
        << alt["steps"].dump() << "\n"
        << wp["steps"].dump();
    if (alt["reference"]["ms"].is_null()) GTEST_SKIP() << alt["reference"]["missing"];
    EXPECT_TRUE(alt["verified"].get<bool>()) << alt.dump(2);
    EXPECT_TRUE(wp["verified"].get<bool>()) << wp.dump(2);
  }
}

// ALT's propagation to readers: a 1x1 convolution whose input another layout task writes takes
// that task's blocking (its input channels blocked as the producer's output channels, its output
// rows and columns as the producer's, over its stride) and reads the producer's buffer as it is.
// b (stride 1) and c (stride 2) both do here, untuned; without propagation both inputs are
// converted. It fails when the program compares layouts as written (b's input names its channels
// c, a's output f) rather than where they put each element.
TEST(CliNet, OneByOneConvolutionsReadTheirProducersLayoutsAsTheyAre) {
  const std::string net = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_bottleneck.json";
  const nlohmann::json alt = runNetwork({net, "--mode", "joint", "--runs", "2", "--warmup", "1"});
  const nlohmann::json wp = runNetwork({net, "--mode", "joint-np", "--runs", "2", "--warmup", "1"});
  if (alt.empty() || wp.empty()) return;
  EXPECT_TRUE(adoptedInput(alt, "b")) << alt.dump(2);
  EXPECT_TRUE(adoptedInput(alt, "c")) << alt.dump(2);
  // a's input, then only c's output, back to plain for the network's.
  EXPECT_EQ(conversionsOf(alt), (std::vector<std::string>{"a", "c"})) << alt["steps"].dump();
  EXPECT_EQ(conversionsOf(wp), (std::vector<std::string>{"a", "b", "c", "c"}))
      << wp["steps"].dump();
  if (alt["reference"]["ms"].is_null()) GTEST_SKIP() << alt["reference"]["missing"];
  EXPECT_TRUE(alt["verified"].get<bool>()) << alt.dump(2);
  EXPECT_TRUE(wp["verified"].get<bool>()) << wp.dump(2);
  EXPECT_LT(alt["reference"]["max_relative_error"].get<double>(), 1e-5);
}

// The layout.out_* part of a task's configuration text ("layout.out_c=1,16; ...; layout.out_w=..").
std::string outputLayoutOf(const nlohmann::json& task) {
  const std::string config = task["config"];
  const std::size_t end = config.find("; layout.in_c=");
  return end == std::string::npos ? std::string() : config.substr(0, end);
}

// One parameter's value in a task's configuration text ("layout.out_c=1,16; ..." -> "1,16").
std::string paramOf(const nlohmann::json& task, const std::string& name) {
  const std::string config = "; " + task["config"].get<std::string>() + ";";
  const std::size_t at = config.find("; " + name + "=");
  if (at == std::string::npos) return {};
  const std::size_t begin = at + name.size() + 3;
  return config.substr(begin, config.find(';', begin) - begin);
}

// Whether a 1x1 stride-1 convolution's stored configuration reads its producer's output as the
// producer's stored configuration writes it: input channels blocked as the producer's output
// channels, output rows and columns as the producer's.
bool readsAsWritten(const nlohmann::json& reader, const nlohmann::json& writer) {
  return paramOf(reader, "layout.in_c") == paramOf(writer, "layout.out_c") &&
         paramOf(reader, "layout.out_h") == paramOf(writer, "layout.out_h") &&
         paramOf(reader, "layout.out_w") == paramOf(writer, "layout.out_w");
}

// The tasks of a run's curve in the order they were first given a unit, each once.
std::vector<std::string> tuningOrder(const nlohmann::json& run) {
  std::vector<std::string> order;
  for (const auto& u : run["curve"])
    if (order.empty() || order.back() != u["task"].get<std::string>()) order.push_back(u["task"]);
  return order;
}

TEST(CliNet, TopologicalTuningPinsAResidualsLayoutAndConvertsLess) {
  // ALT's order: a, b, then short, whose kernel adds b's output (a residual that links two
  // tasks), then d, each to its share (24 / 4). Tuned after b, short's output layout is pinned to
  // b's choice: its residual is read as it is, where the gradient scheduler's run converts it
  // unless b happens to adopt short's layout, and joint-np always converts it. Real CPU runs,
  // stored in SQLite, checked against libtorch.
  const std::string net = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_residual_producer.json";
  char pattern[] = "/tmp/opevo-nettopo-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  auto tune = [&](const char* scheduler, const char* mode, const char* seed) {
    const auto r = runProcess(
        OPEVO_CLI, {"net",      "tune",     net,      "--scheduler", scheduler, "--mode", mode,
                    "--trials", "24",       "--unit", "2",           "--seed",  seed,     "--runs",
                    "2",        "--warmup", "1",      "--json",      "--db",    db});
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    return r.status == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
  };
  for (const char* seed : {"1", "2"}) {
    SCOPED_TRACE(std::string("seed ") + seed);
    const nlohmann::json topo = tune("topological", "joint", seed);
    const nlohmann::json gradient = tune("gradient", "joint", seed);
    const nlohmann::json wp = tune("topological", "joint-np", seed);
    if (topo.empty() || gradient.empty() || wp.empty()) break;
    EXPECT_EQ(topo["scheduler"], "topological");
    EXPECT_EQ(gradient["scheduler"], "gradient");
    EXPECT_EQ(tuningOrder(topo), (std::vector<std::string>{"a", "b", "short", "d"}));
    std::map<std::string, nlohmann::json> tasks;
    for (const auto& t : topo["tasks"]) {
      tasks[t["name"]] = t;
      EXPECT_EQ(t["trials"], 6) << t.dump();
    }
    ASSERT_EQ(tasks.size(), 4u);
    const nlohmann::json& lc = tasks["short"]["layout_constraint"];
    ASSERT_TRUE(lc.is_object()) << tasks["short"].dump(2);
    EXPECT_EQ(lc["by"], "b");
    EXPECT_EQ(lc["tensor"], "b");
    EXPECT_TRUE(lc["applied"].get<bool>());
    for (const char* other : {"a", "b", "d"})
      EXPECT_TRUE(tasks[other]["layout_constraint"].is_null());
    // The chosen configurations keep the constraint.
    EXPECT_EQ(outputLayoutOf(tasks["short"]), lc["output_layout"].get<std::string>());
    EXPECT_EQ(outputLayoutOf(tasks["short"]), outputLayoutOf(tasks["b"]));
    for (const auto& t : gradient["tasks"]) EXPECT_TRUE(t["layout_constraint"].is_null());
    for (const auto& t : wp["tasks"]) EXPECT_TRUE(t["layout_constraint"].is_null());

    // a's input, b's input, short's input (unless short reads a's output as a wrote it: a's
    // blocking taken, or chosen alike) and its output (read by the pool before the dense layer),
    // the dense layer's input and output: the residual is not converted, and it needed no
    // adopting.
    const bool readsA = adoptedInput(topo, "short") || readsAsWritten(tasks["short"], tasks["a"]);
    EXPECT_EQ(conversionsOf(topo),
              readsA ? (std::vector<std::string>{"a", "b", "short", "d", "d"})
                     : (std::vector<std::string>{"a", "b", "short", "short", "d", "d"}))
        << topo["steps"].dump();
    EXPECT_FALSE(adoptedResidual(topo)) << topo["adopted_layouts"].dump();
    // Side by side, short's residual is read as it is only where b and short happened to choose
    // one output layout, or b could adopt short's; short's input as for the topological run.
    std::map<std::string, nlohmann::json> free;
    for (const auto& t : gradient["tasks"]) free[t["name"]] = t;
    const bool freeReadsA =
        adoptedInput(gradient, "short") || readsAsWritten(free["short"], free["a"]);
    const bool met =
        adoptedResidual(gradient) || (!adoptedInput(gradient, "short") &&
                                      outputLayoutOf(free["short"]) == outputLayoutOf(free["b"]));
    EXPECT_EQ(conversionsOf(gradient).size(), 7u - met - freeReadsA) << gradient["steps"].dump();
    EXPECT_EQ(conversionsOf(wp).size(), 7u) << wp["steps"].dump();
    if (topo["reference"]["ms"].is_null()) GTEST_SKIP() << topo["reference"]["missing"];
    for (const nlohmann::json* j : {&topo, &gradient, &wp})
      EXPECT_TRUE((*j)["verified"].get<bool>()) << j->dump(2);
  }
  std::filesystem::remove_all(dir);
}

TEST(CliNet, CompareReportsEachContendersSchedulerAndConstraints) {
  const std::string net = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_residual_producer.json";
  char pattern[] = "/tmp/opevo-nettopocmp-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const auto r = runProcess(OPEVO_CLI, {"net", "compare", net, "--trials", "12", "--algos",
                                        "opevo-m", "--schedulers", "gradient,topological",
                                        "--modes", "joint", "--out", dir.string(), "--runs", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  // Repeats counted from 1, as compare and the window count them.
  EXPECT_NE(r.out.find("| opevo-m | topological | joint | 1 | 12 |"), std::string::npos) << r.out;
  std::ifstream summary(dir / "summary.json");
  const nlohmann::json j = nlohmann::json::parse(summary);
  ASSERT_EQ(j["results"].size(), 2u);
  for (const auto& result : j["results"]) {
    EXPECT_EQ(result["trials"], 12);
    EXPECT_EQ(result["repeat"], 1);
    if (result["scheduler"] == "gradient") {
      EXPECT_TRUE(result["layout_constraints"].empty()) << result.dump(2);
      EXPECT_GE(result["conversion_steps"], 5);
      continue;
    }
    EXPECT_EQ(result["scheduler"], "topological");
    ASSERT_EQ(result["layout_constraints"].size(), 1u) << result.dump(2);
    // The residual's is gone; the dense layer's two remain, and short's input unless short reads
    // a's output as a wrote it.
    EXPECT_GE(result["conversion_steps"], 5) << result.dump(2);
    EXPECT_LE(result["conversion_steps"], 6) << result.dump(2);
    EXPECT_EQ(result["layout_constraints"][0]["task"], "short");
    EXPECT_EQ(result["layout_constraints"][0]["by"], "b");
    EXPECT_TRUE(result["layout_constraints"][0]["applied"].get<bool>());
    if (!result["reference"]["ms"].is_null()) {
      EXPECT_TRUE(result["verified"].get<bool>()) << result.dump(2);
    }
  }
  const auto bad = runProcess(OPEVO_CLI, {"net", "compare", net, "--trials", "4", "--schedulers",
                                          "alphabetical", "--out", dir.string()});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("round-robin, topological"), std::string::npos) << bad.err;
  std::filesystem::remove_all(dir);
}

TEST(CliNet, AlexNetUntunedRunsEndToEndAndMatchesLibtorch) {
  const nlohmann::json j = runNetwork({"alexnet", "--runs", "3", "--warmup", "1"});
  if (j.empty()) return;
  if (j["reference"]["ms"].is_null()) GTEST_SKIP() << j["reference"]["missing"];
  EXPECT_TRUE(j["verified"].get<bool>()) << j.dump(2);
  EXPECT_GT(j["end_to_end_ms"].get<double>(), 0);
  EXPECT_GT(j["reference"]["ms"].get<double>(), 0);
  EXPECT_EQ(j["tasks"].size(), 8u);
}

TEST(CliNet, TuneSpendsTheExactBudgetAndRunsTheTunedNetwork) {
  char pattern[] = "/tmp/opevo-nettune-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  for (const char* scheduler : {"gradient", "round-robin"}) {
    const auto r =
        runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "22", "--unit", "2",
                               "--scheduler", scheduler, "--runs", "3", "--json", "--db", db});
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["trials"], 22);
    int trials = 0, tuned = 0;
    for (const auto& t : j["tasks"]) {
      trials += t["trials"].get<int>();
      tuned += t["tuned"].get<bool>() ? 1 : 0;
    }
    EXPECT_EQ(trials, 22);
    EXPECT_EQ(tuned, 8);  // the warm-up gives every task a unit first
    EXPECT_EQ(j["curve"].size(), 11u);
    EXPECT_GT(j["sum_of_tasks_ms"].get<double>(), 0);
    EXPECT_GT(j["end_to_end_ms"].get<double>(), 0);
    if (j["reference"]["ms"].is_null()) continue;
    EXPECT_TRUE(j["verified"].get<bool>()) << j.dump(2);
  }
  const auto bad = runProcess(
      OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "4", "--algo", "nope", "--db", db});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("unknown algorithm 'nope'"), std::string::npos) << bad.err;
  std::filesystem::remove_all(dir);
}

// A task's best is timed alone; whether the network gained end to end is measured: the untuned
// configurations (net run's) run after the tuned ones in the same process, unless they are the
// tuned ones, and net runs says both.
TEST(CliNet, TuneRunsTheUntunedConfigurationsToCompare) {
  char pattern[] = "/tmp/opevo-netuntuned-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  const auto untuned = runProcess(OPEVO_CLI, {"net", "run", kAllOps, "--runs", "3", "--json"});
  ASSERT_EQ(untuned.status, 0) << untuned.err;
  std::vector<std::string> untunedConfigs;
  const nlohmann::json untunedJson = nlohmann::json::parse(untuned.out);
  for (const auto& t : untunedJson["tasks"]) untunedConfigs.push_back(t["config"]);
  for (const char* trials : {"4", "22"}) {
    SCOPED_TRACE(trials);
    const auto r = runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", trials, "--unit", "2",
                                          "--runs", "3", "--json", "--db", db});
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    std::vector<std::string> configs;
    for (const auto& t : j["tasks"]) configs.push_back(t["config"]);
    const long long id = j["id"];
    const auto shown = runProcess(OPEVO_CLI, {"net", "runs", std::to_string(id), "--db", db});
    ASSERT_EQ(shown.status, 0) << shown.err;
    if (configs == untunedConfigs) {
      EXPECT_EQ(j.value("untuned_is_tuned", false), true) << j.dump(2);
      EXPECT_FALSE(j.contains("untuned"));
      EXPECT_NE(shown.out.find("untuned configurations: every task's chosen configuration is its "
                               "untuned one"),
                std::string::npos)
          << shown.out;
      EXPECT_FALSE(j.contains("chosen"));
      continue;
    }
    ASSERT_TRUE(j.contains("untuned")) << j.dump(2);
    EXPECT_FALSE(j.contains("untuned_is_tuned"));
    const nlohmann::json& u = j["untuned"];
    EXPECT_GT(u["end_to_end_ms"].get<double>(), 0);
    EXPECT_EQ(u["times_ms"].size(), 3u);
    EXPECT_FALSE(u["steps"].empty());
    if (!j["reference"]["ms"].is_null()) {
      EXPECT_TRUE(u["verified"].get<bool>()) << u.dump(2);
      // Checked against the tuned run's libtorch output, not timed again.
      EXPECT_EQ(u["reference"]["ms"], j["reference"]["ms"]);
    }
    EXPECT_NE(shown.out.find("untuned configurations, same process: "), std::string::npos)
        << shown.out;
    EXPECT_NE(shown.out.find("tuned / untuned end to end: "), std::string::npos) << shown.out;
    // The network kept: the tuned one unless another ran faster beyond the noise; where each
    // task's faster configuration makes a third network, that ran too, some tasks untuned.
    const std::string chosen = j.value("chosen", "");
    ASSERT_TRUE(chosen == "tuned" || chosen == "mixed" || chosen == "untuned") << j.dump(2);
    EXPECT_NE(shown.out.find("kept: the " + chosen + " configurations"), std::string::npos)
        << shown.out;
    if (j.contains("mixed")) {
      const std::size_t took = j["mixed_untuned_tasks"].size();
      EXPECT_GT(took, 0u);
      EXPECT_LT(took, configs.size());
      EXPECT_FALSE(j["mixed"]["steps"].empty());
      if (!j["reference"]["ms"].is_null()) {
        EXPECT_TRUE(j["mixed"]["verified"].get<bool>());
      }
    }
    EXPECT_EQ(j.contains("chosen_configs"), chosen != "tuned") << j.dump(2);
    if (chosen == "tuned") continue;
    ASSERT_TRUE(j.contains(chosen)) << j.dump(2);
    EXPECT_LT(j[chosen]["end_to_end_ms"].get<double>() * 1.03, j["end_to_end_ms"].get<double>());
    ASSERT_EQ(j["chosen_configs"].size(), configs.size());
    if (chosen == "untuned") {
      EXPECT_EQ(j["chosen_configs"].get<std::vector<std::string>>(), untunedConfigs);
    }
  }
  // One trial: AlexNet's first task, a joint convolution, measures its start point first, and
  // every other task is untried. Nothing more runs, and the line says why.
  const auto one = runProcess(OPEVO_CLI, {"net", "tune", "alexnet", "--trials", "1", "--unit", "1",
                                          "--no-reference", "--runs", "2", "--json", "--db", db});
  ASSERT_EQ(one.status, 0) << one.err;
  const nlohmann::json o = nlohmann::json::parse(one.out);
  EXPECT_EQ(o.value("untuned_is_tuned", false), true) << o.dump(2);
  EXPECT_FALSE(o.contains("untuned"));
  const auto oneShown =
      runProcess(OPEVO_CLI, {"net", "runs", std::to_string(o["id"].get<long long>()), "--db", db});
  EXPECT_NE(oneShown.out.find("untuned configurations: every task's chosen configuration is its "
                              "untuned one"),
            std::string::npos)
      << oneShown.out;
  // Without libtorch the untuned run is not checked, and nothing says that it differs.
  const auto unchecked = runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "22", "--unit",
                                                "2", "--runs", "3", "--no-reference", "--db", db});
  ASSERT_EQ(unchecked.status, 0) << unchecked.err;
  EXPECT_EQ(unchecked.out.find("DIFFERS"), std::string::npos) << unchecked.out;
  EXPECT_NE(unchecked.out.find("untuned configurations"), std::string::npos) << unchecked.out;
  // Where it would be ignored it is refused.
  const auto gpu = runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "4", "--backend",
                                          "cuda", "--no-untuned-run", "--db", db});
  EXPECT_EQ(gpu.status, 2);
  EXPECT_NE(gpu.err.find("--no-untuned-run: the untuned configurations run on the cpu backend"),
            std::string::npos)
      << gpu.err;
  // Asked not to: neither.
  const auto skipped =
      runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "22", "--unit", "2", "--runs", "3",
                             "--no-untuned-run", "--json", "--db", db});
  ASSERT_EQ(skipped.status, 0) << skipped.err;
  const nlohmann::json s = nlohmann::json::parse(skipped.out);
  EXPECT_FALSE(s.contains("untuned"));
  EXPECT_FALSE(s.contains("untuned_is_tuned"));
  std::filesystem::remove_all(dir);
}

// The untuned and mixed networks are comparisons: where one does not build (here the compiler,
// OPEVO_CXX, fails on its Nth network program, as one the kernel killed for memory would), the
// tuned run is stored finished all the same, the result names the failure, the tuned network is
// exported (nothing else was checked; with the untuned one it is kept) and net runs ID says so.
TEST(CliNet, AnUntunedOrMixedNetworkThatFailsIsNamedAndTheTunedOneKept) {
  char pattern[] = "/tmp/opevo-netfails-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  struct Removed {
    std::filesystem::path dir;
    ~Removed() { std::filesystem::remove_all(dir); }
  } removed{dir};  // an ASSERT below returns early
  const std::string db = (dir / "runs.db").string();
  const std::string cxx = (dir / "cxx").string();
  {
    std::ofstream script(cxx);
    script << "#!/bin/sh\n"
              "case \"$*\" in\n"
              "  */network.cpp*)\n"
              "    n=$(cat \"$COUNT\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$COUNT\"\n"
              "    if [ \"$n\" = \"$FAIL_AT\" ]; then\n"
              "      echo 'cc1plus: out of memory allocating 4096 bytes' >&2; exit 1\n"
              "    fi;;\n"
              "esac\n"
              "exec \"${REAL_CXX:-c++}\" \"$@\"\n";
  }
  // The compiler the suite builds kernels with, where one is set, behind the failing one.
  const char* realCxx = std::getenv("OPEVO_CXX");
  std::filesystem::permissions(cxx, std::filesystem::perms::owner_all);
  const std::string count = (dir / "count").string();
  // The nth network program built fails: 2 is the untuned one (the tuned one is the first), 3 the
  // mixed one, built only where each task's faster configuration makes a third network.
  auto tuneFailingAt = [&](int n) {
    std::filesystem::remove(count);
    const auto r = runProcess(
        "env", {"OPEVO_CXX=" + cxx, "REAL_CXX=" + std::string(realCxx ? realCxx : "c++"),
                "COUNT=" + count, "FAIL_AT=" + std::to_string(n), OPEVO_CLI, "net", "tune", kAllOps,
                "--trials", "22", "--unit", "2", "--runs", "3", "--json", "--db", db});
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    return nlohmann::json::parse(r.status == 0 ? r.out : "{}");
  };
  auto expectStoredAndShown = [&](const nlohmann::json& j, const std::string& line,
                                  const std::string& kept) {
    const std::string id = std::to_string(j["id"].get<long long>());
    const auto runs = runProcess(OPEVO_CLI, {"net", "runs", id, "--json", "--db", db});
    ASSERT_EQ(runs.status, 0) << runs.err;
    EXPECT_EQ(nlohmann::json::parse(runs.out)["status"], "finished");
    const auto shown = runProcess(OPEVO_CLI, {"net", "runs", id, "--db", db});
    ASSERT_EQ(shown.status, 0) << shown.err;
    EXPECT_NE(shown.out.find(line), std::string::npos) << shown.out;
    EXPECT_NE(shown.out.find("cc1plus: out of memory"), std::string::npos) << shown.out;
    EXPECT_NE(shown.out.find(kept), std::string::npos) << shown.out;
  };

  const nlohmann::json u = tuneFailingAt(2);
  ASSERT_TRUE(u.contains("id")) << "net tune failed";
  ASSERT_FALSE(u.value("untuned_is_tuned", false)) << "22 trials tune some task: " << u.dump(2);
  EXPECT_TRUE(u["end_to_end_ms"].is_number()) << "the tuned network ran";
  EXPECT_FALSE(u.contains("untuned"));
  EXPECT_NE(u.value("untuned_error", "").find("cc1plus: out of memory"), std::string::npos)
      << u.dump(2);
  EXPECT_FALSE(u.contains("mixed")) << "nothing to mix the tuned one with";
  EXPECT_FALSE(u.contains("chosen")) << "no other network was checked";
  expectStoredAndShown(u,
                       "untuned configurations: not run end to end (network run: the kernels "
                       "do not compile:",
                       "kept: the tuned configurations (the untuned network did not run end to "
                       "end, so no other was checked); opevo net export " +
                           std::to_string(u["id"].get<long long>()) + " writes them");

  // Whether a task's untuned steps ran faster is the machine's to say: a few runs, until one
  // builds a mixed network and keeps the tuned one.
  bool mixedTried = false;
  for (int attempt = 0; attempt < 6 && !mixedTried; ++attempt) {
    const nlohmann::json m = tuneFailingAt(3);
    ASSERT_TRUE(m.contains("id")) << "net tune failed";
    if (!m.contains("mixed_untuned_tasks")) continue;
    ASSERT_TRUE(m.contains("untuned")) << m.dump(2);
    EXPECT_FALSE(m.contains("mixed"));
    EXPECT_FALSE(m["mixed_untuned_tasks"].empty());
    EXPECT_NE(m.value("mixed_error", "").find("cc1plus: out of memory"), std::string::npos)
        << m.dump(2);
    // The untuned network still ran: kept were it over 3% faster (then another try), else the
    // tuned one.
    if (m.value("chosen", "") == "untuned") continue;
    EXPECT_EQ(m.value("chosen", ""), "tuned") << m.dump(2);
    expectStoredAndShown(m,
                         "tasks switched to untuned): not run end to end (network run: the "
                         "kernels do not compile:",
                         "kept: the tuned configurations (no other network checked against the "
                         "reference ran more than 3% faster end to end)");
    mixedTried = true;
  }
  if (!mixedTried) std::printf("[ note ] no run here made a mixed network: its failure untried\n");

  // net compare alike: its one contender's network is the first built, the untuned one the
  // second; the comparison is written whole, the untuned entry naming its failure.
  std::filesystem::remove(count);
  const std::filesystem::path out = dir / "compare";
  const auto compared =
      runProcess("env", {"OPEVO_CXX=" + cxx, "REAL_CXX=" + std::string(realCxx ? realCxx : "c++"),
                         "COUNT=" + count, "FAIL_AT=2", OPEVO_CLI, "net", "compare", kAllOps,
                         "--trials", "8", "--algos", "random", "--schedulers", "gradient", "--out",
                         out.string(), "--runs", "2"});
  ASSERT_EQ(compared.status, 0) << compared.err << compared.out;
  EXPECT_NE(compared.out.find("| untuned | - | joint | - | 0 | - | - | - | not run: network run: "
                              "the kernels do not compile: cc1plus: out of memory"),
            std::string::npos)
      << compared.out;
  const nlohmann::json summary = nlohmann::json::parse(std::ifstream(out / "summary.json"));
  ASSERT_EQ(summary["results"].size(), 1u);
  EXPECT_GT(summary["results"][0]["end_to_end_ms"].get<double>(), 0);
  EXPECT_FALSE(summary["results"][0].contains("tuned_over_untuned"));
  ASSERT_EQ(summary["untuned"].size(), 1u);
  EXPECT_NE(summary["untuned"][0].value("error", "").find("cc1plus: out of memory"),
            std::string::npos)
      << summary.dump(2);
}

// net runs ID shows one stored run: a finished one as its tune ended, an unfinished one as far
// as its stored units and trials go, its latency curve replayed as the scheduler saw it.
TEST(CliNet, RunsShowsOneStoredRunFinishedOrAsFarAsItGot) {
  char pattern[] = "/tmp/opevo-netruns-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  const auto tuned = runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "20", "--unit", "2",
                                            "--runs", "3", "--json", "--db", db});
  ASSERT_EQ(tuned.status, 0) << tuned.err << tuned.out;
  const nlohmann::json j = nlohmann::json::parse(tuned.out);
  const std::string id = std::to_string(j["id"].get<long long>());

  const auto shown = runProcess(OPEVO_CLI, {"net", "runs", id, "--json", "--db", db});
  ASSERT_EQ(shown.status, 0) << shown.err;
  const nlohmann::json k = nlohmann::json::parse(shown.out);
  EXPECT_EQ(k["status"], "finished");
  EXPECT_EQ(k["trials"], 20);
  EXPECT_EQ(k["result"]["end_to_end_ms"], j["end_to_end_ms"]);
  ASSERT_EQ(k["tasks"].size(), j["tasks"].size());
  for (std::size_t i = 0; i < j["tasks"].size(); ++i) {
    EXPECT_EQ(k["tasks"][i]["trials"], j["tasks"][i]["trials"]);
    EXPECT_EQ(k["tasks"][i]["best_ms"], j["tasks"][i]["best_ms"]);
  }
  ASSERT_EQ(k["curve"].size(), j["curve"].size());
  for (std::size_t u = 0; u < j["curve"].size(); ++u)
    EXPECT_EQ(k["curve"][u]["estimate_ms"], j["curve"][u]["estimate_ms"]) << u;
  const auto text = runProcess(OPEVO_CLI, {"net", "runs", id, "--db", db});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("network run " + id + ": all_ops, finished"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("20 trials of 20 in units of 2"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("ms end to end (median of 3)"), std::string::npos) << text.out;

  // The same run as if its program had died before its end: no result stored. Its tasks and
  // curve come from the units and trials, and agree with what the tuner itself had.
  Store(db).setNetworkStatus(j["id"].get<long long>(), RunStatus::Interrupted, "");
  const auto replayed = runProcess(OPEVO_CLI, {"net", "runs", id, "--json", "--db", db});
  ASSERT_EQ(replayed.status, 0) << replayed.err;
  const nlohmann::json r = nlohmann::json::parse(replayed.out);
  EXPECT_EQ(r["status"], "interrupted");
  EXPECT_TRUE(r["result"].is_null());
  for (std::size_t i = 0; i < j["tasks"].size(); ++i) {
    EXPECT_EQ(r["tasks"][i]["trials"], j["tasks"][i]["trials"]);
    EXPECT_NEAR(r["tasks"][i]["best_ms"].get<double>(), j["tasks"][i]["best_ms"].get<double>(),
                1e-6 * j["tasks"][i]["best_ms"].get<double>())
        << i;
  }
  ASSERT_EQ(r["curve"].size(), j["curve"].size());
  for (std::size_t u = 0; u < j["curve"].size(); ++u) {
    ASSERT_EQ(r["curve"][u]["estimate_ms"].is_null(), j["curve"][u]["estimate_ms"].is_null()) << u;
    if (j["curve"][u]["estimate_ms"].is_null()) continue;
    EXPECT_NEAR(r["curve"][u]["estimate_ms"].get<double>(),
                j["curve"][u]["estimate_ms"].get<double>(),
                1e-6 * j["curve"][u]["estimate_ms"].get<double>())
        << u;
  }
  const auto unfinished = runProcess(OPEVO_CLI, {"net", "runs", id, "--db", db});
  EXPECT_NE(unfinished.out.find("not finished: opevo net tune --resume " + id), std::string::npos)
      << unfinished.out;
  EXPECT_EQ(unfinished.out.find("end to end"), std::string::npos) << unfinished.out;
  {
    // Held by another process (this test): a resume would be refused, so none is suggested.
    Store(db).setNetworkStatus(j["id"].get<long long>(), RunStatus::Running, "");
    const RunLock held(db, LockedKind::Network, j["id"].get<long long>());
    const auto tuning = runProcess(OPEVO_CLI, {"net", "runs", id, "--db", db});
    EXPECT_NE(tuning.out.find("being tuned by another process (the figures are as far as it got)"),
              std::string::npos)
        << tuning.out;
    EXPECT_EQ(tuning.out.find("--resume"), std::string::npos) << tuning.out;
  }
  Store(db).setNetworkStatus(j["id"].get<long long>(), RunStatus::Interrupted, "");

  // Killed mid-unit: the last unit's row was never written, its trials are stored. They count,
  // as one more unit of their task, as a resume counts them.
  {
    sqlite3* handle = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(handle,
                           "DELETE FROM network_units WHERE seq = (SELECT max(seq) FROM "
                           "network_units)",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(handle);
  }
  const auto cut = runProcess(OPEVO_CLI, {"net", "runs", id, "--json", "--db", db});
  ASSERT_EQ(cut.status, 0) << cut.err;
  const nlohmann::json c = nlohmann::json::parse(cut.out);
  EXPECT_EQ(c["trials"], 20);
  ASSERT_EQ(c["curve"].size(), j["curve"].size());
  EXPECT_EQ(c["curve"].back()["task"], j["curve"].back()["task"]);
  EXPECT_NEAR(c["curve"].back()["estimate_ms"].get<double>(),
              j["curve"].back()["estimate_ms"].get<double>(),
              1e-6 * j["curve"].back()["estimate_ms"].get<double>());

  const auto missing = runProcess(OPEVO_CLI, {"net", "runs", "99", "--db", db});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("no network run 99"), std::string::npos) << missing.err;
  std::filesystem::remove_all(dir);
}

// net tune takes tune's measuring options: here no minimum time, so each kernel is timed by the
// three runs every timing needs (the default, 100 ms, runs the small tasks' kernels dozens of
// times), and no cut-off.
TEST(CliNet, TuneTakesTheMeasuringOptions) {
  char pattern[] = "/tmp/opevo-netmeasure-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  const auto r = runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "8", "--unit", "2",
                                        "--runs", "3", "--compile-threads", "1", "--min-time-ms",
                                        "0", "--slow-cutoff", "0", "--json", "--db", db});
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  int timed = 0;
  {
    const Store store(db);
    for (const RunRecord& run : store.runs())
      for (const TrialRow& t : store.trials(run.id)) {
        if (t.status != TrialStatus::Ok) continue;
        EXPECT_EQ(t.timesMs.size(), 3u) << run.operatorName << " trial " << t.seq;
        ++timed;
      }
  }
  EXPECT_GT(timed, 0);
  const auto bad = runProcess(
      OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "4", "--min-time-ms", "-1", "--db", db});
  EXPECT_EQ(bad.status, 2) << bad.err;
  std::filesystem::remove_all(dir);
}

// On the CPU a network's tasks are timed with their weights and activations evicted before each
// run, as the chain finds them, unless --weights warm or --activations warm says otherwise; the
// run, the list and each task's measurer say which.
TEST(CliNet, TasksAreTimedWithColdOperandsUnlessAsked) {
  char pattern[] = "/tmp/opevo-netweights-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  struct Choice {
    const char* weights;
    const char* activations;
  };
  const std::vector<Choice> choices = {{"", ""}, {"warm", ""}, {"", "warm"}};
  for (const Choice& c : choices) {
    std::vector<std::string> args = {"net",    "tune", kAllOps,  "--trials", "8",
                                     "--unit", "2",    "--runs", "2",        "--no-reference",
                                     "--json", "--db", db};
    if (*c.weights) args.insert(args.end(), {"--weights", c.weights});
    if (*c.activations) args.insert(args.end(), {"--activations", c.activations});
    const auto r = runProcess(OPEVO_CLI, args);
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["weights"], *c.weights ? c.weights : "cold");
    EXPECT_EQ(j["activations"], *c.activations ? c.activations : "cold");
    EXPECT_GT(j["end_to_end_ms"].get<double>(), 0);
  }
  const auto list = runProcess(OPEVO_CLI, {"net", "runs", "--json", "--db", db});
  ASSERT_EQ(list.status, 0) << list.err;
  const nlohmann::json runs = nlohmann::json::parse(list.out);
  ASSERT_EQ(runs.size(), 3u);
  for (std::size_t i = 0; i < choices.size(); ++i) {  // in the order they were tuned
    EXPECT_EQ(runs[i]["weights"], *choices[i].weights ? choices[i].weights : "cold") << i;
    EXPECT_EQ(runs[i]["activations"], *choices[i].activations ? choices[i].activations : "cold")
        << i;
  }
  // What each task's measurer did, as its stored run's label says: in the cold networks the
  // convolutions and dense layers have their weights evicted, not the matmuls, whose second
  // operand is an activation the layer before just wrote; every task its activations unless
  // --activations warm.
  {
    const Store store(db);
    int labelled = 0, plain = 0;
    for (const NetworkRecord& n : store.networks())
      for (const std::int64_t id : n.taskRuns) {
        const RunRecord run = *store.run(id);
        const bool readsWeights = run.operatorName.rfind("c", 0) == 0 || run.operatorName == "d1" ||
                                  run.operatorName.rfind("q", 0) == 0 || run.operatorName == "d3";
        const bool weights = readsWeights && n.id != 2, activations = n.id != 3;
        const std::string want = weights && activations ? " (weights and activations cold)"
                                 : weights              ? " (weights cold)"
                                 : activations          ? " (activations cold)"
                                                        : "";
        const std::string& label = run.label;
        const std::size_t close = label.find(" cold)");
        const std::size_t open = close == std::string::npos ? 0 : label.rfind(" (", close);
        const std::string got = close == std::string::npos || open == std::string::npos
                                    ? ""
                                    : label.substr(open, close + 6 - open);
        EXPECT_EQ(got, want) << n.id << " " << run.operatorName << ": " << label;
        (want.empty() ? plain : labelled) += 1;
      }
    EXPECT_GT(labelled, 0);
    EXPECT_GT(plain, 0);
  }
  const auto bad = runProcess(
      OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "4", "--weights", "lukewarm", "--db", db});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--weights"), std::string::npos) << bad.err;
  for (const char* option : {"--weights", "--activations"}) {
    const auto gpu = runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "4", "--backend",
                                            "cuda", option, "cold", "--db", db});
    EXPECT_EQ(gpu.status, 2);
    EXPECT_NE(gpu.err.find(std::string(option) + ": only the cpu backend"), std::string::npos)
        << gpu.err;
  }
  std::filesystem::remove_all(dir);
}

// A budget too small for every task: the network's sum is not given over the tasks that have a
// kernel (it passed for the whole network's), and the text names the tasks without one.
TEST(CliNet, NoNetworkSumWhileATaskHasNoKernel) {
  char pattern[] = "/tmp/opevo-netsum-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  const auto json = runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "4", "--unit", "2",
                                           "--runs", "3", "--json", "--db", db});
  ASSERT_EQ(json.status, 0) << json.err << json.out;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  int withKernel = 0;
  for (const auto& t : j["tasks"]) withKernel += t["best_ms"].is_null() ? 0 : 1;
  ASSERT_LT(withKernel, 8);
  EXPECT_TRUE(j["sum_of_tasks_ms"].is_null()) << j["sum_of_tasks_ms"];
  const auto text = runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "4", "--unit", "2",
                                           "--runs", "3", "--db", db});
  ASSERT_EQ(text.status, 0) << text.err;
  // Said before tuning, as the Networks page says it; and a finished run has no "yet".
  EXPECT_NE(text.err.find("note: 4 trials in units of 2 reach 2 of the 8 tasks: 6 tasks will get "
                          "no trial, and the network's latency needs a kernel for every task; "
                          "--trials 16 or more (tasks x --unit) reaches them all"),
            std::string::npos)
      << text.err;
  EXPECT_NE(text.out.find("sum of weight x best over the tasks: none ("), std::string::npos)
      << text.out;
  // The tasks the budget never reached had no trial; they did not fail.
  EXPECT_NE(text.out.find("6 of 8 tasks have had no trial: "), std::string::npos) << text.out;
  std::filesystem::remove_all(dir);
}

// Runs of one network raced over algorithms and modes were listed as identical rows; the figures
// were printed as std::to_string cut to 8 characters ("10.22076 ms") beside tune's "10.221 ms".
TEST(CliNet, RunsListSaysHowEachRunWasTunedInTuneNumberFormat) {
  char pattern[] = "/tmp/opevo-netlist-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  std::filesystem::copy_file(std::string(OPEVO_SOURCE_DIR) + "/tests/data/opevo-v8.db", db);
  const auto list = runProcess(OPEVO_CLI, {"net", "runs", "--db", db});
  ASSERT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("tuned with"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("dense_pair         opevo-m gradient joint"), std::string::npos)
      << list.out;
  // 0.0017025 and 0.063014 ms: three significant digits below 0.1 ms.
  EXPECT_NE(list.out.find(" 0.0017 ms         0.063 ms"), std::string::npos) << list.out;
  const auto json = runProcess(OPEVO_CLI, {"net", "runs", "--db", db, "--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j[0]["algorithm"], "opevo-m");
  EXPECT_EQ(j[0]["scheduler"], "gradient");
  EXPECT_EQ(j[0]["mode"], "joint");
  EXPECT_EQ(j[0]["reference_form"], "eager");  // stored before the form was: libtorch ran eagerly
  const auto shown = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", db});
  EXPECT_NE(shown.out.find("0.0017 ms end to end"), std::string::npos) << shown.out;
  // A task's weight is a count.
  const auto show = runProcess(OPEVO_CLI, {"net", "show", "alexnet", "--json"});
  ASSERT_EQ(show.status, 0) << show.err;
  const nlohmann::json showJson = nlohmann::json::parse(show.out);
  for (const auto& t : showJson["tasks"])
    EXPECT_TRUE(t["weight"].is_number_integer()) << t["weight"];
  // A run stored before algorithm and scheduler were kept says "?" for them (it read "  loop").
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(handle,
                         "UPDATE networks SET plan_json = json_remove(plan_json, '$.algorithm', "
                         "'$.scheduler') WHERE id = 1",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(handle);
  const auto old = runProcess(OPEVO_CLI, {"net", "runs", "--db", db});
  ASSERT_EQ(old.status, 0) << old.err;
  EXPECT_NE(old.out.find("dense_pair         ? ? joint"), std::string::npos) << old.out;
  std::filesystem::remove_all(dir);
}

// What a user's walk met, said plainly: a directory given as the network, a database that does
// not exist (which commands make one), a negative budget, a backend net tune does not take.
TEST(CliNet, RefusalsSayWhatIsWrong) {
  char pattern[] = "/tmp/opevo-netsay-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  const auto folder = runProcess(OPEVO_CLI, {"net", "show", dir.string()});
  EXPECT_EQ(folder.status, 2);
  EXPECT_NE(folder.err.find(dir.string() + ": is a directory, not a network file"),
            std::string::npos)
      << folder.err;
  const auto missing = runProcess(OPEVO_CLI, {"net", "runs", "--db", db});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("opevo tune, opevo net tune, opevo kas search, opevo import and "
                             "opevo net restore create one"),
            std::string::npos)
      << missing.err;
  const std::string pair = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_dense_pair.json";
  const auto negative = runProcess(OPEVO_CLI, {"net", "tune", pair, "--trials=-5", "--db", db});
  EXPECT_EQ(negative.status, 2);
  EXPECT_NE(negative.err.find("--trials -5: the budget must be a positive number of trials"),
            std::string::npos)
      << negative.err;
  const auto tpu =
      runProcess(OPEVO_CLI, {"net", "tune", pair, "--trials", "4", "--backend", "tpu", "--db", db});
  EXPECT_EQ(tpu.status, 2);
  EXPECT_NE(tpu.err.find("net tune takes cpu, cuda or hip"), std::string::npos) << tpu.err;
  EXPECT_EQ(tpu.err.find("replay:FILE"), std::string::npos) << tpu.err;
  EXPECT_FALSE(std::filesystem::exists(db));
  std::filesystem::remove_all(dir);
}

// A network whose layers all run fixed kernels has nothing to tune: refused before any database
// is made (it was stored as a finished run of 0 trials, "0.000 ms").
TEST(CliNet, ANetworkWithoutTasksIsNotTuned) {
  char pattern[] = "/tmp/opevo-nettasks-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string(), file = (dir / "relu.json").string();
  std::ofstream(file) << R"({"name": "just_relu", "inputs": [{"name": "x", "shape": [4, 8]}],
                            "layers": [{"name": "r", "op": "relu", "input": "x"}]})";
  const auto r = runProcess(OPEVO_CLI, {"net", "tune", file, "--trials", "4", "--db", db});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("network just_relu has no task to tune"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(db));
  std::filesystem::remove_all(dir);
}

// Each task against its library, as the GPU backends always report it (there the libraries are
// cuBLAS and cuDNN, followed by the epilogue kernel of a fused task); on the CPU on request.
TEST(CliNet, TaskReferencesTimeEachTasksLibrary) {
  char pattern[] = "/tmp/opevo-netrefs-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  const auto r =
      runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "8", "--runs", "2",
                             "--no-reference", "--task-references", "--json", "--db", db});
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  double sum = 0;
  for (const auto& t : j["tasks"]) {
    ASSERT_TRUE(t["reference_ms"].is_number()) << t.dump();
    EXPECT_GT(t["reference_ms"].get<double>(), 0);
    const std::string library = t["reference_library"];
    EXPECT_TRUE(library.find("OpenBLAS") != std::string::npos ||
                library.find("oneDNN") != std::string::npos ||
                library.find("loop nest") != std::string::npos)
        << library;
    sum += t["weight"].get<double>() * t["reference_ms"].get<double>();
  }
  EXPECT_NEAR(j["sum_of_references_ms"].get<double>(), sum, 1e-9 * sum);
  // Stored on each task's run (runs 1 to 8), as a single operator's run stores its reference.
  for (std::size_t id = 1; id <= j["tasks"].size(); ++id) {
    const auto show = runProcess(OPEVO_CLI, {"show", std::to_string(id), "--json", "--db", db});
    ASSERT_EQ(show.status, 0) << show.err;
    const nlohmann::json run = nlohmann::json::parse(show.out)["run"];
    ASSERT_TRUE(run.contains("reference")) << "run " << id;
    EXPECT_GT(run["reference"]["speed"].get<double>(), 0) << "run " << id;
  }
  // Not asked for on the CPU: not timed.
  const auto plain = runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "8", "--runs", "2",
                                            "--no-reference", "--json", "--db", db});
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(plain.out).contains("sum_of_references_ms"));
  std::filesystem::remove_all(dir);
}

// `opevo net export 1` of the database into `out`, built with its build.sh and run: it checks its
// own output and prints PASS.
void expectExportedProgramPasses(const std::string& db, const std::string& out) {
  const auto exported = runProcess(OPEVO_CLI, {"net", "export", "1", "--db", db, "--out", out});
  ASSERT_EQ(exported.status, 0) << exported.err;
  const auto build = runProcess("/bin/sh", {out + "/build.sh"});
  ASSERT_EQ(build.status, 0) << build.err << build.out;
  std::filesystem::current_path(out);
  const auto run = runProcess(out + "/network", {});
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("PASS"), std::string::npos) << run.out;
  std::filesystem::current_path("/");
}

// net export writes the network net tune kept: here the untuned one, its result stored as a run
// whose untuned configurations ran faster end to end stores it (which one wins is the machine's).
TEST(CliNet, ExportWritesTheNetworkTuneKept) {
  char pattern[] = "/tmp/opevo-netkept-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  const auto untuned = runProcess(OPEVO_CLI, {"net", "run", kAllOps, "--runs", "2", "--json"});
  ASSERT_EQ(untuned.status, 0) << untuned.err;
  std::vector<std::string> untunedConfigs;
  const nlohmann::json untunedJson = nlohmann::json::parse(untuned.out);
  for (const auto& t : untunedJson["tasks"]) untunedConfigs.push_back(t["config"]);
  const auto tuned =
      runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "22", "--unit", "2", "--runs", "2",
                             "--no-untuned-run", "--json", "--db", db});
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  const nlohmann::json tunedJson = nlohmann::json::parse(tuned.out);
  const long long id = tunedJson["id"];
  ASSERT_EQ(id, 1);
  const std::string tasks = std::to_string(untunedConfigs.size());
  // A mixed network as the session formats it: the first half of the tasks tuned, the rest untuned.
  std::vector<std::string> mixedConfigs = untunedConfigs;
  std::size_t mixedTuned = 0;
  for (std::size_t i = 0; i < mixedConfigs.size() / 2; ++i) {
    mixedConfigs[i] = tunedJson["tasks"][i]["config"];
    if (mixedConfigs[i] != untunedConfigs[i]) ++mixedTuned;
  }
  const auto asTuned =
      runProcess(OPEVO_CLI, {"net", "export", "1", "--db", db, "--out", (dir / "tuned").string()});
  ASSERT_EQ(asTuned.status, 0) << asTuned.err;
  EXPECT_EQ(asTuned.out.find("net tune kept"), std::string::npos) << asTuned.out;
  {
    Store store(db);
    nlohmann::json result = nlohmann::json::parse(store.network(id)->resultJson);
    result["chosen"] = "untuned";
    result["chosen_configs"] = untunedConfigs;
    store.setNetworkStatus(id, RunStatus::Finished, result.dump());
  }
  const auto shown = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", db});
  EXPECT_NE(shown.out.find("kept: the untuned configurations; opevo net export 1 writes them"),
            std::string::npos)
      << shown.out;
  const std::string out = (dir / "kept").string();
  expectExportedProgramPasses(db, out);
  std::ifstream readme(out + "/README.txt");
  const std::string text((std::istreambuf_iterator<char>(readme)), {});
  EXPECT_NE(text.find("0 of " + tasks + " tasks tuned, the untuned network it kept"),
            std::string::npos)
      << text;
  {
    Store store(db);
    nlohmann::json result = nlohmann::json::parse(store.network(id)->resultJson);
    result["chosen"] = "mixed";
    result["chosen_configs"] = mixedConfigs;
    store.setNetworkStatus(id, RunStatus::Finished, result.dump());
  }
  const std::string mixedOut = (dir / "mixed").string();
  expectExportedProgramPasses(db, mixedOut);
  std::ifstream mixedReadme(mixedOut + "/README.txt");
  const std::string mixedText((std::istreambuf_iterator<char>(mixedReadme)), {});
  EXPECT_NE(mixedText.find(std::to_string(mixedTuned) + " of " + tasks +
                           " tasks tuned, the mixed network it kept"),
            std::string::npos)
      << mixedText;

  // The failures net tune stores when a comparison could not run are said by net runs, and the
  // tuned network stays the one exported.
  {
    Store store(db);
    nlohmann::json result = nlohmann::json::parse(store.network(id)->resultJson);
    result.erase("chosen");
    result.erase("chosen_configs");
    result["untuned_error"] = "cannot compile the untuned kernel of c2";
    store.setNetworkStatus(id, RunStatus::Finished, result.dump());
  }
  const auto failedUntuned = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", db});
  EXPECT_EQ(failedUntuned.status, 0) << failedUntuned.err;
  EXPECT_NE(failedUntuned.out.find("untuned configurations: not run end to end (cannot compile "
                                   "the untuned kernel of c2)"),
            std::string::npos)
      << failedUntuned.out;
  // Nothing was compared, yet the run still says which network export writes.
  EXPECT_NE(failedUntuned.out.find("kept: the tuned configurations (the untuned network did not "
                                   "run end to end, so no other was checked); opevo net export 1 "
                                   "writes them"),
            std::string::npos)
      << failedUntuned.out;
  {
    Store store(db);
    nlohmann::json result = nlohmann::json::parse(store.network(id)->resultJson);
    result.erase("untuned_error");
    nlohmann::json untunedRun = result;  // the tuned run's fields, as an untuned one stores them
    for (const char* key : {"untuned", "tasks", "curve"}) untunedRun.erase(key);
    result["untuned"] = untunedRun;
    result["mixed_untuned_tasks"] = {tunedJson["tasks"][0]["name"]};
    result["mixed_error"] = "out of memory";
    result["chosen"] = "tuned";
    store.setNetworkStatus(id, RunStatus::Finished, result.dump());
  }
  const auto failedMixed = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", db});
  EXPECT_EQ(failedMixed.status, 0) << failedMixed.err;
  EXPECT_NE(failedMixed.out.find("tuned / untuned end to end: 1.00"), std::string::npos)
      << failedMixed.out;
  EXPECT_NE(
      failedMixed.out.find("each task's configuration that ran faster in the chain (1 of " + tasks +
                           " tasks switched to untuned): not run end to end (out of "
                           "memory)"),
      std::string::npos)
      << failedMixed.out;
  EXPECT_NE(failedMixed.out.find("kept: the tuned configurations"), std::string::npos)
      << failedMixed.out;
  std::filesystem::remove_all(dir);
}

// Winograd's template on the CPU: the stride-1 3x3 convolutions (a, b: 36 tiles at batch 4) run
// it on the plain layouts beside layout tasks (c; d, a dense layer, in the joint modes) and loop
// tasks (c and d in loop mode), with random configurations
// in every mode, and tuned, exported and run as a program; every output checked against libtorch.
TEST(CliNet, WinogradTasksRunBesideLayoutTasksAndExport) {
  const std::string chain = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_conv_chain.json";
  for (const char* mode : {"loop", "joint-np", "joint"}) {
    SCOPED_TRACE(mode);
    const nlohmann::json j =
        runNetwork({chain, "--param", "batch=4", "--template", "winograd", "--mode", mode,
                    "--configs", "random", "--seed", "4", "--runs", "2", "--warmup", "1"});
    if (j.empty()) return;
    EXPECT_EQ(j["template"], "winograd");
    for (const auto& t : j["tasks"]) {
      const std::string config = t["config"];
      const std::string name = t["name"];
      EXPECT_EQ(config.find("tile_e=") != std::string::npos, name == "a" || name == "b") << name;
      EXPECT_EQ(config.find("layout.out_c=") != std::string::npos,
                name == "c" && std::string(mode) != "loop")
          << name;
    }
    if (j["reference"]["ms"].is_null()) GTEST_SKIP() << j["reference"]["missing"];
    EXPECT_TRUE(j["verified"].get<bool>()) << j.dump(2);
  }

  char pattern[] = "/tmp/opevo-netwinograd-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string(), out = (dir / "program").string();
  const auto r =
      runProcess(OPEVO_CLI, {"net", "tune", chain, "--param", "batch=4", "--template", "winograd",
                             "--trials", "16", "--unit", "2", "--runs", "3", "--json", "--db", db});
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mode"], "joint");  // the CPU's default, Winograd's tasks on plain layouts
  if (!j["reference"]["ms"].is_null()) {
    EXPECT_TRUE(j["verified"].get<bool>()) << j.dump(2);
  }
  expectExportedProgramPasses(db, out);
  std::filesystem::remove_all(dir);
}

// The matrix-vector template on the CPU: the dense layer d (one row of 32 at batch 1, four at
// batch 4) runs it on the plain layouts beside loop and layout tasks, and beside Winograd's
// tasks; tuned, listed, exported and run as a program; every output checked against libtorch.
TEST(CliNet, MatVecTasksRunBesideTheOthersAndExport) {
  const std::string chain = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_conv_chain.json";
  for (const auto& [batch, kernels, mode] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"1", "matvec", "loop"}, {"4", "winograd+matvec", "joint"}}) {
    SCOPED_TRACE(kernels);
    const nlohmann::json j =
        runNetwork({chain, "--param", "batch=" + batch, "--template", kernels, "--mode", mode,
                    "--configs", "random", "--seed", "5", "--runs", "2", "--warmup", "1"});
    if (j.empty()) return;
    EXPECT_EQ(j["template"], kernels);
    for (const auto& t : j["tasks"]) {
      const std::string config = t["config"], name = t["name"];
      EXPECT_EQ(config.find("unroll=") != std::string::npos, name == "d") << name;
      EXPECT_EQ(config.find("tile_e=") != std::string::npos, kernels != "matvec" && name < "c")
          << name;
    }
    if (j["reference"]["ms"].is_null()) GTEST_SKIP() << j["reference"]["missing"];
    EXPECT_TRUE(j["verified"].get<bool>()) << j.dump(2);
  }
  const auto bad = runProcess(OPEVO_CLI, {"net", "run", chain, "--template", "matvec+gemm"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("unknown network template 'matvec+gemm'"), std::string::npos) << bad.err;

  char pattern[] = "/tmp/opevo-netmatvec-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string(), out = (dir / "program").string();
  const auto r = runProcess(OPEVO_CLI, {"net", "tune", chain, "--template", "matvec", "--trials",
                                        "12", "--unit", "2", "--runs", "3", "--json", "--db", db});
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const auto runs = runProcess(OPEVO_CLI, {"net", "runs", "--json", "--db", db});
  ASSERT_EQ(runs.status, 0) << runs.err;
  EXPECT_EQ(nlohmann::json::parse(runs.out).at(0)["template"], "matvec") << runs.out;
  expectExportedProgramPasses(db, out);
  std::filesystem::remove_all(dir);
}

// A new network run refused for its network, its backend or its template leaves no database
// behind where there was none.
TEST(CliNet, ARefusedTuneLeavesNoDatabase) {
  char pattern[] = "/tmp/opevo-netrefused-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"/nonexistent/net.json"},
        std::vector<std::string>{"alexnet", "--backend", "tpu"},
        std::vector<std::string>{"alexnet", "--template", "gemv"},
        // An algorithm that cannot take the tasks' spaces (joint mode's permutations) tuned
        // nothing and reported success; a unit of no trials; a replay dataset.
        std::vector<std::string>{"alexnet", "--algo", "na2c"},
        std::vector<std::string>{"alexnet", "--unit", "0"},
        std::vector<std::string>{"alexnet", "--backend", "replay:x.json"},
        std::vector<std::string>{"alexnet", "--param", "batch=2", "--param", "batch=4"}}) {
    std::vector<std::string> all = {"net", "tune"};
    all.insert(all.end(), args.begin(), args.end());
    for (const char* more : {"--trials", "4", "--db"}) all.push_back(more);
    all.push_back(db);
    const auto r = runProcess(OPEVO_CLI, all);
    EXPECT_EQ(r.status, 2) << args.back() << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(db)) << args.back() << " left " << db;
  }
  const auto twice =
      runProcess(OPEVO_CLI, {"net", "compare", "alexnet", "--algos", "opevo-m,opevo-m", "--trials",
                             "4", "--out", (dir / "out").string()});
  EXPECT_EQ(twice.status, 2) << twice.err;
  EXPECT_NE(twice.err.find("--algos names opevo-m twice"), std::string::npos) << twice.err;
  // Repeat r uses seed + r: a seed whose repeats would wrap to 0, 1 is refused as compare does.
  const auto wraps =
      runProcess(OPEVO_CLI, {"net", "compare", "alexnet", "--trials", "4", "--repeats", "3",
                             "--seed", "18446744073709551615", "--out", (dir / "out").string()});
  EXPECT_EQ(wraps.status, 2) << wraps.err;
  EXPECT_NE(wraps.err.find("runs past the largest seed"), std::string::npos) << wraps.err;
  std::filesystem::remove_all(dir);
}

// A joint-mode run stored before dense tasks had layouts holds their loop configurations: made
// here as such a run is, by tuning in loop mode and rewriting the stored plan's mode, with budget
// left. It resumes in the spaces its tasks were measured in, runs end to end and exports.
TEST(CliNet, AJointRunFromBeforeMatMulLayoutsResumesAndExports) {
  const std::string net = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_dense_pair.json";
  char pattern[] = "/tmp/opevo-netformer-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string(), out = (dir / "program").string();
  const auto first =
      runProcess(OPEVO_CLI, {"net", "tune", net, "--mode", "loop", "--trials", "8", "--unit", "2",
                             "--runs", "2", "--no-reference", "--json", "--db", db});
  ASSERT_EQ(first.status, 0) << first.err << first.out;
  {
    sqlite3* handle = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(handle,
                           "UPDATE networks SET plan_json = json_set(plan_json, '$.mode', 'joint', "
                           "'$.trials', 16), status = 'interrupted' WHERE id = 1",
                           nullptr, nullptr, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(handle);
    sqlite3_close(handle);
  }
  const auto resumed =
      runProcess(OPEVO_CLI, {"net", "tune", "--resume", "1", "--runs", "2", "--json", "--db", db});
  ASSERT_EQ(resumed.status, 0) << resumed.err << resumed.out;
  const nlohmann::json j = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(j["mode"], "joint");
  EXPECT_EQ(j["trials"], 16);
  for (const auto& t : j["tasks"]) {
    const std::string config = t["config"];
    EXPECT_NE(config.find("tile_k="), std::string::npos) << config;
    EXPECT_EQ(config.find("layout."), std::string::npos) << config;  // its loops, as measured
  }
  if (!j["reference"]["ms"].is_null()) {
    EXPECT_TRUE(j["verified"].get<bool>()) << j.dump(2);
  }
  // A task's run goes on with its network only: resumed alone to its own budget, it left the
  // network run unable to replay its scheduler's units.
  const auto alone = runProcess(OPEVO_CLI, {"tune", "--resume", "1", "--db", db});
  EXPECT_EQ(alone.status, 2) << alone.err;
  EXPECT_NE(alone.err.find("run 1 is a task of network run 1"), std::string::npos) << alone.err;
  EXPECT_NE(alone.err.find("opevo net tune --resume 1"), std::string::npos) << alone.err;
  expectExportedProgramPasses(db, out);

  // The network net tune keeps can mix such a task's loop configuration with another's untuned
  // one in the joint space: each is stored and read back in its own space (export read them all
  // in the joint one, and refused the loops).
  const auto untuned =
      runProcess(OPEVO_CLI, {"net", "run", net, "--mode", "joint", "--runs", "2", "--json"});
  ASSERT_EQ(untuned.status, 0) << untuned.err;
  const nlohmann::json u = nlohmann::json::parse(untuned.out);
  ASSERT_EQ(u["tasks"].size(), 2u);
  ASSERT_EQ(j["tasks"].size(), 2u);
  const std::string layouts = u["tasks"][1]["config"];
  ASSERT_NE(layouts.find("layout."), std::string::npos) << layouts;
  {
    Store store(db);
    nlohmann::json result = nlohmann::json::parse(store.network(1)->resultJson);
    result["chosen"] = "mixed";
    result["chosen_configs"] = {j["tasks"][0]["config"], layouts};
    store.setNetworkStatus(1, RunStatus::Finished, result.dump());
  }
  const std::string mixedOut = (dir / "mixed").string();
  expectExportedProgramPasses(db, mixedOut);
  std::ifstream readme(mixedOut + "/README.txt");
  const std::string text((std::istreambuf_iterator<char>(readme)), {});
  EXPECT_NE(text.find("the mixed network it kept"), std::string::npos) << text;
  std::filesystem::remove_all(dir);
}

TEST(CliNet, JointModeTunesLayoutsConvertsActivationsAndExports) {
  // The ungrouped convolution and the dense and (batch) matmul tasks tune layouts and loops, the
  // grouped convolution its loops; the conversions run between them (a matmul's B, an
  // activation, converted in every pass as its A) and the output still matches libtorch's, in the
  // tuned run and in the exported program.
  char pattern[] = "/tmp/opevo-netjoint-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string(), out = (dir / "program").string();
  const auto r = runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--mode", "joint", "--trials", "20",
                                        "--unit", "2", "--runs", "3", "--json", "--db", db});
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mode"], "joint");
  EXPECT_EQ(j["trials"], 20);
  int layoutTasks = 0, matmulLayoutTasks = 0;
  for (const auto& t : j["tasks"]) {
    const std::string config = t["config"];
    if (config.find("layout.out_c=") != std::string::npos) ++layoutTasks;
    if (config.find("layout.b_m=") != std::string::npos) ++matmulLayoutTasks;
  }
  EXPECT_EQ(layoutTasks, 1) << j["tasks"].dump(2);        // c2; c1 is grouped
  EXPECT_EQ(matmulLayoutTasks, 6) << j["tasks"].dump(2);  // d1, q, mm, q2, m2, d3
  // mm's A and B (both activations) converted in, its output converted out. A and B are one
  // tensor (tp @ tp^T): where their layouts put its elements alike, one conversion serves both.
  int mmConversions = 0;
  for (const auto& s : j["steps"])
    if (s["kind"] == "convert" && s["name"] == "mm") ++mmConversions;
  EXPECT_GE(mmConversions, 2) << j["steps"].dump();
  EXPECT_LE(mmConversions, 3) << j["steps"].dump();
  EXPECT_GT(j["conversions_ms"].get<double>(), 0);
  if (!j["reference"]["ms"].is_null()) {
    EXPECT_TRUE(j["verified"].get<bool>()) << j.dump(2);
  }

  expectExportedProgramPasses(db, out);

  const auto bad = runProcess(
      OPEVO_CLI, {"net", "tune", kAllOps, "--mode", "layouts", "--trials", "4", "--db", db});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("unknown tuning mode 'layouts'"), std::string::npos) << bad.err;
  std::filesystem::remove_all(dir);
}

TEST(CliNet, CompareRacesSchedulersAndAlgorithms) {
  char pattern[] = "/tmp/opevo-netcompare-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const auto r = runProcess(OPEVO_CLI, {"net", "compare", kAllOps, "--trials", "10", "--algos",
                                        "opevo-m,random", "--out", dir.string(), "--runs", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("| random | round-robin | joint | 1 | 10 |"), std::string::npos) << r.out;
  std::ifstream summary(dir / "summary.json");
  const nlohmann::json j = nlohmann::json::parse(summary);
  ASSERT_EQ(j["results"].size(), 4u);
  for (const auto& result : j["results"]) EXPECT_EQ(result["trials"], 10);
  std::ifstream curve(dir / "curve.csv");
  std::string line;
  int rows = -1;  // the header
  while (std::getline(curve, line)) ++rows;
  EXPECT_EQ(rows, 4 * 3);  // units of 4, 4, 2 for each of the four contenders
  // The mode's untuned network ran once after the contenders, a row to read them against, each
  // contender's tuned / untuned beside it.
  EXPECT_NE(r.out.find("| untuned | - | joint | - | 0 | - | "), std::string::npos) << r.out;
  ASSERT_EQ(j["untuned"].size(), 1u) << j.dump(2);
  const nlohmann::json& u = j["untuned"][0];
  EXPECT_EQ(u["mode"], "joint");
  EXPECT_GT(u["end_to_end_ms"].get<double>(), 0);
  if (!u["reference"]["ms"].is_null()) {
    EXPECT_TRUE(u["verified"].get<bool>()) << u.dump(2);
  }
  for (const auto& result : j["results"])
    EXPECT_DOUBLE_EQ(result["tuned_over_untuned"].get<double>(),
                     result["end_to_end_ms"].get<double>() / u["end_to_end_ms"].get<double>());
  // Asked not to: none, and no ratio.
  const auto skipped =
      runProcess(OPEVO_CLI, {"net", "compare", kAllOps, "--trials", "4", "--algos", "random",
                             "--schedulers", "round-robin", "--no-untuned-run", "--out",
                             dir.string(), "--force", "--runs", "2", "--no-reference"});
  ASSERT_EQ(skipped.status, 0) << skipped.err;
  EXPECT_EQ(skipped.out.find("| untuned |"), std::string::npos) << skipped.out;
  const nlohmann::json k = nlohmann::json::parse(std::ifstream(dir / "summary.json"));
  EXPECT_TRUE(k["untuned"].empty()) << k.dump(2);
  EXPECT_FALSE(k["results"][0].contains("tuned_over_untuned"));
  std::filesystem::remove_all(dir);
}

// A second comparison into the same folder is refused before it tunes (it left the earlier
// summary.json beside its own curve.csv when stopped), and replaces the results with --force.
TEST(CliNet, CompareKeepsAnEarlierComparisonsResultsUnlessForced) {
  char pattern[] = "/tmp/opevo-netcompare-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::vector<std::string> args{
      "net",          "compare",     kAllOps, "--trials",   "4",      "--algos", "random",
      "--schedulers", "round-robin", "--out", dir.string(), "--runs", "1",       "--no-reference"};
  ASSERT_EQ(runProcess(OPEVO_CLI, args).status, 0);
  const auto written = std::filesystem::last_write_time(dir / "summary.json");
  const auto again = runProcess(OPEVO_CLI, args);
  EXPECT_EQ(again.status, 2) << again.err;
  EXPECT_NE(again.err.find("already holds an earlier comparison's results (curve.csv, "
                           "summary.json): nothing was run"),
            std::string::npos)
      << again.err;
  EXPECT_EQ(std::filesystem::last_write_time(dir / "summary.json"), written);
  std::vector<std::string> forced = args;
  forced.push_back("--force");
  const auto replaced = runProcess(OPEVO_CLI, forced);
  EXPECT_EQ(replaced.status, 0) << replaced.err;
  EXPECT_NE(replaced.err.find("wrote " + (dir / "curve.csv").string() + " and " +
                              (dir / "summary.json").string()),
            std::string::npos)
      << replaced.err;
  EXPECT_NE(std::filesystem::last_write_time(dir / "summary.json"), written);
  EXPECT_FALSE(std::filesystem::exists(dir / "summary.json.partial"));
  std::filesystem::remove_all(dir);
}

TEST(CliNet, AStoredNetworkExportsAsAProgramThatChecksItself) {
  char pattern[] = "/tmp/opevo-netexport-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string(), out = (dir / "program").string();
  const auto tune = runProcess(OPEVO_CLI, {"net", "tune", kAllOps, "--trials", "16", "--db", db,
                                           "--no-reference", "--runs", "2", "--json"});
  ASSERT_EQ(tune.status, 0) << tune.err;
  const auto runs = runProcess(OPEVO_CLI, {"net", "runs", "--db", db, "--json"});
  ASSERT_EQ(runs.status, 0) << runs.err;
  const nlohmann::json listed = nlohmann::json::parse(runs.out);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["status"], "finished");
  EXPECT_EQ(listed[0]["trials"], 16);
  expectExportedProgramPasses(db, out);
  const auto missing = runProcess(OPEVO_CLI, {"net", "export", "7", "--db", db, "--out", out});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("no network run 7"), std::string::npos) << missing.err;
  std::filesystem::remove_all(dir);
}

// tests/data/opevo-v8.db holds network run 1 (dense_pair: task runs 1 and 2, 8 trials) and run 3
// of its own: the network run goes with its task runs, and only as a whole.
TEST(CliNet, ANetworkRunIsDeletedWithItsTaskRunsAndOnlyAsAWhole) {
  char pattern[] = "/tmp/opevo-netdelete-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  std::filesystem::copy_file(std::string(OPEVO_SOURCE_DIR) + "/tests/data/opevo-v8.db", db);
  const auto task = runProcess(OPEVO_CLI, {"runs", "delete", "1", "--db", db});
  EXPECT_EQ(task.status, 2);
  EXPECT_NE(task.err.find("run 1 is a task of network run 1 (dense_pair)"), std::string::npos)
      << task.err;
  EXPECT_NE(task.err.find("opevo net delete 1"), std::string::npos) << task.err;
  const auto unknown = runProcess(OPEVO_CLI, {"net", "delete", "1", "7", "--db", db});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("no network run 7 in " + db +
                             " (opevo net runs lists them); "
                             "nothing was deleted"),
            std::string::npos)
      << unknown.err;
  const auto del = runProcess(OPEVO_CLI, {"net", "delete", "1", "--db", db});
  ASSERT_EQ(del.status, 0) << del.err;
  EXPECT_EQ(del.out, "deleted network run 1 (dense_pair, 2 tasks, 8 trials)\n");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"net", "runs", "1"},
        {"net", "tune", "--resume", "1"},
        {"net", "archive", "1", "--out", (dir / "a.json.gz").string()}}) {
    std::vector<std::string> withDb = args;
    withDb.insert(withDb.end(), {"--db", db});
    const auto gone = runProcess(OPEVO_CLI, withDb);
    EXPECT_EQ(gone.status, 2) << args[1];
    EXPECT_NE(gone.err.find("network run 1 (dense_pair, 2 tasks, 8 trials) was deleted from " + db +
                            " on "),
              std::string::npos)
        << gone.err;
  }
  const auto runs = runProcess(OPEVO_CLI, {"runs", "--json", "--db", db});
  ASSERT_EQ(runs.status, 0) << runs.err;
  const nlohmann::json left = nlohmann::json::parse(runs.out);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0]["id"], 3);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace opevo::test
