// The network net tune keeps once its untuned configurations ran (net/chain_choice.h): each
// task's steps in the two chains, the network of each task's faster configuration, and the
// choice among the three.

#include "net/chain_choice.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "net/network_json.h"

namespace opevo::net {
namespace {

const std::string kRelu6Net = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_relu6.json";

EndToEnd ran(double ms, std::vector<StepTime> steps = {}) {
  EndToEnd e;
  e.ms = ms;
  e.steps = std::move(steps);
  return e;
}

// A reference that was timed: the run is then usable only when its output matched it.
EndToEnd checked(double ms, bool verified) {
  EndToEnd e = ran(ms);
  e.reference.best = TorchResult{};
  e.verified = verified;
  return e;
}

TEST(ChainChoice, ATasksTimeIsItsKernelsAndTheirConversionsAtEveryOccurrence) {
  TaskGraph g;
  g.tasks.resize(2);
  g.tasks[0].occurrences = {{"a", {}, {}, "a", ""}, {"a2", {}, {}, "a2", ""}};
  g.tasks[1].occurrences = {{"b", {}, {}, "b", ""}};
  const std::vector<double> ms = taskChainMs(g, {{"a", StepKind::Convert, 0.5},
                                                 {"a", StepKind::Task, 1.0},
                                                 {"pool", StepKind::Fixed, 9.0},
                                                 {"b", StepKind::Task, 2.0},
                                                 {"a2", StepKind::Task, 1.5}});
  EXPECT_EQ(ms, (std::vector<double>{3.0, 2.0}));
}

TEST(ChainChoice, EachTaskTakesTheConfigurationItsStepsRanFasterWith) {
  const Network n = loadNetwork(kRelu6Net);
  const TaskGraph g = extractTasks(n);
  ASSERT_GE(g.tasks.size(), 4u);
  std::vector<Config> tuned(g.tasks.size()), untuned(g.tasks.size());
  std::vector<StepTime> tunedSteps, untunedSteps;
  for (std::size_t i = 0; i < g.tasks.size(); ++i) {
    tuned[i] = {{static_cast<std::int64_t>(i), 1}};
    untuned[i] = {{static_cast<std::int64_t>(i), 2}};
    const std::string& layer = g.tasks[i].occurrences.front().layer;
    // Tasks 0 and 3 ran faster untuned, task 1 slower, the others alike (they keep their tuned
    // ones); task 3's configuration is the same on both sides, so nothing is taken.
    tunedSteps.push_back({layer, StepKind::Task, 1.0});
    untunedSteps.push_back({layer, StepKind::Task, i == 0 || i == 3 ? 0.5 : i == 1 ? 2.0 : 1.0});
  }
  untuned[3] = tuned[3];
  std::vector<std::string> took;
  const std::vector<Config> mixed =
      fasterPerTask(g, tuned, ran(10, tunedSteps), untuned, ran(9, untunedSteps), &took);
  EXPECT_EQ(mixed[0], untuned[0]);
  for (std::size_t i = 1; i < g.tasks.size(); ++i) EXPECT_EQ(mixed[i], tuned[i]) << i;
  EXPECT_EQ(took, std::vector<std::string>{g.tasks[0].name});
}

TEST(ChainChoice, AnotherNetworkIsKeptOnlyWhenFasterBeyondTheNoiseAndVerified) {
  const EndToEnd tuned = ran(10.0);
  const EndToEnd close = ran(10.0 / kEndToEndNoise + 0.01), faster = ran(9.0), fastest = ran(8.0);
  EXPECT_EQ(chooseNetwork(tuned, nullptr, &close), NetworkChoice::Tuned);
  EXPECT_EQ(chooseNetwork(tuned, &close, &close), NetworkChoice::Tuned);
  EXPECT_EQ(chooseNetwork(tuned, nullptr, &faster), NetworkChoice::Untuned);
  EXPECT_EQ(chooseNetwork(tuned, &faster, &faster), NetworkChoice::Mixed);  // mixed on a tie
  EXPECT_EQ(chooseNetwork(tuned, &faster, &fastest), NetworkChoice::Untuned);
  EXPECT_EQ(chooseNetwork(tuned, &fastest, &faster), NetworkChoice::Mixed);
  // Checked and wrong: never kept, however fast. Checked and right, or not checked: as above.
  const EndToEnd wrong = checked(1.0, false), right = checked(8.0, true);
  EXPECT_EQ(chooseNetwork(tuned, &wrong, &faster), NetworkChoice::Untuned);
  EXPECT_EQ(chooseNetwork(tuned, &right, &wrong), NetworkChoice::Mixed);
  for (NetworkChoice c : {NetworkChoice::Tuned, NetworkChoice::Mixed, NetworkChoice::Untuned})
    EXPECT_EQ(parseNetworkChoice(networkChoiceName(c)), c);
}

TEST(ChainChoice, AStoredResultNamesTheNetworkItKeptOrSaysWhatIsWrong) {
  EXPECT_FALSE(keptNetworkFromResult(nlohmann::json::object(), "run 1"));
  const auto tuned = keptNetworkFromResult({{"chosen", "tuned"}}, "run 1");
  ASSERT_TRUE(tuned);
  EXPECT_EQ(tuned->choice, NetworkChoice::Tuned);
  const auto mixed =
      keptNetworkFromResult({{"chosen", "mixed"}, {"chosen_configs", {"a=1", "b=2"}}}, "run 1");
  ASSERT_TRUE(mixed);
  EXPECT_EQ(mixed->choice, NetworkChoice::Mixed);
  EXPECT_EQ(mixed->configs, (std::vector<std::string>{"a=1", "b=2"}));
  try {
    keptNetworkFromResult({{"chosen", "fastest"}}, "run 1");
    ADD_FAILURE() << "an unknown choice was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("run 1's stored result keeps an unknown network "
                                         "\"fastest\""),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(keptNetworkFromResult({{"chosen", "untuned"}}, "run 1"), InputError);
}

}  // namespace
}  // namespace opevo::net
