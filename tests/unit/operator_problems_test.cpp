#include "ops/operator_problems.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "ops/operator_json.h"
#include "space/graph_limit.h"
#include "space/param_spec.h"

namespace opevo {
namespace {

nlohmann::json conv(int groups, int width) {
  nlohmann::json j = nlohmann::json::parse(R"({"name": "es", "kind": "conv2d", "shape": {
      "batch": 1, "in_channels": 16, "height": 14, "width": 14, "out_channels": 16,
      "kernel_h": 11, "kernel_w": 11, "stride": 1, "pad": 0, "groups": 1}})");
  j["shape"]["groups"] = groups;
  j["shape"]["width"] = width;
  return j;
}

TEST(OperatorProblems, EveryWrongFieldOfAConvolutionIsListedAndTheFirstIsCoresRefusal) {
  const nlohmann::json j = conv(7, 5);  // 7 divides neither 16; 5 is narrower than the kernel
  const std::vector<std::string> all = operatorFileProblems(j, "es.json");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_NE(all[0].find("groups 7 must divide"), std::string::npos) << all[0];
  EXPECT_NE(all[1].find("the 11x11 kernel is larger than the padded 14x5 input"), std::string::npos)
      << all[1];
  // The CLI's one line starts with the first of them, word for word, and lists the other.
  try {
    operatorDefinitionFromJson(j, "es.json");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    const std::string line = e.what();
    EXPECT_EQ(line.rfind(all[0], 0), 0u) << line;
    EXPECT_NE(line.find("; the 11x11 kernel is larger"), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  }
}

// A field that is no integer at all ("3O") used to stop the reading there: kernel_w = 0 and
// pad = -1 showed up only once height was fixed. Every wrong field is listed, in field order.
TEST(OperatorProblems, AFieldThatIsNoIntegerDoesNotHideTheOthers) {
  nlohmann::json j = conv(1, 14);
  j["name"] = "walk_conv";
  j["shape"]["height"] = "3O";
  j["shape"]["kernel_w"] = 0;
  j["shape"]["pad"] = -1;
  const std::vector<std::string> all = operatorFileProblems(j, "w.json");
  ASSERT_EQ(all.size(), 3u) << problemsInOneLine(all);
  EXPECT_EQ(all[0], "w.json: operator 'walk_conv': height must be a positive integer, got \"3O\"");
  EXPECT_EQ(all[1], "w.json: operator 'walk_conv': kernel_w must be a positive integer, got 0");
  EXPECT_EQ(all[2], "w.json: operator 'walk_conv': pad must be an integer, 0 or more, got -1");
  try {
    operatorDefinitionFromJson(j, "w.json");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "w.json: operator 'walk_conv': height must be a positive integer, got \"3O\"; "
              "kernel_w must be a positive integer, got 0; pad must be an integer, 0 or more, got "
              "-1");
  }
}

// One message per kind of mistake: a dimension that is no integer and one that is out of range
// are refused in the same words, which give the range (dimensions from 1, pad from 0).
TEST(OperatorProblems, OneWordingForAValueWhateverTheMistake) {
  nlohmann::json mm = nlohmann::json::parse(R"({"name": "mm", "kind": "batch_matmul",
      "shape": {"batch": 2, "n": 4, "m": "13x", "k": 1.5}})");
  std::vector<std::string> all = operatorFileProblems(mm, "f");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0], "f: operator 'mm': m must be a positive integer, got \"13x\"");
  EXPECT_EQ(all[1], "f: operator 'mm': k must be a positive integer, got 1.5");
  mm["shape"]["m"] = 0;
  mm["kind"] = "matmul";
  mm["shape"].erase("batch");
  all = operatorFileProblems(mm, "f");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0], "f: operator 'mm': m must be a positive integer, got 0");
  nlohmann::json c = conv(1, 14);
  c["shape"]["pad"] = "-1x";
  all = operatorFileProblems(c, "c");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0], "c: operator 'es': pad must be an integer, 0 or more, got \"-1x\"");
  c["shape"]["pad"] = -1;
  EXPECT_EQ(operatorFileProblems(c, "c").at(0),
            "c: operator 'es': pad must be an integer, 0 or more, got -1");
}

TEST(OperatorProblems, AMissingFieldATypoAndABadFlagAreListedWithTheRest) {
  const auto all = operatorFileProblems(
      nlohmann::json::parse(
          R"({"kind": "matmul", "shape": {"n": 0, "kk": 3, "m": 4, "trans_a": 1}})"),
      "t.json");
  ASSERT_EQ(all.size(), 4u) << problemsInOneLine(all);
  EXPECT_NE(all[0].find("unknown shape field 'kk'"), std::string::npos) << all[0];
  EXPECT_NE(all[1].find("n must be a positive integer, got 0"), std::string::npos) << all[1];
  EXPECT_NE(all[2].find("shape lacks field 'k' (a positive integer)"), std::string::npos) << all[2];
  EXPECT_NE(all[3].find("'trans_a' must be true or false"), std::string::npos) << all[3];
}

TEST(OperatorProblems, AValidOperatorHasNoneAndAZeroGroupSkipsTheDivision) {
  EXPECT_TRUE(operatorFileProblems(conv(1, 14), "ok.json").empty());
  const std::vector<std::string> zero = operatorFileProblems(conv(0, 14), "z.json");
  ASSERT_EQ(zero.size(), 1u);  // no "groups 0 must divide" from a division by zero
  EXPECT_NE(zero[0].find("groups must be a positive integer, got 0"), std::string::npos);
}

TEST(OperatorProblems, AMatmulListsEachNonPositiveDimension) {
  OperatorSpec op;
  op.name = "mm";
  op.n = 0;
  op.m = -1;
  op.k = 8;
  const std::vector<std::string> all = operatorProblems(op);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0], "operator 'mm': n must be a positive integer, got 0");
  EXPECT_EQ(all[1], "operator 'mm': m must be a positive integer, got -1");
}

TEST(OperatorProblems, AFileThatIsNoOperatorGivesOneMessage) {
  const auto all = operatorFileProblems(nlohmann::json::parse(R"({"kind": "dense"})"), "d.json");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_NE(all[0].find("unknown kind 'dense'"), std::string::npos) << all[0];
}

// One limit for the window and the CLI: perm:9 (362,880 vertices) is inside it, perm:10 not.
TEST(GraphLimit, Perm9IsWithinTheOneLimitAndPerm10IsRefusedWithItsSize) {
  EXPECT_EQ(graphTooLarge(*makeParameter("", "perm:9")), "");
  const std::string why = graphTooLarge(*makeParameter("", "perm:10"));
  EXPECT_NE(why.find("3628800 vertices"), std::string::npos) << why;
  EXPECT_NE(why.find("at most " + std::to_string(kMaxGraphVertices)), std::string::npos) << why;
  try {
    buildGraph(*makeParameter("", "perm:10"), makeParameter("", "perm:10")->first());
    FAIL() << "built";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), why);  // buildGraph refuses in the same words
  }
}

}  // namespace
}  // namespace opevo
