#include "ops/operator_json.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>

#include "common/error.h"
#include "kas/kas_json.h"
#include "layout/operand_layouts.h"
#include "net/network_json.h"
#include "ops/presets.h"

namespace opevo {
namespace {

std::string errorOf(const char* text) {
  try {
    operatorDefinitionFromJson(nlohmann::json::parse(text), "my_op.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string errorOf(const std::string& text) {
  return errorOf(text.c_str());
}

TEST(OperatorJson, RoundTripsEveryPreset) {
  for (const std::string& name : presetNames()) {
    const OperatorSpec op = preset(name);
    const OperatorSpec back = operatorFromJson(operatorToJson(op), name);
    EXPECT_EQ(back.describe(), op.describe()) << name;
    EXPECT_DOUBLE_EQ(back.flops(), op.flops());
  }
}

TEST(OperatorJson, UserDefinedWithSpaceOverride) {
  const auto def = operatorDefinitionFromJson(nlohmann::json::parse(R"({
    "name": "small_conv", "kind": "conv2d", "dtype": "fp32",
    "shape": {"batch": 2, "in_channels": 8, "height": 13, "width": 13, "out_channels": 12,
              "kernel_h": 3, "kernel_w": 3, "stride": 2, "pad": 1},
    "space": {"auto_unroll_max_step": "discrete:0,16,64"}})"),
                                              "small_conv.json");
  EXPECT_EQ(def.op.outHeight(), 7);
  EXPECT_EQ(def.space.dims(), 8u);
  EXPECT_EQ(def.space.param(def.space.indexOf("auto_unroll_max_step")).spec(), "discrete:0,16,64");
  EXPECT_EQ(def.space.constraints().size(), 1u);
}

TEST(OperatorJson, TargetGpuRoundTripsItsSpace) {
  const OperatorDefinition common = loadOperator("MM1");
  EXPECT_EQ(common.target, SpaceTarget::Common);
  EXPECT_FALSE(operatorDefinitionToJson(common).contains("target"));
  const OperatorDefinition gpu = withSpaceTarget(common, SpaceTarget::Gpu);
  EXPECT_EQ(gpu.space.indexOf("split_k"), 3);
  const nlohmann::json j = operatorDefinitionToJson(gpu);
  EXPECT_EQ(j.at("target"), "gpu");
  const OperatorDefinition back = operatorDefinitionFromJson(j, "stored run");
  EXPECT_EQ(back.space.dims(), 5u);
  EXPECT_EQ(back.space.constraints().size(), gpu.space.constraints().size());
  EXPECT_EQ(withSpaceTarget(back, SpaceTarget::Common).space.dims(), 3u);
  EXPECT_NE(errorOf(R"({"name": "m", "kind": "matmul", "shape": {"n": 8, "k": 8, "m": 8},
                        "target": "tpu"})")
                .find("unknown space target 'tpu'"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"name": "m", "kind": "matmul", "shape": {"n": 8, "k": 8, "m": 8},
                        "target": "gpu", "space": {"stages": "discrete:2"}})")
                .find("'stages' is fixed by the GPU template"),
            std::string::npos);
}

// An override keeps to what the template reads: unroll_explicit's own choices, and unroll steps
// as whole numbers an int holds (a step of 1e300 became a negative number in the kernel, "yes"
// failed every trial at code generation).
TEST(OperatorJson, OverridesKeepToWhatTheTemplateReads) {
  const std::string conv = R"({"name": "c", "kind": "conv2d", "shape": {"batch": 1, "in_channels":
      4, "out_channels": 8, "height": 9, "width": 9, "kernel_h": 3, "kernel_w": 3, "stride": 1,
      "pad": 1},
      "space": )";
  EXPECT_NE(errorOf(conv + R"({"unroll_explicit": "choice:yes,no"}})")
                .find("parameter 'unroll_explicit' has no choice 'yes' (the template's: 0,1)"),
            std::string::npos)
      << errorOf(conv + R"({"unroll_explicit": "choice:yes,no"}})");
  for (const char* bad : {"discrete:-5,0", "discrete:0.5,1.5", "discrete:0,1e300"})
    EXPECT_NE(errorOf(conv + R"({"auto_unroll_max_step": ")" + bad + R"("}})")
                  .find("'auto_unroll_max_step' takes whole numbers from 0 to 1048576"),
              std::string::npos)
        << bad;
  const OperatorDefinition fine = operatorDefinitionFromJson(
      nlohmann::json::parse(conv + R"({"unroll_explicit": "choice:1", "auto_unroll_max_step":
          "discrete:0,4096"}})"),
      "c.json");
  EXPECT_EQ(fine.space.param(fine.space.indexOf("unroll_explicit")).size(), 1);
}

TEST(OperatorJson, BadInputNamesTheField) {
  // One message for every wrong mode: an unknown one listed joint-np, which no operator takes.
  for (const char* mode : {R"("bogus")", "5"})
    EXPECT_EQ(errorOf(std::string(R"({"kind": "matmul", "shape": {"n": 4, "m": 4, "k": 4},
                                      "mode": )") +
                      mode + "}"),
              std::string("my_op.json: field 'mode' must be \"loop\" or \"joint\", got ") + mode);
  EXPECT_NE(errorOf(R"({"kind": "matmul", "shape": {"n": 4, "m": 4, "k": 4}, "mode": "joint-np"})")
                .find("mode joint-np is for networks"),
            std::string::npos);
  // Found by fuzzing (fuzz/corpus/operator_json/regression-dtype-not-a-string.json).
  EXPECT_NE(errorOf(R"({"kind": "matmul", "dtype": {"n": 1}, "shape": {"n": 4, "m": 4, "k": 4}})")
                .find("field 'dtype' must be a string"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"kind": "matmul", "shape": {"n": 4, "m": 4}})").find("'k'"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"kind": "matmul", "shape": {"n": 4, "m": 4, "kk": 4}})")
                .find("unknown shape field 'kk'"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"knd": "matmul"})").find("unknown operator field 'knd'"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"kind": "matmult", "shape": {}})").find("unknown kind"), std::string::npos);
  EXPECT_NE(errorOf(R"({"kind": "matmul", "shape": {"n": 0, "m": 4, "k": 4}})")
                .find("n must be a positive"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"kind": "matmul", "shape": {"n": -3, "m": 4, "k": 4}})").find("positive"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"kind": "conv2d", "shape": {"in_channels": 3, "height": 4, "width": 4,
            "out_channels": 8, "kernel_h": 7, "kernel_w": 7}})")
                .find("output would be empty"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"kind": "matmul", "dtype": "fp16", "shape": {"n": 4, "m": 4, "k": 4}})")
                .find("fp16"),
            std::string::npos);
  EXPECT_NE(
      errorOf(
          R"({"kind": "matmul", "shape": {"n": 4, "m": 4, "k": 4}, "space": {"tile_k": "factor:4:2"}})")
          .find("fixed by the shape"),
      std::string::npos);
  // A space entry's own mistakes name the file too, and an unknown name lists the template's.
  const char* conv = R"({"kind": "conv2d", "shape": {"in_channels": 16, "height": 14, "width": 14,
      "out_channels": 16, "kernel_h": 3, "kernel_w": 3}, "space": {"auto_unroll_max_step": )";
  EXPECT_EQ(errorOf(std::string(conv) + R"("discrete:"}})").rfind("my_op.json: discrete", 0), 0u)
      << errorOf(std::string(conv) + R"("discrete:"}})");
  EXPECT_EQ(errorOf(std::string(conv) + R"("discrete:a,b"}})").rfind("my_op.json: ", 0), 0u);
  EXPECT_NE(
      errorOf(
          R"({"kind": "matmul", "shape": {"n": 4, "m": 4, "k": 4}, "space": {"tile_zz": "factor:4:2"}})")
          .find("unknown parameter 'tile_zz' (the loop template of this matmul has tile_n, tile_m, "
                "tile_k)"),
      std::string::npos);
  // Found by fuzz_operator_json (fuzz/corpus/operator_json/regression-name-not-a-string.json).
  EXPECT_NE(errorOf(R"({"name": {"n": 96, "m": 128, "k": 64}})").find("'name' must be a string"),
            std::string::npos);
  // A large prime loop length is fine: its factor parameter has nu vertices.
  EXPECT_EQ(errorOf(R"({"kind": "matmul", "shape": {"n": 1000003, "m": 4, "k": 4}})"), "no error");
}

// `tune --mode joint` on a file with the joint template's unroll_c was refused with the loop
// template's list; a joint file keeping the loop template's auto_unroll_max_step was refused
// naming no template. The overrides are checked against the template of the mode used (the
// file's, or the one asked for), and the message names that template and the one that has it.
TEST(OperatorJson, OverridesAreCheckedAgainstTheTemplateOfTheModeUsed) {
  const std::string conv = R"({"name": "lj", "kind": "conv2d", "shape": {"batch": 1,
      "in_channels": 4, "height": 8, "width": 8, "out_channels": 8, "kernel_h": 3,
      "kernel_w": 3}, )";
  const nlohmann::json joint =
      nlohmann::json::parse(conv + R"("space": {"unroll_c": "choice:1,2"}})");
  try {
    operatorDefinitionFromJson(joint, "lj.json");
    FAIL() << "unroll_c accepted by the loop template";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(
        what.find("unknown parameter 'unroll_c' (the loop template of this conv2d has tile_f"),
        std::string::npos)
        << what;
    EXPECT_NE(what.find("it is a parameter of the joint template: tune with --mode joint"),
              std::string::npos)
        << what;
  }
  const OperatorDefinition asJoint =
      operatorDefinitionFromJson(joint, "lj.json", layout::TuningMode::Joint);
  EXPECT_EQ(asJoint.mode, layout::TuningMode::Joint);
  const Parameter& unroll = asJoint.space.param(asJoint.space.indexOf("unroll_c"));
  EXPECT_EQ(unroll.spec(), "choice:1,2");

  nlohmann::json loop = nlohmann::json::parse(
      conv + R"("mode": "joint", "space": {"auto_unroll_max_step": "discrete:0,16"}})");
  try {
    operatorDefinitionFromJson(loop, "l.json");
    FAIL() << "auto_unroll_max_step accepted by the joint template";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("(the joint template of this conv2d has layout.out_c"),
              std::string::npos)
        << e.what();
  }
  // --mode loop reads the joint file for the loop template, whose parameter it is.
  EXPECT_EQ(operatorDefinitionFromJson(loop, "l.json", layout::TuningMode::Loop).mode,
            layout::TuningMode::Loop);
  // A preset asked for in a mode is that preset's space in that mode.
  EXPECT_TRUE(layout::isLayoutSpace(loadOperator("C1", layout::TuningMode::Joint).space));
}

// A "target" whose template does not take the operator: the shape is right, the field is wrong,
// so the message names the file and the field, as the file's other mistakes do (it named the
// operator alone: "w: the Winograd template takes ...; this is not a Conv2D").
TEST(OperatorJson, ATargetThatDoesNotFitNamesTheFileAndTheField) {
  EXPECT_EQ(errorOf(R"({"name": "w", "kind": "matmul", "target": "winograd",
                        "shape": {"m": 64, "k": 4, "n": 4}})"),
            "my_op.json: \"target\": \"winograd\" does not fit operator 'w': the Winograd "
            "template takes ungrouped stride-1 Conv2Ds with square kernels of 2 to 5 taps; this is "
            "not a Conv2D");
  const std::string conv = R"({"name": "v", "kind": "conv2d", "target": "TARGET", "shape":
      {"in_channels": 4, "height": 8, "width": 8, "out_channels": 4, "kernel_h": 3,
       "kernel_w": 3}})";
  for (const std::string target : {"matvec", "matvec-gpu"}) {
    std::string text = conv;
    text.replace(text.find("TARGET"), 6, target);
    EXPECT_EQ(errorOf(text), "my_op.json: \"target\": \"" + target +
                                 "\" does not fit operator 'v': the matrix-vector template takes "
                                 "MatMul or BatchMatMul with B stored transposed (m x k, as dense "
                                 "layers store weights) and at most 16 rows of A; this is not a "
                                 "MatMul");
  }
  // A target the operator fits is read as before; asked for by a program (withSpaceTarget), a
  // misfit names the operator, the caller naming what asked for it.
  std::string fits = conv;
  fits.replace(fits.find("TARGET"), 6, "winograd");
  EXPECT_EQ(errorOf(fits), "no error");
  try {
    withSpaceTarget(loadOperator("MM1"), SpaceTarget::Winograd);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("MM1: the Winograd template takes", 0), 0) << e.what();
  }
  try {
    requireTemplateFits(preset("C1"), SpaceTarget::MatVec, "--template matvec");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--template matvec does not fit operator 'C1': the "
                                          "matrix-vector template takes",
                                          0),
              0)
        << e.what();
  }
}

// A Winograd target in a file that tunes layouts (its own "mode", or the command's --mode): the
// file's field and the mode are named (it said "v: the Winograd template reads and writes ...").
TEST(OperatorJson, ATemplateTargetWithLayoutsTunedNamesTheFieldAndTheMode) {
  const auto json = nlohmann::json::parse(R"({"name": "v", "kind": "conv2d", "mode": "joint",
      "target": "winograd", "shape": {"in_channels": 4, "height": 8, "width": 8,
      "out_channels": 4, "kernel_h": 3, "kernel_w": 3, "pad": 1}})");
  EXPECT_EQ(errorOf(json.dump()),
            "my_op.json: \"target\": \"winograd\" with \"mode\": \"joint\": that template "
            "reads and writes the plain layouts; layouts are tuned with the direct template (no "
            "\"target\")");
  nlohmann::json loop = json;
  loop.erase("mode");
  try {
    operatorDefinitionFromJson(loop, "my_op.json", layout::TuningMode::Joint);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "my_op.json: \"target\": \"winograd\" with --mode joint: that template", 0),
              0)
        << e.what();
  }
  EXPECT_EQ(errorOf(loop.dump()), "no error");
}

TEST(OperatorJson, LoadOperatorExplainsWhatItAccepts) {
  EXPECT_EQ(loadOperator("MM1").op.name, "MM1");
  try {
    loadOperator("MM7");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("neither a preset"), std::string::npos);
  }
}

// A number beyond a double (found by fuzzing the T1 and dataset readers): the JSON parser throws
// out_of_range for it, not parse_error; every file reader must still answer with InputError.
TEST(OperatorJson, AFileWithANumberBeyondADoubleIsAnInputErrorInEveryReader) {
  char path[] = "/tmp/opevo-overflow-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::ofstream(path) << R"({"name": "x", "kind": "matmul", "shape": {"n": 1e400}})";
  const auto refused = [&](const std::function<void()>& read) {
    try {
      read();
    } catch (const InputError& e) {
      return std::string(e.what()).find(path) != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(refused([&] { loadOperator(path); }));
  EXPECT_TRUE(refused([&] { net::loadNetwork(path); }));
  EXPECT_TRUE(refused([&] { kas::loadKernel(path); }));
  std::remove(path);
}

// A key twice in one object: the JSON parser keeps the last value quietly ("kind" twice read as
// a conv2d with a matmul's shape, a second "n" won). Every file reader refuses it by name; the
// same key in two objects is fine.
TEST(OperatorJson, AKeyTwiceInOneObjectIsRefusedByEveryReader) {
  char path[] = "/tmp/opevo-twice-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::ofstream(path) << R"({"name": "x", "kind": "matmul", "shape": {"n": 8, "m": 8, "k": 8,
                             "n": 16}})";
  const auto refused = [&](const std::function<void()>& read) {
    try {
      read();
    } catch (const InputError& e) {
      const std::string what = e.what();
      return what.find(path) != std::string::npos &&
             what.find("the key 'n' appears twice in one object") != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(refused([&] { loadOperator(path); }));
  EXPECT_TRUE(refused([&] { net::loadNetwork(path); }));
  EXPECT_TRUE(refused([&] { kas::loadKernel(path); }));
  std::ofstream(path) << R"({"name": "x", "kind": "matmul", "shape": {"n": 8, "m": 8, "k": 8},
                             "space": {}})";
  EXPECT_EQ(loadOperator(path).op.n, 8);
  std::remove(path);
}

}  // namespace
}  // namespace opevo
