#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "common/error.h"
#include "kas/budget_solver.h"
#include "kas/conv_targets.h"
#include "kas/kas_json.h"
#include "kas/sampler.h"
#include "net/network_json.h"

namespace opevo::kas {
namespace {

Size size(const char* text) {
  auto s = Size::parse(text);
  EXPECT_TRUE(s.has_value()) << text;
  return s.value_or(Size{});
}

Dim chan(const char* text) {
  return Dim{size(text), DimRole::Channel};
}
const Dim kH{Size::of(Symbol::H), DimRole::Height};
const Dim kW{Size::of(Symbol::W), DimRole::Width};

TEST(KasSize, TextRoundTripsAndIntegralityFollowsTheorem1) {
  for (const char* t : {"1", "C", "C*KH/G", "x1*KW", "C*C/G/G", "x2/C"})
    EXPECT_EQ(size(t).text(), t);
  EXPECT_FALSE(Size::parse("C*Q").has_value());
  EXPECT_FALSE(Size::parse("C/1").has_value());
  EXPECT_TRUE(size("C/G").knownIntegral());     // G is a factor of every C
  EXPECT_FALSE(size("C/G/G").knownIntegral());  // G^2 need not divide C
  EXPECT_FALSE(size("KH/G").knownIntegral());
  EXPECT_TRUE(size("x1/KH").knownIntegral());   // the solver makes x1 a multiple of KH
  EXPECT_FALSE(size("C/x1").knownIntegral());   // no variable in a denominator
  EXPECT_FALSE(size("x1*x2").knownIntegral());  // nor two variables
  Bindings b{};
  b.fill(1);
  b[static_cast<std::size_t>(Symbol::C)] = 64;
  b[static_cast<std::size_t>(Symbol::G)] = 4;
  b[static_cast<std::size_t>(Symbol::KH)] = 3;
  const auto f = size("C*KH/G").evaluate(b);
  EXPECT_EQ(f.num, 48);
  EXPECT_EQ(f.den, 1);
  const auto p = size("x1/C").evaluateWithout(Symbol::X1, b);
  EXPECT_EQ(p.num, 1);
  EXPECT_EQ(p.den, 64);
}

TEST(KasShapeMatching, PaperExampleOffersTheFactorsOfTheOtherSide) {
  // Canvas sec. 6.2: [x1, KH, H, W] onto [G, x2/G, KH, KW, H, W]: the common suffix {H, W} is
  // stripped and x1 may be any factor of x2 * KW.
  const Shape lhs{chan("x1"), chan("KH"), kH, kW};
  const Shape rhs{chan("G"), chan("x2/G"), chan("KH"), chan("KW"), kH, kW};
  const Unmatched u = unmatched(lhs, rhs);
  EXPECT_EQ(u.prefix, 0u);
  EXPECT_EQ(u.suffix, 2u);
  EXPECT_FALSE(blendLegal(lhs, rhs));
  std::set<std::string> values;
  for (const auto& o : blendOptions(lhs, rhs)) {
    ASSERT_TRUE(o.has_value());
    EXPECT_EQ(o->variable, Symbol::X1);
    values.insert(o->value.text());
    Shape substituted = lhs;
    substituted[0].size = o->value;
    EXPECT_TRUE(blendLegal(substituted, rhs)) << o->value.text();
  }
  EXPECT_EQ(values, (std::set<std::string>{"1", "KW", "x2", "x2*KW"}));
}

TEST(KasShapeMatching, BlendsNeedLhsImageDimsMatchedAndAWholeRatio) {
  const Shape chw{chan("C"), kH, kW};
  EXPECT_TRUE(blendLegal(chw, chw));
  EXPECT_TRUE(blendLegal(Shape{kH, kW}, chw));               // a channel fold broadcast back
  EXPECT_TRUE(blendLegal(Shape{chan("C"), kW}, chw));        // an image row repeated over H
  EXPECT_FALSE(blendLegal(chw, Shape{chan("C"), kW}));       // LHS's H has nowhere to go
  EXPECT_FALSE(blendLegal(Shape{chan("KH"), kH, kW}, chw));  // KH need not divide C
  EXPECT_TRUE(blendLegal(Shape{chan("G"), kH, kW}, chw));
  EXPECT_TRUE(blendOptions(Shape{chan("KH"), kH, kW}, chw).empty());
}

TEST(KasShapeMatching, OutputMatchesCThroughItsVariable) {
  EXPECT_TRUE(outputLegal(Shape{chan("C"), kH, kW}));
  EXPECT_TRUE(outputLegal(Shape{chan("G"), chan("C/G"), kH, kW}));
  EXPECT_FALSE(outputLegal(Shape{chan("C"), kW}));
  const auto s = outputSubstitution(Shape{chan("G"), chan("x3"), kH, kW});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->variable, Symbol::X3);
  EXPECT_EQ(s->value.text(), "C/G");
  EXPECT_FALSE(outputSubstitution(Shape{chan("KH"), chan("x1"), kH, kW}).has_value());
}

// The Figure 3 example of Canvas: [G*KH, H, W] blended with [x1, H, W] makes x1 a multiple of
// G*KH in every layer: 12 where KH = 3, 20 where KH = 5 (G = 4).
MicroDag figure3Kernel() {
  MicroDag dag;
  EXPECT_TRUE(dag.add({PrimitiveKind::Unfold, {0}, 1}));       // 1: [C, KH, H, W]
  EXPECT_TRUE(dag.add({PrimitiveKind::Group, {1}, 0}));        // 2: [G, C/G, KH, H, W]
  EXPECT_TRUE(dag.add({PrimitiveKind::AvgFold, {2}, 1}));      // 3: [G, KH, H, W]
  EXPECT_TRUE(dag.add({PrimitiveKind::FullyConnected, {0}}));  // 4: [x1, H, W]
  EXPECT_TRUE(dag.add({PrimitiveKind::Mul, {3, 4}}));          // 5: [x1, H, W]
  EXPECT_TRUE(dag.add({PrimitiveKind::FullyConnected, {5}}));  // 6: [x2, H, W]
  EXPECT_TRUE(dag.substitute({Symbol::X2, Size::of(Symbol::C)}));
  EXPECT_FALSE(dag.completeError()) << dag.completeError().value_or("");
  return dag;
}

std::vector<ConvTarget> figure3Targets() {
  return {{"narrow", 32, 8, 8, 3, 3, 1}, {"wide", 160, 8, 8, 5, 5, 1}};
}

TEST(KasBudgetSolver, BaseSizesAreLcmMultiplesScaledByChannels) {
  const MicroDag dag = figure3Kernel();
  ASSERT_EQ(dag.freeVariables(), std::vector<Symbol>{Symbol::X1});
  const auto targets = figure3Targets();
  // A budget of exactly the base sizes' cost: nothing may double.
  Bindings narrow = targetBindings(targets[0], 4), wide = targetBindings(targets[1], 4);
  narrow[static_cast<std::size_t>(Symbol::X1)] = 12;
  wide[static_cast<std::size_t>(Symbol::X1)] = 60;  // ceil(160*12 / (32*20)) * 20
  const double flops = layerCost(dag, narrow)->flops + layerCost(dag, wide)->flops;
  const double params = layerCost(dag, narrow)->params + layerCost(dag, wide)->params;
  const double convFlops = targets[0].flops() + targets[1].flops();
  const double convParams = targets[0].params() + targets[1].params();
  const SolveResult r =
      solveBudget(dag, targets, 4, Budget{flops / convFlops + 1e-12, params / convParams + 1e-12});
  ASSERT_TRUE(r.solution) << r.error;
  EXPECT_EQ(r.solution->layers[0].bindings[static_cast<std::size_t>(Symbol::X1)], 12);
  EXPECT_EQ(r.solution->layers[1].bindings[static_cast<std::size_t>(Symbol::X1)], 60);
  // Below the base cost there is no solution, and the message says so.
  const SolveResult tight = solveBudget(dag, targets, 4, Budget{flops / convFlops * 0.9, 1});
  EXPECT_FALSE(tight.solution);
  EXPECT_NE(tight.error.find("smallest legal sizes"), std::string::npos) << tight.error;
  // In shares as every command prints them ("100%", "0.40%"), not "1.000000 ... 0.500000".
  EXPECT_NE(tight.error.find("% of the convolutions' FLOPs"), std::string::npos) << tight.error;
  EXPECT_EQ(tight.error.find("0000"), std::string::npos) << tight.error;
  // A G that does not divide C is no matter of the budget, and the message does not say it is.
  const SolveResult three = solveBudget(dag, targets, 3, Budget{1, 1});
  EXPECT_FALSE(three.solution);
  EXPECT_NE(three.error.find("whatever the budget"), std::string::npos) << three.error;
}

TEST(KasBudgetSolver, DoublesUntilNoVariableFitsTheBudget) {
  const MicroDag dag = figure3Kernel();
  const auto targets = figure3Targets();
  const Budget budget{0.3, 0.3};
  const SolveResult r = solveBudget(dag, targets, 4, budget);
  ASSERT_TRUE(r.solution) << r.error;
  const Solution& s = *r.solution;
  EXPECT_LE(s.flops, budget.flops * s.convFlops);
  EXPECT_LE(s.params, budget.params * s.convParams);
  const std::int64_t base[] = {12, 60};
  for (std::size_t i = 0; i < 2; ++i) {
    const std::int64_t x = s.layers[i].bindings[static_cast<std::size_t>(Symbol::X1)];
    EXPECT_EQ(x % base[i], 0);
    EXPECT_GT(x, base[i]) << "a budget of 0.3 leaves room to double layer " << i;
    // One more doubling of either layer would break a budget.
    Bindings more = s.layers[i].bindings;
    more[static_cast<std::size_t>(Symbol::X1)] *= 2;
    const auto c = layerCost(dag, more);
    ASSERT_TRUE(c);
    EXPECT_TRUE(s.flops - s.layers[i].flops + c->flops > budget.flops * s.convFlops ||
                s.params - s.layers[i].params + c->params > budget.params * s.convParams);
  }
  // Every dim is a whole number in every layer.
  for (const LayerSizes& l : s.layers)
    for (const auto& shape : l.shapes)
      for (std::int64_t d : shape) EXPECT_GE(d, 1);
}

TEST(KasBudgetSolver, GroupCountsDivideEveryChannelCount) {
  EXPECT_EQ(groupChoices(figure3Targets()), (std::vector<std::int64_t>{2, 4, 8, 16, 32}));
  // A G that leaves C/G fractional in some layer is refused with the size named.
  MicroDag dag;
  ASSERT_TRUE(dag.add({PrimitiveKind::Group, {0}, 0}));
  ASSERT_TRUE(dag.add({PrimitiveKind::GroupedFc, {1}}));
  ASSERT_TRUE(dag.substitute({Symbol::X1, size("C/G")}));
  ASSERT_FALSE(dag.completeError()) << *dag.completeError();
  const SolveResult r = solveBudget(dag, figure3Targets(), 3, Budget{1, 1});
  EXPECT_FALSE(r.solution);
  EXPECT_NE(r.error.find("C/G"), std::string::npos) << r.error;
  EXPECT_TRUE(solveBudget(dag, figure3Targets(), 4, Budget{1, 1}).solution);
}

TEST(KasMicroDag, CanonicalHashIgnoresBuildOrderAndVariableNames) {
  // fc(input) + relu(input), built in either order.
  MicroDag a, b;
  ASSERT_TRUE(a.add({PrimitiveKind::FullyConnected, {0}}));
  ASSERT_TRUE(a.add({PrimitiveKind::Relu, {0}}));
  ASSERT_TRUE(a.add({PrimitiveKind::Add, {2, 1}}));
  ASSERT_TRUE(b.add({PrimitiveKind::Relu, {0}}));
  ASSERT_TRUE(b.add({PrimitiveKind::FullyConnected, {0}}));
  ASSERT_TRUE(b.add({PrimitiveKind::Add, {1, 2}}));
  ASSERT_TRUE(a.substitute({Symbol::X1, Size::of(Symbol::C)}));
  ASSERT_TRUE(b.substitute({Symbol::X1, Size::of(Symbol::C)}));
  EXPECT_EQ(a.canonicalHash(), b.canonicalHash());
  // A different dim or primitive is a different kernel.
  MicroDag c;
  ASSERT_TRUE(c.add({PrimitiveKind::Sin, {0}}));
  ASSERT_TRUE(c.add({PrimitiveKind::FullyConnected, {0}}));
  ASSERT_TRUE(c.add({PrimitiveKind::Add, {1, 2}}));
  ASSERT_TRUE(c.substitute({Symbol::X1, Size::of(Symbol::C)}));
  EXPECT_NE(a.canonicalHash(), c.canonicalHash());
}

TEST(KasMicroDag, TypeCheckRefusesWhatTheoremOneRulesOut) {
  MicroDag dag;
  EXPECT_FALSE(dag.add({PrimitiveKind::Group, {0}, 1}));  // H is not a channel dim
  EXPECT_FALSE(dag.add({PrimitiveKind::Add, {0, 0}}));    // a tensor with itself
  ASSERT_TRUE(dag.add({PrimitiveKind::Unfold, {0}, 1}));  // [C, KH, H, W]
  EXPECT_FALSE(dag.add({PrimitiveKind::Group, {1}, 1}));  // KH/G is not whole
  EXPECT_FALSE(dag.add({PrimitiveKind::Add, {1, 0}}));    // KH has nowhere to go in [C, H, W]
  ASSERT_TRUE(dag.add({PrimitiveKind::FullyConnected, {0}}));
  ASSERT_TRUE(dag.add({PrimitiveKind::FullyConnected, {1}}));
  // Two variables in one tensor: x2 := x1 * x1 is not a size.
  EXPECT_FALSE(dag.substitute({Symbol::X2, size("x1") * size("x1")}));
  EXPECT_TRUE(dag.completeError().has_value());
}

TEST(KasSampler, KernelsAreCompleteDistinctAndReplayFromTheirSeed) {
  const net::Network resnet = net::loadNetwork("resnet18");
  const auto targets = replaceableConvolutions(resnet);
  ASSERT_EQ(targets.size(), 4u);  // 64x56, 128x28, 256x14, 512x7
  EXPECT_EQ(targets[0].channels, 64);
  EXPECT_EQ(targets[0].count, 4);
  auto fits = [&](const MicroDag& dag) {
    for (std::int64_t g : groupChoices(targets))
      if (solveBudget(dag, targets, g, Budget{}).solution) return true;
    return false;
  };
  SampleStats stats;
  const auto kernels = sampleDistinct(1, 200, SamplerOptions{}, fits, &stats);
  EXPECT_GE(kernels.size(), 100u);
  std::set<std::uint64_t> hashes;
  for (const MicroDag& k : kernels) {
    hashes.insert(k.canonicalHash());
    EXPECT_FALSE(k.completeError()) << k.text();
    for (std::size_t i = 0; i < k.shapes().size(); ++i) {
      Size all;
      for (const Dim& d : k.shapes()[i]) {
        if (d.role != DimRole::Channel) {
          EXPECT_FALSE(d.size.hasVariable()) << k.text();
        }
        all = all * d.size;
      }
      EXPECT_FALSE(all.breaksTheorem1()) << k.text();
    }
    // A file written and read back is the same kernel.
    const MicroDag back = kernelFromJson(kernelToJson(k), "test");
    EXPECT_EQ(back.canonicalHash(), k.canonicalHash());
    EXPECT_EQ(back.shapes(), k.shapes());
  }
  EXPECT_EQ(hashes.size(), kernels.size());
  const auto again = sampleDistinct(1, 20, SamplerOptions{}, fits);
  for (std::size_t i = 0; i < again.size(); ++i)
    EXPECT_EQ(again[i].canonicalHash(), kernels[i].canonicalHash());
}

TEST(KasJson, BadKernelFilesNameTheNodeAndField) {
  auto error = [](const char* text) {
    try {
      kernelFromJson(nlohmann::json::parse(text), "k.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error(R"({"nodes": [{"op": "input"}, {"op": "conv", "input": 0}]})")
                .find("node 1: unknown op \"conv\""),
            std::string::npos);
  EXPECT_NE(
      error(R"({"nodes": [{"op": "input"}, {"op": "group", "input": 0}]})").find("needs \"dim\""),
      std::string::npos);
  EXPECT_NE(error(R"({"nodes": [{"op": "input"}, {"op": "unfold", "input": 0, "dim": 1},
                                {"op": "add", "inputs": [1, 0]}]})")
                .find("does not broadcast"),
            std::string::npos);
  EXPECT_NE(error(R"({"nodes": [{"op": "input"}, {"op": "relu", "input": 0}]})").find("no fc"),
            std::string::npos);
  EXPECT_NE(error(R"({"nodes": [{"op": "input"}, {"op": "fc", "input": 0}],
                      "substitutions": {"x1": "C*Z"}})")
                .find("not a size"),
            std::string::npos);
  // Fields an op does not take, and a version this build does not read, were ignored.
  EXPECT_NE(error(R"({"nodes": [{"op": "input"}, {"op": "fc", "input": 0, "dim": "x"}]})")
                .find("node 1: fc takes no \"dim\""),
            std::string::npos);
  EXPECT_NE(error(R"({"nodes": [{"op": "input"}, {"op": "relu", "inputs": [0, 0]}]})")
                .find("takes one \"input\""),
            std::string::npos);
  EXPECT_NE(error(R"({"version": 2, "nodes": [{"op": "input"}, {"op": "fc", "input": 0}]})")
                .find("\"version\" is 2"),
            std::string::npos);
  EXPECT_EQ(error(R"({"version": 1, "nodes": [{"op": "input"}, {"op": "fc", "input": 0}],
                      "substitutions": {"x1": "C"}})"),
            "no error");
}

TEST(KasJson, ADirectoryIsNamedAsOne) {
  char pattern[] = "/tmp/opevo-kas-json-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  try {
    loadKernel(dir);
    ADD_FAILURE() << "a directory read as a kernel";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  std::filesystem::remove(dir);
}

}  // namespace
}  // namespace opevo::kas
