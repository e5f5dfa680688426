// Measurements that are finite yet cannot have been measured (a time of 1e-300 s, 1e308 GFLOP/s)
// in the files measurements enter from: Kernel Tuner caches and T4 files, read as replay
// datasets, by `opevo import` and by `opevo import --restore`. Each reader refuses the file, as it
// refuses its other bad results, naming the file, the entry and the field; a value just inside
// the bounds is read as before (io/measurement_bounds.h).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "io/measurement_bounds.h"
#include "io/replay_dataset.h"
#include "io/run_restore.h"
#include "temp_dir.h"

namespace opevo {
namespace {

using test::TempDir;

std::string write(const TempDir& dir, const std::string& name, const std::string& content) {
  const std::string path = dir.file(name);
  std::ofstream(path) << content;
  return path;
}

// The message of loadReplayDataset's refusal of the file, or "accepted".
std::string refusal(const std::string& path) {
  try {
    loadReplayDataset(path);
    return "accepted";
  } catch (const InputError& e) {
    return e.what();
  }
}

std::string cache(const std::string& entry) {
  return R"({"tune_params_keys": ["a"], "objective": "GFLOP/s", "cache": {
      "1": {"a": 1, "time": 2.0, "times": [2.0, 2.0], "GFLOP/s": 3.0},
      "2": )" +
         entry + "}}";
}

TEST(BadMeasurement, UnitsAreReadForWhatTheyCount) {
  EXPECT_EQ(perSecondIn("GFLOP/s"), 1e9);
  EXPECT_EQ(perSecondIn("GFLOPS"), 1e9);
  EXPECT_EQ(perSecondIn("Gflops"), 1e9);
  EXPECT_EQ(perSecondIn("TFLOPS"), 1e12);
  EXPECT_EQ(perSecondIn("FLOP/s"), 1);
  EXPECT_EQ(perSecondIn("GB/s"), 1e9);
  EXPECT_EQ(perSecondIn("GiB/s"), 1073741824.0);
  EXPECT_EQ(perSecondIn("MB/s"), 1e6);
  // Not FLOP or bytes: no physical bound to hold them to.
  EXPECT_EQ(perSecondIn("Gb/s"), 0);  // bits
  EXPECT_EQ(perSecondIn("items/s"), 0);
  EXPECT_EQ(perSecondIn("1/ms"), 0);
  EXPECT_EQ(perSecondIn("XFLOPS"), 0);
  EXPECT_FALSE(implausibleThroughput(9e17, "FLOP/s"));
  EXPECT_FALSE(implausibleThroughput(1e6, "TFLOPS"));
  EXPECT_TRUE(implausibleThroughput(1.1e6, "TFLOPS"));
  EXPECT_TRUE(implausibleThroughput(1e308, "GFLOP/s"));
  EXPECT_FALSE(implausibleThroughput(1e308, "items/s"));
  EXPECT_FALSE(implausibleTimeMs(1e-6));
  EXPECT_TRUE(implausibleTimeMs(0.9e-6));
  EXPECT_TRUE(implausibleTimeMs(0));
  EXPECT_TRUE(implausibleTimeMs(-1));
}

TEST(BadMeasurement, AKernelTunerCacheEntryIsRefusedByItsField) {
  TempDir dir;
  const std::string speed =
      write(dir, "speed.json", cache(R"({"a": 2, "time": 2.0, "GFLOP/s": 1e308})"));
  EXPECT_EQ(refusal(speed), speed +
                                ": cache entry '2' field 'GFLOP/s' is 1e+308 GFLOP/s, more "
                                "than the 1e+18 a second (1e6 TFLOPS, 1e6 TB/s) that no kernel "
                                "on one device reaches");
  // Its speed is fine: the time it claims is not (the speed did not come from it).
  const std::string time =
      write(dir, "time.json", cache(R"({"a": 2, "time": 1e-300, "GFLOP/s": 3.0})"));
  EXPECT_EQ(refusal(time), time +
                               ": cache entry '2' field 'time' is 1e-300 ms, under the 1e-06 "
                               "ms (1 ns) that timing any kernel takes at the least");
  const std::string zero = write(dir, "zero.json", cache(R"({"a": 2, "time": 0, "GFLOP/s": 3.0})"));
  EXPECT_EQ(refusal(zero), zero + ": cache entry '2' field 'time' is 0 ms, not above 0");
  const std::string runs = write(
      dir, "runs.json", cache(R"({"a": 2, "time": 2.0, "times": [4.0, 1e-300], "GFLOP/s": 3})"));
  EXPECT_NE(refusal(runs).find(runs + ": cache entry '2' field 'times[1]' is 1e-300 ms"),
            std::string::npos)
      << refusal(runs);
  // Without a throughput the speed is 1/time: 1e-300 ms was a finite 1e300 a millisecond.
  const std::string byTime = write(dir, "bytime.json", R"({"tune_params_keys": ["a"], "cache": {
      "1": {"a": 1, "time": 2.0}, "2": {"a": 2, "time": 1e-300}}})");
  EXPECT_NE(refusal(byTime).find(byTime + ": cache entry '2' field 'time' is 1e-300 ms"),
            std::string::npos)
      << refusal(byTime);
  // At the bounds: read, and the fast one wins.
  const std::string edge =
      write(dir, "edge.json", cache(R"({"a": 2, "time": 1e-6, "times": [1e-6], "GFLOP/s": 1e9})"));
  const ReplayDataset ds = loadReplayDataset(edge);
  EXPECT_EQ(ds.bestSpeed, 1e9);
}

std::string t4(const std::string& timeunit, const std::string& time, const std::string& runtimes,
               const std::string& gflops) {
  const auto result = [&](int x, const std::string& t, const std::string& r, const std::string& g) {
    return R"({"configuration": {"x": )" + std::to_string(x) + R"(}, "times": {"runtimes": )" + r +
           R"(}, "invalidity": "correct", "correctness": 1, "measurements": [
        {"name": "time", "value": )" +
           t + R"(, "unit": ""}, {"name": "GFLOP/s", "value": )" + g + R"(, "unit": "GFLOP/s"}]})";
  };
  return R"({"schema_version": "1.0.0", "metadata": {"timeunit": ")" + timeunit +
         R"("}, "results": [)" + result(1, "2", "[2, 2]", "3") + ",\n" +
         result(2, time, runtimes, gflops) + "]}";
}

TEST(BadMeasurement, AT4ResultIsRefusedByItsField) {
  TempDir dir;
  const std::string seconds = write(dir, "s.json", t4("seconds", "1e-300", "[0.002]", "3"));
  EXPECT_EQ(refusal(seconds),
            seconds +
                ": results[1].measurements[0] (time) is 1e-297 ms, under the 1e-06 ms (1 ns) "
                "that timing any kernel takes at the least (1e-300 s as written); a correct "
                "result needs a positive time it can have been measured in");
  const std::string speed = write(dir, "g.json", t4("ms", "2", "[2]", "1e308"));
  EXPECT_EQ(refusal(speed), speed +
                                ": results[1].measurements[1] (GFLOP/s) is 1e+308 GFLOP/s, "
                                "more than the 1e+18 a second (1e6 TFLOPS, 1e6 TB/s) that no "
                                "kernel on one device reaches");
  const std::string runs = write(dir, "r.json", t4("ms", "2", "[2, -1]", "3"));
  EXPECT_NE(refusal(runs).find(runs + ": results[1].times.runtimes[1] is -1 ms, not above 0"),
            std::string::npos)
      << refusal(runs);
  EXPECT_EQ(refusal(write(dir, "fine.json", t4("ms", "2", "[2]", "3"))), "accepted");
}

// `opevo import --restore` reads a run exported by OpEvo Studio with the same check of its
// results (t4::checkDocument): an export whose speed was edited to 1e308 is no run to restore.
TEST(BadMeasurement, ARestoredRunsResultIsRefusedByItsField) {
  TempDir dir;
  nlohmann::json file = nlohmann::json::parse(t4("ms", "2", "[2]", "1e308"));
  file["metadata"]["exported_by"] = "OpEvo Studio test";
  file["metadata"]["kernel_name"] = "MM1";
  file["metadata"]["algorithm"] = "random";
  file["metadata"]["backend"] = "cpu";
  file["metadata"]["speed_unit"] = "GFLOP/s";
  file["metadata"]["seed"] = 1;
  const std::string path = write(dir, "run.json", file.dump());
  RestoreOptions options;
  options.operatorFor = [](const std::string&) { return std::string(R"({"name": "MM1"})"); };
  try {
    readRestoreFile(path, options);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": results[1].measurements[1] (GFLOP/s) is "
                                                 "1e+308 GFLOP/s, more than the 1e+18 a second",
                                          0),
              0)
        << e.what();
  }
}

}  // namespace
}  // namespace opevo
