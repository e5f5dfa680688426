// T1 search-space files: the two shipped kernels import to spaces whose valid configurations
// are exactly those their brute-forced caches measured, and bad files name the field at fault.
#include "io/t1_space.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "common/error.h"
#include "io/replay_dataset.h"
#include "space/choice_param.h"
#include "space/discrete_param.h"
#include "space/enumerate.h"

namespace opevo {
namespace {

std::string dataset(const std::string& relative) {
  return std::string(OPEVO_DATASETS_DIR) + "/" + relative;
}

std::set<std::string> validConfigs(const SearchSpace& space) {
  std::set<std::string> out;
  forEachConfig(space, 1'000'000, [&](const Config& c) {
    if (space.satisfies(c)) out.insert(space.format(c));
    return true;
  });
  return out;
}

// The T1 constraints admit exactly the configurations the cache holds: the T1 file and the
// measurement describe the same space. Both spaces format values alike (16, not 16.0).
void expectSameConfigurations(const T1Space& t1, const ReplayDataset& ds) {
  ASSERT_EQ(t1.space.dims(), ds.space.dims());
  for (std::size_t i = 0; i < t1.space.dims(); ++i)
    EXPECT_EQ(t1.space.param(i).name(), ds.space.param(i).name());
  const std::set<std::string> fromT1 = validConfigs(t1.space);
  std::set<std::string> fromCache;
  for (const Config& c : *ds.space.explicitPoints()) fromCache.insert(ds.space.format(c));
  EXPECT_EQ(fromT1.size(), fromCache.size());
  EXPECT_TRUE(fromT1 == fromCache) << "the T1 constraints and the cache disagree";
}

TEST(T1Space, ConvolutionMatchesItsCache) {
  const T1Space t1 = importT1(dataset("kernels/convolution_milo.json"));
  EXPECT_EQ(t1.benchmarkName, "convolution_milo");
  EXPECT_EQ(t1.kernelName, "convolution_kernel");
  EXPECT_EQ(t1.language, "CUDA");
  ASSERT_EQ(t1.parameters.size(), 10u);
  EXPECT_EQ(t1.parameters[0].name, "block_size_x");
  EXPECT_EQ(t1.parameters[0].type, "int");
  EXPECT_EQ(t1.parameters[0].values.size(), 16u);
  EXPECT_EQ(t1.parameters[0].defaultValue, "16");
  EXPECT_EQ(t1.space.param(0).kind(), ParamKind::Discrete);
  ASSERT_EQ(t1.conditions.size(), 4u);
  ASSERT_EQ(t1.space.constraints().size(), 4u);
  EXPECT_EQ(t1.space.constraints()[1].description, "block_size_x*block_size_y<=1024");
  EXPECT_EQ(t1.space.size().as64(), 10240u);
  EXPECT_EQ(countValidConfigs(t1.space), 4362u);
  // The shipped file's fourth condition reads the filter sizes without listing them: harmless
  // (the constraint binds every parameter by name) but worth showing.
  EXPECT_EQ(t1.notes, (std::vector<std::string>{
                          "ConfigurationSpace.Conditions[3] uses filter_height but its Parameters "
                          "do not list it",
                          "ConfigurationSpace.Conditions[3] uses filter_width but its Parameters "
                          "do not list it"}));
  bool sawFile = false;
  for (const auto& [key, value] : t1.metadata)
    sawFile =
        sawFile || (key == "KernelSpecification.KernelFile" && value == "convolution_milo.cu");
  EXPECT_TRUE(sawFile);
  expectSameConfigurations(t1, loadReplayDataset(dataset("convolution_milo/A100.json.gz")));
}

TEST(T1Space, DedispersionMatchesItsCache) {
  const T1Space t1 = importT1(dataset("kernels/dedispersion_milo.json"));
  EXPECT_EQ(t1.kernelName, "dedispersion_kernel");
  ASSERT_EQ(t1.parameters.size(), 8u);
  EXPECT_EQ(t1.space.size().as64(), 22272u);
  // "32 <= block_size_x * block_size_y <= 1024" is a chained comparison.
  EXPECT_EQ(t1.space.constraints()[0].description, "32 <= block_size_x * block_size_y <= 1024");
  EXPECT_EQ(countValidConfigs(t1.space), 11130u);
  expectSameConfigurations(t1, loadReplayDataset(dataset("dedispersion_milo/MI250X.json.gz")));
}

TEST(T1Space, CountGivesUpOnHugeSpaces) {
  const T1Space t1 = importT1(dataset("kernels/dedispersion_milo.json"));
  EXPECT_EQ(countValidConfigs(t1.space, 1000), std::nullopt);
}

struct TempFile {
  std::string path;
  explicit TempFile(const std::string& content) {
    char name[] = "/tmp/opevo-t1-XXXXXX";
    close(mkstemp(name));
    path = name;
    std::ofstream(path) << content;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

// A T1 file with these parameters (JSON array text) and conditions.
std::string t1File(const std::string& parameters, const std::string& conditions = "[]") {
  return R"({"ConfigurationSpace": {"TuningParameters": )" + parameters + R"(, "Conditions": )" +
         conditions + "}}";
}

TEST(T1Space, TypesDecideKindsAndBindings) {
  const TempFile f(t1File(
      R"([{"Name": "n", "Type": "int", "Values": "[2**i for i in range(4)]"},
          {"Name": "f", "Type": "float", "Values": "[0.5, 1]"},
          {"Name": "b", "Type": "bool", "Values": "[True, False]"},
          {"Name": "s", "Type": "string", "Values": "['row', 'col']"},
          {"Name": "u", "Type": "uint", "Values": [4.0, 8]},
          {"Name": "x", "Values": "[1, 'a', True]"}])",
      R"j([{"Expression": "n * f >= 2 and (b or s == 'row')", "Parameters": ["n", "f", "b", "s"]},
          {"Expression": "u // 4 == 1", "Parameters": ["u"]}])j"));
  const T1Space t1 = importT1(f.path);
  EXPECT_EQ(t1.space.param(0).spec(), "discrete:1,2,4,8");
  EXPECT_EQ(t1.space.param(1).spec(), "discrete:0.5,1");
  EXPECT_EQ(t1.parameters[1].values[1].repr(), "1.0");  // float Type: 1 becomes 1.0
  EXPECT_EQ(t1.space.param(2).spec(), "choice:true,false");
  EXPECT_EQ(t1.space.param(3).spec(), "choice:row,col");
  EXPECT_EQ(t1.parameters[4].values[0].repr(), "4");           // uint Type: 4.0 becomes 4
  EXPECT_EQ(t1.space.param(5).spec(), "choice:1,\"a\",true");  // mixed: JSON text as replay does
  // n*f >= 2 needs n >= 4 (f = 0.5) or n >= 2 (f = 1): (2 + 3) of 8 pairs; then b or s == row
  // rules out b=false with s=col (1 of 4); u // 4 == 1 keeps u=4 only. Times 3 choices of x.
  EXPECT_EQ(countValidConfigs(t1.space), 5u * 3u * 1u * 3u);
}

TEST(T1Space, BadFilesNameTheField) {
  struct Case {
    std::string content;
    std::string message;  // after "PATH: "
  };
  const std::string ok = R"({"Name": "a", "Type": "int", "Values": "[1, 2]"})";
  const Case cases[] = {
      {"{}", "ConfigurationSpace: missing (expected an object)"},
      {R"({"ConfigurationSpace": {}})",
       "ConfigurationSpace.TuningParameters: missing (expected an array of parameters)"},
      {t1File("[]"), "ConfigurationSpace.TuningParameters: is empty"},
      {t1File(R"([{"Type": "int", "Values": "[1]"}])"),
       "ConfigurationSpace.TuningParameters[0].Name: missing (expected a string)"},
      {t1File(R"([{"Name": "a", "Values": "[1, 2"}])"),
       "ConfigurationSpace.TuningParameters[0].Values: expression \"[1, 2\": expected ']' but "
       "found end of the expression at column 6"},
      {t1File(R"j([{"Name": "a", "Values": "range(0)"}])j"),
       "ConfigurationSpace.TuningParameters[0].Values: \"range(0)\" gives an empty list"},
      {t1File(R"([{"Name": "a", "Values": "16"}])"),
       "ConfigurationSpace.TuningParameters[0].Values: \"16\" gives int 16, expected a list"},
      {t1File(R"([{"Name": "a", "Type": "int", "Values": "[1, 1.5]"}])"),
       "ConfigurationSpace.TuningParameters[0].Values: value 1.5 is not an integer (Type is int)"},
      {t1File(R"([{"Name": "a", "Type": "uint", "Values": "[-1, 1]"}])"),
       "ConfigurationSpace.TuningParameters[0].Values: value -1 is not a non-negative integer "
       "(Type is uint)"},
      {t1File(R"([{"Name": "a", "Type": "complex", "Values": "[1]"}])"),
       "ConfigurationSpace.TuningParameters[0].Values: Type 'complex' is not one of int, uint, "
       "float, bool, string"},
      {t1File(R"([{"Name": "a", "Values": "[1, 2, 1.0]"}])"),
       "ConfigurationSpace.TuningParameters[0].Values: value 1.0 appears twice"},
      {t1File(R"([{"Name": "a", "Values": "[[1], [2]]"}])"),
       "ConfigurationSpace.TuningParameters[0].Values: value [1] is a list"},
      {t1File(R"j([{"Name": "a", "Values": "[(1, 2), (3, 4)]"}])j"),
       "ConfigurationSpace.TuningParameters[0].Values: value (1, 2) is a tuple"},
      {t1File(R"j([{"Name": "a", "Values": "tuple()"}])j"),
       "ConfigurationSpace.TuningParameters[0].Values: \"tuple()\" gives an empty list"},
      {t1File("[" + ok + ", " + ok + "]"),
       "ConfigurationSpace.TuningParameters[1].Name: 'a' names a parameter a second time"},
      {t1File("[" + ok + "]", R"([{"Expression": "a <= b"}])"),
       "ConfigurationSpace.Conditions[0].Expression: expression \"a <= b\": unknown name 'b' at "
       "column 6"},
      {t1File("[" + ok + "]", R"([{"Expression": "a > 0", "Parameters": ["a", "z"]}])"),
       "ConfigurationSpace.Conditions[0].Parameters: names 'z', which is not a tuning parameter"},
      {t1File("[" + ok + "]", R"([{"Parameters": ["a"]}])"),
       "ConfigurationSpace.Conditions[0].Expression: missing (expected a string)"},
  };
  for (const Case& c : cases) {
    const TempFile f(c.content);
    try {
      importT1(f.path);
      ADD_FAILURE() << "no error for " << c.content;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), f.path + ": " + c.message) << c.content;
    }
  }
  EXPECT_THROW(importT1("/nonexistent/t1.json"), InputError);
  // A measured dataset is not a T1 file, and the message says what to use instead.
  const TempFile cache(R"j({"tune_params_keys": ["a"], "cache": {}})j");
  try {
    importT1(cache.path);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a T1 search-space file"), std::string::npos);
  }
}

TEST(T1Space, ConditionFailingForSomeValuesNamesThem) {
  const TempFile f(t1File(R"([{"Name": "a", "Values": "[0, 2]"}, {"Name": "b", "Values": "[1]"}])",
                          R"([{"Expression": "b // a >= 0", "Parameters": ["b"]}])"));
  const T1Space t1 = importT1(f.path);
  ASSERT_EQ(t1.notes.size(), 1u);
  EXPECT_EQ(t1.notes[0],
            "ConfigurationSpace.Conditions[0] uses a but its Parameters do not list it");
  try {
    countValidConfigs(t1.space);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              f.path +
                  ": ConfigurationSpace.Conditions[0].Expression: expression \"b // a >= 0\": "
                  "division by zero at column 3, with a=0, b=1");
  }
}

// What a user's file held: values from list(range(...)) and a tuple, conditions with a tuple
// membership and a bitwise mask.
TEST(T1Space, TuplesBitwiseOperatorsAndListCalls) {
  const TempFile f(t1File(
      R"j([{"Name": "a", "Type": "int", "Values": "list(range(-3,3))"},
          {"Name": "b", "Type": "int", "Values": "(1, 2, 4, 8)"},
          {"Name": "c", "Values": "tuple(['x', 'y'])"}])j",
      R"j([{"Expression": "b in (1, 8) or c == 'y'", "Parameters": ["b", "c"]},
          {"Expression": "(a & 3) == 0 and a >> 1 != b << 1", "Parameters": ["a", "b"]}])j"));
  const T1Space t1 = importT1(f.path);
  EXPECT_EQ(t1.space.param(0).spec(), "discrete:-3,-2,-1,0,1,2");
  EXPECT_EQ(t1.space.param(1).spec(), "discrete:1,2,4,8");
  EXPECT_EQ(t1.space.param(2).spec(), "choice:x,y");
  EXPECT_EQ(t1.parameters[1].valuesExpression, "(1, 2, 4, 8)");
  // (a & 3) == 0 keeps a = 0 only (-3 & 3 is 1, -2 & 3 is 2, -1 & 3 is 3), and a >> 1 is then 0,
  // never 2*b. b in (1, 8) or c == 'y': 2 b's with either c, 2 more with c = y: 6 of 8.
  EXPECT_EQ(countValidConfigs(t1.space), 6u);
}

// A space whose conditions leave nothing valid cannot be tuned; the explanation names the
// condition false everywhere, or says that the conditions exclude one another.
TEST(T1Space, ExplainsWhyNoConfigurationIsValid) {
  const std::string ab =
      R"j([{"Name": "a", "Values": "range(4)"}, {"Name": "b", "Values": "[1, 2, 3, 4]"}])j";
  const TempFile never(t1File(ab, R"([{"Expression": "a < 3"}, {"Expression": "a > 100"}])"));
  const T1Space t1 = importT1(never.path);
  EXPECT_EQ(countValidConfigs(t1.space), 0u);
  EXPECT_EQ(countEachConstraint(t1.space), (std::vector<std::uint64_t>{12, 0}));
  EXPECT_EQ(explainNoValidConfig(t1),
            "ConfigurationSpace.Conditions[1] \"a > 100\" holds for none of the 16 points");
  const TempFile apart(t1File(ab, R"([{"Expression": "a > 1"}, {"Expression": "a + b < 3"}])"));
  const T1Space t2 = importT1(apart.path);
  EXPECT_EQ(countValidConfigs(t2.space), 0u);
  EXPECT_EQ(explainNoValidConfig(t2),
            "each condition holds for some of the 16 points, but no point satisfies all 2 at once "
            "(ConfigurationSpace.Conditions[0] \"a > 1\": 8, ConfigurationSpace.Conditions[1] "
            "\"a + b < 3\": 3)");
  // Too large to enumerate: nothing to say.
  EXPECT_EQ(countEachConstraint(t1.space, 10), std::nullopt);
  EXPECT_EQ(explainNoValidConfig(t1, 10), "");
}

// Found while writing the fuzz target (fuzz/corpus/t1_space/regression-nan-value.json): a value
// that is not a finite number (1e308 * 10 is inf, inf - inf is nan) became a point of the space,
// and a nan, equal to nothing, was then looked up among the values at index -1, out of bounds.
TEST(T1Space, NonFiniteValuesAreRefused) {
  const std::pair<std::string, std::string> cases[] = {
      {R"([{"Name": "a", "Values": "[1e308 * 10 - 1e308 * 10, 1.0]"}])", "value nan"},
      {R"([{"Name": "a", "Type": "float", "Values": "[1, 1e308 * 10]"}])", "value inf"},
      {R"([{"Name": "a", "Values": "[1, -1e308 * 10, 'x']"}])", "value -inf"},
  };
  for (const auto& [parameters, value] : cases) {
    const TempFile f(t1File(parameters));
    try {
      importT1(f.path);
      ADD_FAILURE() << "no error for " << parameters;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()),
                f.path + ": ConfigurationSpace.TuningParameters[0].Values: " + value +
                    " is not a finite number");
    }
  }
}

// Found while writing the fuzz target (fuzz/corpus/t1_space/regression-number-overflow.json): a
// number beyond a double in the JSON itself is refused by the JSON parser with out_of_range, not
// parse_error, and escaped as an internal error.
TEST(T1Space, NumberBeyondADoubleIsAnInputError) {
  const TempFile f(t1File(R"([{"Name": "a", "Values": "[1, 2]", "Default": 1e400}])"));
  try {
    importT1(f.path);
    ADD_FAILURE() << "no error for 1e400";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), f.path + ": not valid JSON: number overflow parsing '1e400'");
  }
}

}  // namespace
}  // namespace opevo
