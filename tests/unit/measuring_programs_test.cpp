#include <gtest/gtest.h>

#include "backends/backend_factory.h"
#include "common/child_process.h"
#include "common/error.h"

// The check of the programs that measure a run's trials, which every path that stores a run calls
// first (tune, net tune, the window's races): they stored a run that failed at its first trial
// for a missing worker.
namespace opevo {
namespace {

TEST(MeasuringPrograms, AMissingWorkerIsRefusedBeforeARunIsStored) {
  BackendOptions options;
  options.cpu.workerPath = "/nonexistent/opevo-worker";
  try {
    requireMeasuringPrograms("cpu", options);
    FAIL() << "a missing worker passed";
  } catch (const SystemError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/opevo-worker"), std::string::npos)
        << e.what();
  }
  options.cuda.workerPath = "/nonexistent/opevo-worker";
  EXPECT_THROW(requireMeasuringPrograms("cuda", options), SystemError);
  // A replay measures nothing, so needs no worker.
  EXPECT_NO_THROW(requireMeasuringPrograms("replay", options));
}

// The one lookup of a program on PATH, shared by startChild and the worker's check.
TEST(MeasuringPrograms, OnPathFindsProgramsAsExecDoes) {
  EXPECT_EQ(onPath("sh").empty(), false);
  EXPECT_TRUE(onPath("opevo-no-such-program").empty());
  EXPECT_EQ(onPath("/some/where/x"), "/some/where/x");  // a path is taken as given
  EXPECT_TRUE(isProgramFile("/bin/sh"));
  EXPECT_FALSE(isProgramFile("/bin"));  // a folder is passed over
}

}  // namespace
}  // namespace opevo
