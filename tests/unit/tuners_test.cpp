#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "common/error.h"
#include "ops/presets.h"
#include "space/factor_param.h"
#include "space/param_graph.h"
#include "space/param_spec.h"
#include "space/text.h"
#include "tuners/opevo_tuner.h"
#include "tuners/registry.h"

namespace opevo {
namespace {

// A smooth objective on factor spaces: best when every factor is near a target size, with a
// zero-fitness (invalid) region, so tuners have something to climb and something to avoid.
double objective(const SearchSpace& space, const Config& c) {
  double distance = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (space.param(i).kind() != ParamKind::Factor) continue;
    for (std::size_t j = 0; j < c[i].size(); ++j) {
      const double target = (j + 1 == c[i].size()) ? 2.0 : 1.0 + double(j % 3);
      distance += std::pow(std::log2(double(c[i][j])) - target, 2);
    }
  }
  if (c[0][0] == 1) return 0;  // "fails to compile"
  return 100.0 * std::exp(-distance / 8.0);
}

SearchSpace smallSpace() {
  SearchSpace s;
  s.add(std::make_shared<FactorParam>("a", 64, 3));  // 28
  s.add(std::make_shared<FactorParam>("b", 36, 2));  // 9
  s.addConstraint("a's last factor at most 16", [](const Config& c) { return c[0][2] <= 16; });
  return s;
}

std::vector<std::string> allAlgorithms() {
  std::vector<std::string> names;
  for (const TunerInfo& t : tunerRegistry().all()) names.push_back(t.name);
  return names;
}

std::vector<Config> runRounds(Tuner& tuner, const SearchSpace& space, int rounds) {
  std::vector<Config> proposed;
  for (int r = 0; r < rounds; ++r) {
    const auto batch = tuner.propose(tuner.preferredBatch());
    if (batch.empty()) break;
    std::vector<Observation> obs;
    for (const Config& c : batch) obs.push_back({c, objective(space, c)});
    tuner.observe(obs);
    proposed.insert(proposed.end(), batch.begin(), batch.end());
  }
  return proposed;
}

TEST(Tuners, SameSeedSameProposals) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  for (const std::string& name : allAlgorithms()) {
    if (name == "exhaustive") continue;  // deterministic by construction, and 4M points to list
    auto a = makeTuner(name, space, 42);
    auto b = makeTuner(name, space, 42);
    EXPECT_EQ(runRounds(*a, space, 4), runRounds(*b, space, 4)) << name;
  }
}

TEST(Tuners, ExhaustingASmallSpaceProposesEveryValidPointOnce) {
  const SearchSpace space = smallSpace();
  std::set<Config> valid;
  for (const auto& a : allVertices(space.param(0), 1000))
    for (const auto& b : allVertices(space.param(1), 1000))
      if (space.satisfies({a, b})) valid.insert({a, b});
  for (const std::string& name : allAlgorithms()) {
    auto tuner = makeTuner(name, space, 7);
    const auto proposed = runRounds(*tuner, space, 10000);
    EXPECT_TRUE(tuner->exhausted()) << name;
    EXPECT_EQ(proposed.size(), valid.size()) << name;
    EXPECT_EQ(std::set<Config>(proposed.begin(), proposed.end()), valid) << name;
  }
}

TEST(Tuners, SpaceOfSizeOne) {
  SearchSpace space;
  space.add(std::make_shared<FactorParam>("a", 1, 3));
  for (const std::string& name : allAlgorithms()) {
    auto tuner = makeTuner(name, space, 1);
    const auto first = tuner->propose(8);
    ASSERT_EQ(first.size(), 1u) << name;
    tuner->observe({{first[0], 1.0}});
    EXPECT_TRUE(tuner->propose(8).empty()) << name;
    EXPECT_TRUE(tuner->exhausted()) << name;
  }
}

TEST(Tuners, SpaceWhereEveryPointIsInvalid) {
  SearchSpace space = smallSpace();
  space.addConstraint("nothing is allowed", [](const Config&) { return false; });
  for (const std::string& name : allAlgorithms()) {
    auto tuner = makeTuner(name, space, 1);
    EXPECT_TRUE(tuner->propose(8).empty()) << name;
    EXPECT_TRUE(tuner->exhausted()) << name;
  }
}

TEST(Tuners, SpaceWhereNinetyNinePercentAreInvalid) {
  SearchSpace space;
  space.add(std::make_shared<FactorParam>("a", 1024, 4));
  space.add(std::make_shared<FactorParam>("b", 1024, 4));
  space.addConstraint("one point in a hundred",
                      [](const Config& c) { return ConfigHash{}(c) % 100 == 0; });
  for (const std::string& name : allAlgorithms()) {
    auto tuner = makeTuner(name, space, 3);
    // G-BFS returns short batches here (most neighbours are invalid), so go by count.
    std::vector<Config> proposed;
    for (int round = 0; round < 200 && proposed.size() < 30; ++round) {
      const auto more = runRounds(*tuner, space, 1);
      proposed.insert(proposed.end(), more.begin(), more.end());
    }
    EXPECT_GE(proposed.size(), 30u) << name;
    std::set<Config> unique(proposed.begin(), proposed.end());
    EXPECT_EQ(unique.size(), proposed.size()) << name;
    for (const Config& c : proposed) EXPECT_TRUE(space.satisfies(c)) << name;
  }
}

TEST(OpEvo, InvalidConfigurationsAreNeverParents) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  OpEvoTuner tuner(space, OpEvoTuner::defaults(), 5);
  for (int round = 0; round < 12; ++round) {
    const auto batch = tuner.propose(8);
    std::vector<Observation> obs;
    // Every other configuration fails, including some that would otherwise rank first.
    for (std::size_t i = 0; i < batch.size(); ++i)
      obs.push_back({batch[i], i % 2 ? 0.0 : 1.0 + objective(space, batch[i])});
    tuner.observe(obs);
    const auto parents = tuner.parents();
    EXPECT_FALSE(parents.empty());
    EXPECT_LE(parents.size(), 8u);
    for (std::size_t p : parents) EXPECT_GT(tuner.history()[p].fitness, 0.0);
  }
}

TEST(OpEvo, RandomPhaseWhileEverythingFails) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  OpEvoTuner tuner(space, OpEvoTuner::defaults(), 5);
  for (int round = 0; round < 5; ++round) {
    const auto batch = tuner.propose(8);
    ASSERT_EQ(batch.size(), 8u);
    std::vector<Observation> obs;
    for (const Config& c : batch) obs.push_back({c, 0.0});
    tuner.observe(obs);
    EXPECT_TRUE(tuner.parents().empty());
  }
}

TEST(OpEvo, BeatsRandomOnASmoothObjective) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  double opevo = 0, random = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    for (const char* name : {"opevo", "random"}) {
      auto tuner = makeTuner(name, space, seed);
      double best = 0;
      for (const Config& c : runRounds(*tuner, space, 100 / 8))
        best = std::max(best, objective(space, c));
      (std::string(name) == "opevo" ? opevo : random) += best;
    }
  }
  EXPECT_GT(opevo, random);
}

TEST(Tuners, BadSettingsAndNames) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  EXPECT_THROW(makeTuner("hyperopt", space, 1), InputError);
  EXPECT_THROW(makeTuner("opevo", space, 1, {{"lambda", "0"}}), InputError);
  EXPECT_THROW(makeTuner("opevo", space, 1, {{"q", "0"}}), InputError);
  EXPECT_THROW(makeTuner("opevo", space, 1, {{"q", "1"}}), InputError);
  EXPECT_THROW(makeTuner("opevo", space, 1, {{"q", "1.5"}}), InputError);
  EXPECT_THROW(makeTuner("opevo", space, 1, {{"rho", "0"}}), InputError);
  EXPECT_THROW(makeTuner("opevo", space, 1, {{"lambda", "2.5"}}), InputError);
  EXPECT_THROW(makeTuner("opevo", space, 1, {{"mu", "2"}}), InputError);
  EXPECT_NO_THROW(makeTuner("opevo", space, 1, {{"q", "0.7"}, {"lambda", "4"}}));
  EXPECT_NO_THROW(makeTuner("opevo", space, 1, {{"q", "+7e-1"}, {"lambda", "4.0"}}));
  // Another notation is not read as a value nobody typed: 0x4 is not 4.
  EXPECT_THROW(makeTuner("opevo", space, 1, {{"lambda", "0x4"}}), InputError);
  EXPECT_THROW(makeTuner("opevo", space, 1, {{"q", "0,5"}}), InputError);
  EXPECT_THROW(makeTuner("opevo", space, 1, {{"q", "nan"}}), InputError);
  EXPECT_THROW(makeTuner("opevo", space, 1, {{"q", "+-0.5"}}), InputError);
  // Written and read back in the C locale's notation whatever the process's locale.
  EXPECT_EQ(formatNumber(0.5), "0.5");
  EXPECT_EQ(formatNumber(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(formatNumber(1234567.5), "1234567.5");
  EXPECT_EQ(formatNumber(2.5e-7), "2.5e-07");
  try {
    makeTuner("opevo", space, 1, {{"q", "1"}});
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("(0, 1)"), std::string::npos) << e.what();
  }
  const SearchSpace conv = defaultSpace(preset("C2"));
  EXPECT_THROW(makeTuner("gbfs", conv, 1), InputError);
  EXPECT_THROW(makeTuner("na2c", conv, 1), InputError);
  // The refusal names every algorithm that takes the space, the default among them, and neither
  // factor-only one.
  try {
    makeTuner("gbfs", conv, 1);
  } catch (const InputError& e) {
    const std::string text = e.what();
    const std::string others = text.substr(text.find("(use one of "));
    EXPECT_NE(others.find(tunerRegistry().defaultTuner().name), std::string::npos) << text;
    EXPECT_NE(others.find("annealing"), std::string::npos) << text;
    EXPECT_EQ(others.find("gbfs"), std::string::npos) << text;
    EXPECT_EQ(others.find("na2c"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace opevo
