#include "ui/controller/race_definition.h"

#include <gtest/gtest.h>

#include <QTemporaryDir>
#include <fstream>

#include "common/error.h"

// The review: the Runs page read an operator file in the file's own mode and then switched it,
// so a joint race of a Conv2D file overriding unroll_c (a parameter of the joint template only)
// was refused; `opevo tune --mode joint` reads it for the mode given.
namespace opevo::ui {
namespace {

TEST(RaceDefinition, AFileIsReadForTheRacesMode) {
  QTemporaryDir dir;
  const std::string file = dir.filePath(QStringLiteral("lj.json")).toStdString();
  std::ofstream(file) << R"({"name": "lj", "kind": "conv2d", "shape": {"batch": 1,
      "in_channels": 4, "height": 8, "width": 8, "out_channels": 8, "kernel_h": 3,
      "kernel_w": 3}, "space": {"unroll_c": "choice:1,2"}})";
  RaceSpec spec;
  spec.operatorRef = file;
  spec.mode = layout::TuningMode::Joint;
  const OperatorDefinition def = raceDefinition(spec);
  EXPECT_EQ(def.mode, layout::TuningMode::Joint);
  const int unroll = def.space.indexOf("unroll_c");
  ASSERT_GE(unroll, 0) << "the joint template's parameter";
  EXPECT_EQ(def.space.param(static_cast<std::size_t>(unroll)).size().approx(), 2.0)
      << "the file's override kept";
  // The loop template has no unroll_c: the same file raced in loop mode is refused by name.
  spec.mode = layout::TuningMode::Loop;
  try {
    raceDefinition(spec);
    FAIL() << "a loop race took the joint template's parameter";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unroll_c"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace opevo::ui
