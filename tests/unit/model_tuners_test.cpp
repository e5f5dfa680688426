#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <unordered_set>

#include "common/error.h"
#include "model/cost_model.h"
#include "model/features.h"
#include "ops/presets.h"
#include "space/discrete_param.h"
#include "space/enumerate.h"
#include "space/factor_param.h"
#include "tuners/ansor_tuner.h"
#include "tuners/autotvm_tuner.h"
#include "tuners/random_tuner.h"
#include "tuners/registry.h"

namespace opevo {
namespace {

using Objective = std::function<double(const Config&)>;

// A smooth stand-in for measured speed on MM1's space (tile_n, tile_m into [block, vthread,
// thread, inner], tile_k into 3): one optimum region in log2 tile sizes, and zero (a failed
// kernel) with too few threads for a warp or too many outputs per thread.
double synthetic(const Config& c) {
  auto l = [](std::int64_t x) { return std::log2(static_cast<double>(x)); };
  auto sq = [](double x) { return x * x; };
  const Vertex &n = c[0], &m = c[1], &k = c[2];
  if (l(n[2]) + l(m[2]) < 5 || l(n[3]) + l(m[3]) > 6) return 0;
  const double d2 = sq(l(n[2]) - 4) + sq(l(m[2]) - 4) + sq(l(n[3]) - 2) + sq(l(m[3]) - 2) +
                    sq(l(n[1]) - 1) + sq(l(m[1]) - 1) + sq(l(k[1]) - 3) + sq(l(k[2]) - 1);
  return 10.0 * std::exp(-d2 / 8.0);
}

struct TuningRun {
  std::vector<Config> proposed;
  double best = 0;
};

// Propose/measure/observe in batches until `trials` or the tuner runs dry; checks on the way
// that every proposal is valid and never repeated.
TuningRun drive(Tuner& tuner, const Objective& f, std::size_t trials, std::size_t batch) {
  TuningRun run;
  std::unordered_set<Config, ConfigHash> seen;
  while (run.proposed.size() < trials) {
    const std::vector<Config> configs =
        tuner.propose(std::min(batch, trials - run.proposed.size()));
    if (configs.empty()) break;
    std::vector<Observation> results;
    for (const Config& c : configs) {
      EXPECT_TRUE(tuner.space().contains(c));
      EXPECT_TRUE(tuner.space().satisfies(c)) << tuner.space().format(c);
      EXPECT_TRUE(seen.insert(c).second) << "proposed twice: " << tuner.space().format(c);
      results.push_back({c, f(c)});
      run.best = std::max(run.best, results.back().fitness);
      run.proposed.push_back(c);
    }
    tuner.observe(results);
  }
  return run;
}

std::unique_ptr<Tuner> make(const std::string& algorithm, const SearchSpace& space,
                            std::uint64_t seed, std::map<std::string, std::string> settings = {}) {
  return makeTuner(algorithm, space, seed, settings);
}

// Settings that keep behaviour tests fast; the defaults are exercised by the quality test.
std::map<std::string, std::string> small(const std::string& algorithm) {
  if (algorithm == "autotvm")
    return {{"plan_size", "8"}, {"sa_chains", "16"}, {"sa_iterations", "40"}, {"xgb_rounds", "10"}};
  if (algorithm == "opevo-m") return {{"batch", "8"}, {"candidates", "64"}, {"xgb_rounds", "10"}};
  return {{"batch_size", "8"}, {"population", "64"}, {"generations", "2"}, {"xgb_rounds", "10"}};
}

std::size_t trainings(const Tuner& t) {
  return dynamic_cast<const ModelBasedTuner&>(t).trainings();
}

class ModelTuners : public testing::TestWithParam<std::string> {};

TEST_P(ModelTuners, AreRegisteredWithDeclaredSettings) {
  const TunerInfo* info = tunerRegistry().find(GetParam());
  ASSERT_NE(info, nullptr);
  const TunerSettings s = info->defaults();
  for (const SettingInfo& setting : s.all()) EXPECT_FALSE(setting.help.empty()) << setting.name;
  EXPECT_EQ(s.get("epsilon"), 0.05);
  EXPECT_EQ(s.getInt("xgb_threads"), 1);
  const SearchSpace space = defaultSpace(preset("MM1"));
  EXPECT_EQ(make(GetParam(), space, 1)->name(), GetParam());
  EXPECT_THROW(make(GetParam(), space, 1, {{"epsilon", "2"}}), InputError);
  EXPECT_THROW(make(GetParam(), space, 1, {{"no_such_setting", "1"}}), InputError);
}

TEST_P(ModelTuners, SameSeedSameProposals) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  auto a = make(GetParam(), space, 42, small(GetParam()));
  auto b = make(GetParam(), space, 42, small(GetParam()));
  auto c = make(GetParam(), space, 43, small(GetParam()));
  const TuningRun ra = drive(*a, synthetic, 48, 8);
  const TuningRun rb = drive(*b, synthetic, 48, 8);
  const TuningRun rc = drive(*c, synthetic, 48, 8);
  EXPECT_GE(trainings(*a), 4u);  // most of the run came from the model
  EXPECT_EQ(ra.proposed, rb.proposed);
  EXPECT_NE(ra.proposed, rc.proposed);
}

TEST_P(ModelTuners, SpaceOfOnePoint) {
  SearchSpace space;
  space.add(std::make_shared<FactorParam>("one", 1, 3));
  auto tuner = make(GetParam(), space, 1, small(GetParam()));
  const std::vector<Config> first = tuner->propose(8);
  ASSERT_EQ(first.size(), 1u);
  tuner->observe({{first[0], 1.0}});
  EXPECT_TRUE(tuner->propose(8).empty());
  EXPECT_TRUE(tuner->exhausted());
}

TEST_P(ModelTuners, EveryPointInvalidProposesNothing) {
  SearchSpace space = defaultSpace(preset("MM1"));
  space.addConstraint("nothing runs", [](const Config&) { return false; });
  // A hang here would show as ctest's timeout: tests hold no timed assertions.
  auto tuner = make(GetParam(), space, 1);
  EXPECT_TRUE(tuner->propose(64).empty());
  EXPECT_TRUE(tuner->exhausted());
  EXPECT_TRUE(tuner->propose(64).empty());
}

// About 1% of the points are valid, scattered with no locality: neighbour moves almost always
// land on invalid points. The tuner must still propose only valid new points and use them all.
TEST_P(ModelTuners, NinetyNinePercentInvalidSmallSpaceIsExhaustedExactly) {
  SearchSpace space;
  space.add(std::make_shared<FactorParam>("a", 64, 3));
  space.add(std::make_shared<FactorParam>("b", 96, 3));
  space.addConstraint("1%", [](const Config& c) { return ConfigHash{}(c) % 100 == 0; });
  std::size_t valid = 0;
  forEachConfig(space, 1'000'000, [&](const Config& c) {
    valid += space.satisfies(c);
    return true;
  });
  ASSERT_GT(valid, 4u);
  auto tuner =
      make(GetParam(), space, 3,
           GetParam() == "autotvm"   ? std::map<std::string, std::string>{{"plan_size", "2"}}
           : GetParam() == "opevo-m" ? std::map<std::string, std::string>{{"batch", "2"}}
                                     : std::map<std::string, std::string>{{"batch_size", "2"}});
  const TuningRun run = drive(
      *tuner, [](const Config& c) { return double(c[0][0] + c[1][1]); }, 1000, 2);
  EXPECT_EQ(run.proposed.size(), valid);
  EXPECT_TRUE(tuner->exhausted());
  EXPECT_GE(trainings(*tuner), 1u);
}

TEST_P(ModelTuners, NinetyNinePercentInvalidLargeSpace) {
  SearchSpace space = defaultSpace(preset("MM1"));
  space.addConstraint("1%", [](const Config& c) { return ConfigHash{}(c) % 100 == 0; });
  auto tuner = make(GetParam(), space, 5, small(GetParam()));
  const TuningRun run = drive(*tuner, synthetic, 64, 8);
  EXPECT_EQ(run.proposed.size(), 64u);
  EXPECT_GE(trainings(*tuner), 1u);
}

TEST_P(ModelTuners, FewerThanTwoDistinctFitnessValuesStaysRandom) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  for (double constant : {0.0, 3.5}) {
    auto tuner = make(GetParam(), space, 9, small(GetParam()));
    const TuningRun run = drive(
        *tuner, [&](const Config&) { return constant; }, 40, 8);
    EXPECT_EQ(run.proposed.size(), 40u);
    EXPECT_EQ(trainings(*tuner), 0u) << constant;
  }
  // One success among failures is enough to rank.
  auto tuner = make(GetParam(), space, 9, small(GetParam()));
  bool first = true;
  drive(
      *tuner, [&](const Config&) { return std::exchange(first, false) ? 1.0 : 0.0; }, 40, 8);
  EXPECT_GE(trainings(*tuner), 1u);
}

TEST_P(ModelTuners, PriorObservationsTrainButDoNotCountAsProposals) {
  SearchSpace space;
  space.add(std::make_shared<DiscreteParam>("x", std::vector<double>{1, 2, 3}));
  auto tuner = make(GetParam(), space, 1, small(GetParam()));
  auto& model = dynamic_cast<ModelBasedTuner&>(*tuner);
  model.addPriorObservations({{{{0}}, 1.0}, {{{1}}, 2.0}, {{{2}}, 3.0}});
  EXPECT_TRUE(tuner->history().empty());
  const std::vector<Config> batch = tuner->propose(3);
  EXPECT_EQ(batch.size(), 3u);  // every prior point may be measured again in this run
  EXPECT_EQ(model.trainings(), 1u);
  EXPECT_TRUE(tuner->history().empty());
}

// A run resumed from stored trials (observed before anything was proposed) uses the model from
// its first proposal, and never proposes a stored configuration again.
TEST_P(ModelTuners, ResumedRunUsesTheModelAtOnce) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  RandomTuner random(space, {}, 8);
  std::vector<Observation> stored;
  std::unordered_set<Config, ConfigHash> storedSet;
  for (const Config& c : random.propose(64)) {
    stored.push_back({c, synthetic(c)});
    storedSet.insert(c);
  }
  auto tuner = make(GetParam(), space, 8, small(GetParam()));
  tuner->observe(stored);
  const std::vector<Config> batch = tuner->propose(8);
  EXPECT_EQ(batch.size(), 8u);
  EXPECT_EQ(trainings(*tuner), 1u);
  for (const Config& c : batch) EXPECT_EQ(storedSet.count(c), 0u);
}

// A warm-started run's first batch comes from a model trained on an earlier run, so it beats a
// cold start's first batch (random) on average.
TEST_P(ModelTuners, WarmStartImprovesTheFirstBatch) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  auto earlier = make(GetParam(), space, 100, small(GetParam()));
  const TuningRun before = drive(*earlier, synthetic, 160, 32);
  std::vector<Observation> prior;
  for (const Config& c : before.proposed) prior.push_back({c, synthetic(c)});

  auto mean = [](const std::vector<Config>& batch) {
    double sum = 0;
    for (const Config& c : batch) sum += synthetic(c);
    return sum / static_cast<double>(batch.size());
  };
  auto cold = make(GetParam(), space, 7);
  auto warm = make(GetParam(), space, 7);
  dynamic_cast<ModelBasedTuner&>(*warm).addPriorObservations(prior);
  const double coldMean = mean(cold->propose(64));
  const double warmMean = mean(warm->propose(64));
  RecordProperty("cold_mean", std::to_string(coldMean));
  RecordProperty("warm_mean", std::to_string(warmMean));
  EXPECT_EQ(trainings(*cold), 0u);
  EXPECT_EQ(trainings(*warm), 1u);
  // opevo-m's warm batch is q-walk children of the earlier best, ranked by the model, rather
  // than the model's own optimum found by annealing: far better than cold, by less.
  const double margin = GetParam() == "opevo-m" ? 0.4 : 1.0;
  EXPECT_GT(warmMean, coldMean + margin) << "cold " << coldMean << " warm " << warmMean;
}

// The point of a cost model: with default settings, on a smooth objective, the best after 200
// trials beats random search's on average over fixed seeds.
TEST_P(ModelTuners, BeatRandomSearchOnASmoothObjective) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  double model = 0, random = 0;
  const std::vector<std::uint64_t> seeds = {1, 2, 3, 4};
  for (std::uint64_t seed : seeds) {
    auto tuner = make(GetParam(), space, seed);
    RandomTuner baseline(space, {}, seed);
    model += drive(*tuner, synthetic, 200, 64).best / seeds.size();
    random += drive(baseline, synthetic, 200, 64).best / seeds.size();
  }
  RecordProperty("model_best", std::to_string(model));
  RecordProperty("random_best", std::to_string(random));
  EXPECT_GT(model, random + 1.0) << GetParam() << " " << model << " vs random " << random;
}

INSTANTIATE_TEST_SUITE_P(, ModelTuners, testing::Values("autotvm", "ansor", "opevo-m"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// A plateau with one peak next to its best point, in a direction the model has never seen pay:
// opevo-m's climbing measures every unmeasured neighbour of the best configuration, so the peak is
// found in the next batch however the model ranks it.
TEST(OpEvoModelTuner, ClimbingMeasuresEveryNeighbourOfTheBest) {
  SearchSpace space;
  for (const char* name : {"a", "b", "c"})
    space.add(std::make_shared<DiscreteParam>(name, std::vector<double>{1, 2, 3, 4, 5}));
  auto tuner = make("opevo-m", space, 3,
                    {{"batch", "8"},
                     {"candidates", "64"},
                     {"xgb_rounds", "10"},
                     {"climb", "8"},
                     {"explore_share", "0"},
                     {"epsilon", "0"}});
  const Config best = space.parse("a=3; b=3; c=3");
  // Measured so far: the best point and points that never moved more than one parameter at a
  // time away from it by two steps or more (so no neighbour of the best is measured).
  std::vector<Observation> seen{{best, 2.0}};
  forEachConfig(space, 1000, [&](const Config& c) {
    std::int64_t far = 0, moved = 0;
    for (std::size_t i = 0; i < 3; ++i) {
      const auto d = std::abs(c[i][0] - best[i][0]);
      moved += d > 0 ? 1 : 0;
      far += d >= 2 ? 1 : 0;
    }
    if (moved == 1 && far == 1) seen.push_back({c, 1.0 + 0.1 * static_cast<double>(c[0][0])});
    return true;
  });
  tuner->observe(seen);
  const std::vector<Config> batch = tuner->propose(8);
  std::vector<Vertex> steps;
  for (std::size_t i = 0; i < 3; ++i) {
    space.param(i).neighbours(best[i], steps);
    for (const Vertex& v : steps) {
      Config n = best;
      n[i] = v;
      EXPECT_NE(std::find(batch.begin(), batch.end(), n), batch.end()) << space.format(n);
    }
  }
}

// pair_climb 1: once every one-step neighbour of the best is measured (none better), climbing
// measures the best's two-parameter moves instead of turning to the next best configuration.
TEST(OpEvoModelTuner, PairClimbingMovesTwoParametersOnceOneStepIsExhausted) {
  SearchSpace space;
  for (const char* name : {"a", "b", "c"})
    space.add(std::make_shared<DiscreteParam>(name, std::vector<double>{1, 2, 3, 4, 5}));
  const Config best = space.parse("a=3; b=3; c=3");
  std::vector<Observation> seen{{best, 2.0}};
  std::vector<Vertex> steps;
  for (std::size_t i = 0; i < 3; ++i) {
    space.param(i).neighbours(best[i], steps);
    for (const Vertex& v : steps) {
      Config n = best;
      n[i] = v;
      seen.push_back({n, 1.0 + 0.1 * static_cast<double>(n[0][0])});
    }
  }
  std::vector<Config> pairs;
  forEachConfig(space, 1000, [&](const Config& c) {
    std::int64_t moved = 0, steps = 0;
    for (std::size_t i = 0; i < 3; ++i) {
      moved += c[i][0] != best[i][0] ? 1 : 0;
      steps += std::abs(c[i][0] - best[i][0]);
    }
    if (moved == 2 && steps == 2) pairs.push_back(c);
    return true;
  });
  ASSERT_EQ(pairs.size(), 12u);
  for (const int mode : {0, 1}) {
    auto tuner = make("opevo-m", space, 3,
                      {{"batch", "12"},
                       {"candidates", "64"},
                       {"xgb_rounds", "10"},
                       {"climb", "12"},
                       {"explore_share", "0"},
                       {"epsilon", "0"},
                       {"climb_reach", "0"},
                       {"pair_climb", std::to_string(mode)}});
    tuner->observe(seen);
    const std::vector<Config> batch = tuner->propose(12);
    std::size_t found = 0;
    for (const Config& c : pairs)
      found += std::find(batch.begin(), batch.end(), c) != batch.end() ? 1 : 0;
    if (mode == 1)
      EXPECT_EQ(found, pairs.size());
    else
      EXPECT_LT(found, pairs.size());
  }
}

// Three parameters 1-5 and a flag; measured: every configuration with a + 2b + 3c divisible by 7,
// those with flag = 0 good (the higher a + b + c the better), those with flag = 1 poor, and
// `extra` besides. Every parent of opevo-m then holds flag = 0.
std::vector<Observation> flagData(const SearchSpace& space, std::vector<Observation> extra = {}) {
  std::vector<Observation> seen = extra;
  forEachConfig(space, 1000, [&](const Config& c) {
    const auto sum = c[0][0] + c[1][0] + c[2][0];
    const bool known = std::any_of(extra.begin(), extra.end(),
                                   [&](const Observation& o) { return o.config == c; });
    if ((c[0][0] + 2 * c[1][0] + 3 * c[2][0]) % 7 == 0 && !known)
      seen.push_back({c, c[3][0] == 0 ? 1.0 + static_cast<double>(sum) : 0.1});
    return true;
  });
  return seen;
}

SearchSpace flagSpace() {
  SearchSpace space;
  for (const char* name : {"a", "b", "c"})
    space.add(std::make_shared<DiscreteParam>(name, std::vector<double>{1, 2, 3, 4, 5}));
  space.add(std::make_shared<DiscreteParam>("flag", std::vector<double>{0, 1}));
  return space;
}

// One batch of 8 from opevo-m after `seen`: children of near-copies of the parents (q 0.01), no
// random picks, no climbing around the best, no reopened parameters, and `extra` settings.
std::vector<Config> flagBatch(const SearchSpace& space, const std::vector<Observation>& seen,
                              std::map<std::string, std::string> extra) {
  std::map<std::string, std::string> settings{
      {"batch", "8"},    {"candidates", "64"}, {"xgb_rounds", "10"},
      {"epsilon", "0"},  {"climb", "0"},       {"q", "0.01"},
      {"unsettle", "0"}, {"pair_climb", "0"},  {"climb_reach", "0"}};
  for (const auto& [name, value] : extra) settings.insert_or_assign(name, value);
  auto tuner = make("opevo-m", space, 4, settings);
  tuner->observe(seen);
  return tuner->propose(8);
}

// unsettle: a parameter on which every parent agrees gets a guess with another value of it, even
// where the model ranks that value low (a few poor measurements with it).
TEST(OpEvoModelTuner, UnsettleReopensAParameterEveryParentAgreesOn) {
  const SearchSpace space = flagSpace();
  const std::vector<Observation> seen = flagData(space);
  for (const int picks : {0, 1}) {
    const std::vector<Config> batch =
        flagBatch(space, seen, {{"flag_climb", "0"}, {"unsettle", std::to_string(picks)}});
    ASSERT_EQ(batch.size(), 8u);
    const auto reopened =
        std::count_if(batch.begin(), batch.end(), [](const Config& c) { return c[3][0] == 1; });
    if (picks == 1)
      EXPECT_GE(reopened, 1);
    else
      EXPECT_EQ(reopened, 0);
  }
}

// flag_climb: the best configuration measured on the other side of a flag (here the only good
// one there) gets a pick among its unmeasured neighbours, the flag kept, though every parent is
// on this side and the model ranks that side low.
TEST(OpEvoModelTuner, FlagClimbingClimbsTheOtherSidesBest) {
  const SearchSpace space = flagSpace();
  const Config lead = space.parse("a=1; b=1; c=5; flag=1");
  const std::vector<Observation> seen = flagData(space, {{lead, 0.5}});
  auto nextToLead = [&](const Config& c) {
    std::int64_t steps = 0;
    for (std::size_t i = 0; i < 3; ++i) steps += std::abs(c[i][0] - lead[i][0]);
    return c[3] == lead[3] && steps == 1;
  };
  for (const int picks : {0, 1}) {
    const std::vector<Config> batch =
        flagBatch(space, seen, {{"flag_climb", std::to_string(picks)}});
    ASSERT_EQ(batch.size(), 8u);
    const auto climbed = std::count_if(batch.begin(), batch.end(), nextToLead);
    if (picks == 1)
      EXPECT_EQ(climbed, 1);
    else
      EXPECT_EQ(climbed, 0);
  }
}

// label_power: the model learns (fitness / best)^p, so with p = 2 a configuration at half the best
// speed is fitted near 0.25 rather than 0.5.
TEST(CostModel, LabelPowerRaisesTheNormalisedLabels) {
  SearchSpace space;
  space.add(std::make_shared<DiscreteParam>("a", std::vector<double>{1, 2}));
  const std::vector<Observation> data{{space.parse("a=1"), 1.0}, {space.parse("a=2"), 2.0}};
  XgbParams params;
  params.objective = "reg:squarederror";
  params.rounds = 200;
  params.minChildWeight = 0;
  for (const double power : {1.0, 2.0}) {
    CostModel model(space, params);
    model.setLabelPower(power);
    ASSERT_TRUE(model.train(data, {}));
    std::vector<float> out;
    model.predict({space.parse("a=1"), space.parse("a=2")}, out);
    EXPECT_NEAR(out[0], std::pow(0.5, power), 0.02) << power;
    EXPECT_NEAR(out[1], 1.0, 0.02) << power;
  }
}

// early_batch: after the first batch (a spread over the space, full size) opevo-m asks for
// batches of early_batch until early_trials are measured.
TEST(OpEvoModelTuner, EarlyBatchesAreSmaller) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  auto tuner = make("opevo-m", space, 5,
                    {{"batch", "8"},
                     {"candidates", "64"},
                     {"xgb_rounds", "10"},
                     {"early_batch", "4"},
                     {"early_trials", "16"}});
  std::vector<std::size_t> sizes;
  std::size_t measured = 0;
  while (measured < 32) {
    const std::vector<Config> batch = tuner->propose(tuner->preferredBatch());
    ASSERT_FALSE(batch.empty());
    std::vector<Observation> results;
    for (const Config& c : batch) results.push_back({c, synthetic(c)});
    tuner->observe(results);
    sizes.push_back(batch.size());
    measured += batch.size();
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{8, 4, 4, 8, 8}));
}

TEST(Features, DiscreteIntegersNotAllPowersOfTwoGetTheirAlignment) {
  SearchSpace space;
  space.add(std::make_shared<DiscreteParam>("block", std::vector<double>{16, 48, 128, 144}));
  space.add(std::make_shared<DiscreteParam>("pow2", std::vector<double>{1, 2, 4, 8}));
  space.add(std::make_shared<DiscreteParam>("scale", std::vector<double>{0.5, 1, 2}));
  const FeatureExtractor features(space);
  // Raw values, then block's alignment only: pow2's would repeat its value, scale is not integer.
  ASSERT_EQ(features.size(), 4u);
  EXPECT_EQ(features.names()[3], "align2 block");
  for (const auto& [text, align] :
       std::vector<std::pair<std::string, float>>{{"block=16; pow2=1; scale=1", 4},
                                                  {"block=48; pow2=1; scale=1", 4},
                                                  {"block=128; pow2=1; scale=1", 7},
                                                  {"block=144; pow2=1; scale=1", 4}})
    EXPECT_EQ(features(space.parse(text))[3], align) << text;
}

TEST(AutoTvmTuner, DefaultsAreAutoTvms) {
  const TunerSettings s = AutoTvmTuner::defaultSettings();
  EXPECT_EQ(s.getInt("plan_size"), 64);
  EXPECT_EQ(s.getInt("sa_chains"), 128);
  EXPECT_EQ(s.getInt("sa_iterations"), 500);
  EXPECT_EQ(s.getInt("sa_early_stop"), 50);
  EXPECT_EQ(s.getInt("xgb_max_depth"), 3);
  EXPECT_EQ(s.get("xgb_eta"), 0.3);
  EXPECT_EQ(s.getInt("xgb_objective"), 1);
}

TEST(AnsorTuner, DefaultsAreAnsors) {
  const TunerSettings s = AnsorTuner::defaultSettings();
  EXPECT_EQ(s.getInt("batch_size"), 64);
  EXPECT_EQ(s.getInt("population"), 2048);
  EXPECT_EQ(s.getInt("generations"), 4);
  EXPECT_EQ(s.get("mutation_prob"), 0.85);
  EXPECT_EQ(s.getInt("xgb_max_depth"), 10);
  EXPECT_EQ(s.get("xgb_eta"), 0.2);
}

// Annealing stops early once the top set stops changing, and never runs past its limit.
TEST(AutoTvmTuner, AnnealingRespectsItsLimits) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  AutoTvmTuner tuner(
      space,
      [] {
        TunerSettings s = AutoTvmTuner::defaultSettings();
        s.apply("autotvm", {{"plan_size", "16"},
                            {"sa_chains", "8"},
                            {"sa_iterations", "300"},
                            {"sa_early_stop", "5"}});
        return s;
      }(),
      11);
  drive(tuner, synthetic, 32, 16);
  EXPECT_EQ(tuner.trainings(), 1u);
  EXPECT_GE(tuner.lastAnnealSteps(), 5u);
  EXPECT_LE(tuner.lastAnnealSteps(), 300u);
}

// With crossover on, the search still proposes only valid new points.
TEST(AnsorTuner, CrossoverKeepsProposalsValid) {
  SearchSpace space = defaultSpace(preset("MM1"));
  auto tuner = make("ansor", space, 4,
                    {{"batch_size", "16"},
                     {"population", "128"},
                     {"crossover_prob", "0.5"},
                     {"xgb_rounds", "10"}});
  const TuningRun run = drive(*tuner, synthetic, 64, 16);
  EXPECT_EQ(run.proposed.size(), 64u);
  EXPECT_EQ(dynamic_cast<AnsorTuner&>(*tuner).rounds(), 4u);
}

}  // namespace
}  // namespace opevo
