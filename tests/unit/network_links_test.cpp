// Layout links between network tasks (gpu/net/network_program.cpp): every sentence the program
// says about a layout one task took from another is true of the program, which skips the
// conversion, and the program computes what the one without links computes.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/rng.h"
#include "cpu/operator_buffers.h"
#include "net/cpu_network.h"
#include "net/network_json.h"
#include "net/network_program.h"
#include "net/network_tuning.h"
#include "net/untuned_configs.h"
#include "ops/presets.h"

namespace opevo::net {
namespace {

std::vector<Config> randomConfigs(const TaskGraph& g, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<Config> configs;
  for (const Task& t : g.tasks)
    configs.push_back(*taskDefinition(t, layout::TuningMode::Joint, {}).space.randomValid(rng));
  return configs;
}

// The tensor a step's operand names; "" for none.
std::string tensorName(const NetworkProgram& p, const ProgramOperand& o) {
  return o.kind == ProgramOperand::Kind::Tensor ? p.tensors[std::size_t(o.index)].name : "";
}

bool laidOut(const std::string& tensor) {
  return tensor.size() > 9 && tensor.substr(tensor.size() - 9) == ".laid_out";
}

// A 1x1 reader whose producer's plain output is needed elsewhere (a softmax), a residual link
// that could undo a reader's, a task shared by a reader of the input and a reader of a later
// 1x1 convolution: over random configurations, each "reads its input" sentence means the
// reading task step takes its producer's laid-out buffer, with no conversion between, and each
// residual sentence the same of the residual.
TEST(NetworkLinks, EverySentenceIsAConversionSaved) {
  for (const char* name : {"net_link_needed", "net_link_undone", "net_link_shared"}) {
    SCOPED_TRACE(name);
    const Network n = loadNetwork(std::string(OPEVO_SOURCE_DIR) + "/tests/data/" + name + ".json");
    const TaskGraph g = extractTasks(n);
    int inputs = 0;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
      const NetworkProgram p =
          buildNetworkProgram(n, g, randomConfigs(g, seed), layout::TuningMode::Joint, seed);
      for (const std::string& sentence : p.adopted) {
        SCOPED_TRACE("seed " + std::to_string(seed) + ": " + sentence);
        const std::size_t reads = sentence.find(" reads its input (");
        const bool input = reads != std::string::npos;
        const std::string layer = sentence.substr(0, reads);
        bool found = false;
        for (const ProgramStep& s : p.steps)
          if (s.kind == StepKind::Task && (!input || s.name == layer)) {
            const bool linked = laidOut(tensorName(p, s.in[input ? 0 : 3]));
            found = found || linked;
            EXPECT_TRUE(!input || linked) << "the step reads " << tensorName(p, s.in[0]);
          }
        EXPECT_TRUE(found);
        inputs += input;
      }
    }
    EXPECT_GT(inputs, 0) << "no seed linked a reader to its producer";
  }
}

// Links change what runs, not what it computes: the same output as without propagation.
TEST(NetworkLinks, LinkedProgramsComputeWhatUnlinkedOnesDo) {
  for (const char* name : {"net_link_needed", "net_link_undone", "net_link_shared"}) {
    SCOPED_TRACE(name);
    const Network n = loadNetwork(std::string(OPEVO_SOURCE_DIR) + "/tests/data/" + name + ".json");
    const TaskGraph g = extractTasks(n);
    for (std::uint64_t seed : {4, 17}) {
      const std::vector<Config> configs = randomConfigs(g, seed);
      CpuNetworkRun linked(n, g, configs, layout::TuningMode::Joint, seed);
      CpuNetworkRun unlinked(n, g, configs, layout::TuningMode::JointNoPropagation, seed);
      EXPECT_LT(maxRelativeError(linked.forward(), unlinked.forward()), 1e-5) << seed;
    }
  }
}

// A conversion the program drops leaves its output tensor in place (the operands keep their
// indices) but without memory; a tensor a step writes or reads always has its own.
TEST(NetworkLinks, ADroppedConversionsOutputTakesNoMemory) {
  const Network n = loadNetwork("resnet50");
  const TaskGraph g = extractTasks(n);
  const std::vector<Config> untuned = untunedConfigs(g, layout::TuningMode::Joint);
  auto bytes = [](const NetworkProgram& p) {
    std::int64_t total = 0;
    for (const ProgramTensor& t : p.tensors) total += t.aliasOf < 0 ? t.elements * 4 : 0;
    return total;
  };
  const NetworkProgram linked = buildNetworkProgram(n, g, untuned, layout::TuningMode::Joint, 1);
  const NetworkProgram every =
      buildNetworkProgram(n, g, untuned, layout::TuningMode::JointNoPropagation, 1);
  std::vector<bool> touched(linked.tensors.size(), false);
  for (const ProgramStep& s : linked.steps) {
    touched[std::size_t(s.out)] = true;
    for (const ProgramOperand& o : s.in)
      if (o.kind == ProgramOperand::Kind::Tensor) touched[std::size_t(o.index)] = true;
  }
  int released = 0;
  for (std::size_t i = 0; i < linked.tensors.size(); ++i) {
    const ProgramTensor& t = linked.tensors[i];
    if (t.aliasOf >= 0) continue;
    EXPECT_EQ(t.elements == 0, !touched[i] && t.input.empty()) << t.name;
    released += t.elements == 0;
  }
  EXPECT_GT(released, 0) << "no conversion was dropped";
  EXPECT_EQ(linked.tensors.size(), every.tensors.size());
  EXPECT_LT(bytes(linked), bytes(every));
  for (const NetworkProgram* p : {&linked, &every})
    std::printf("%s: %zu steps, %.1f MB of tensors\n", p == &linked ? "joint" : "joint-np",
                p->steps.size(), double(bytes(*p)) / 1e6);
}

// BERT's query, key and value projections are one task reading one input: its conversion into
// the task's input layout runs once, and all three read it. The program still computes what the
// plain layouts compute.
TEST(NetworkLinks, OneTensorIsConvertedIntoOneLayoutOnce) {
  const Network n = loadNetwork("bert_base_layer");
  const TaskGraph g = extractTasks(n);
  const std::vector<Config> untuned = untunedConfigs(g, layout::TuningMode::Joint);
  const NetworkProgram p = buildNetworkProgram(n, g, untuned, layout::TuningMode::Joint, 1);
  std::vector<std::string> read;
  for (const ProgramStep& s : p.steps)
    if (s.kind == StepKind::Task && (s.name == "query" || s.name == "key" || s.name == "value"))
      read.push_back(tensorName(p, s.in[0]));
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(read[0], "query.pack_a");
  EXPECT_EQ(read[1], read[0]);
  EXPECT_EQ(read[2], read[0]);
  int packs = 0;
  for (const ProgramStep& s : p.steps)
    packs += s.kind == StepKind::Convert &&
             tensorName(p, ProgramOperand{ProgramOperand::Kind::Tensor, s.out}) == read[0];
  EXPECT_EQ(packs, 1);

  CpuNetworkRun joint(n, g, untuned, layout::TuningMode::Joint, 1);
  const std::vector<Config> loops = untunedConfigs(g, layout::TuningMode::Loop);
  CpuNetworkRun plain(n, g, loops, layout::TuningMode::Loop, 1);
  EXPECT_LT(maxRelativeError(joint.forward(), plain.forward()), 1e-5);
}

}  // namespace
}  // namespace opevo::net
