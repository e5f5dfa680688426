// One T4 file read both ways, as measurements (loadReplayDataset, the plain import) and as the run
// it was (readRestoreFile, --restore), is refused by both with one message that names the result
// by its JSON index; and what neither refused before (a wrong type, an unknown version or
// algorithm, a throughput that does not match its time) is refused by both. Real files: one of
// our committed GPU runs, edited and written to a temp dir.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "common/error.h"
#include "io/gzip_file.h"
#include "io/replay_dataset.h"
#include "io/run_restore.h"
#include "ops/operator_json.h"
#include "store/run_operator.h"
#include "temp_dir.h"

namespace opevo {
namespace {

using Json = nlohmann::json;

// An opevo-m run of MM1 on the H200, in TFLOPS, exported before the seed and operator were.
Json committedRun() {
  return Json::parse(readMaybeGzipped(std::string(OPEVO_SOURCE_DIR) +
                                      "/resources/measurements/h200/2026-11-27/"
                                      "MM1_opevo-m_seed1.json.gz"));
}

RestoreOptions mm1Seed1() {
  RestoreOptions options;
  options.seed = 1;
  // As a cuda run stores it: MM1 with the GPU space.
  options.operatorFor = [](const std::string&) {
    return operatorDefinitionToJson(withSpaceTarget(loadOperator("MM1"), SpaceTarget::Gpu)).dump();
  };
  return options;
}

std::string whatOf(const std::function<void()>& read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

// The message of each reader, for the run edited by `edit`.
struct BothReaders {
  std::string imported;
  std::string restored;
};
BothReaders readBoth(const std::function<void(Json&)>& edit) {
  static test::TempDir dir;
  Json doc = committedRun();
  edit(doc);
  const std::string path = dir.file("edited.json");
  std::ofstream(path) << doc.dump();
  return {whatOf([&] { loadReplayDataset(path); }),
          whatOf([&] { readRestoreFile(path, mm1Seed1()); })};
}

Json& firstCorrect(Json& doc, std::size_t from = 0) {
  for (std::size_t i = from; i < doc["results"].size(); ++i)
    if (doc["results"][i]["invalidity"] == "correct") return doc["results"][i];
  throw std::logic_error("no correct result");
}

void expectBothSay(const std::function<void(Json&)>& edit, const std::string& words) {
  const BothReaders r = readBoth(edit);
  EXPECT_NE(r.imported.find(words), std::string::npos) << r.imported;
  EXPECT_EQ(r.imported, r.restored);
}

TEST(T4Check, TheUneditedRunReadsBothWays) {
  const BothReaders r = readBoth([](Json&) {});
  EXPECT_EQ(r.imported, "(accepted)");
  EXPECT_EQ(r.restored, "(accepted)");
}

TEST(T4Check, BothReadersNameAResultByItsIndex) {
  expectBothSay([](Json& d) { d["results"][2]["invalidity"] = "banana"; },
                "results[2].invalidity is 'banana', expected one of correct, compile");
  expectBothSay([](Json& d) { d["results"][3]["configuration"]["extra"] = 1; },
                "results[3].configuration has the parameter 'extra', which results[0]'s does not");
  expectBothSay([](Json& d) { d["results"][3]["configuration"].erase("tile_m"); },
                "results[3].configuration lacks the parameter 'tile_m'");
  expectBothSay([](Json& d) { d["results"][4].erase("times"); },
                "results[4] lacks the required field 'times'");
  // "results[0].configuration is a object, expected an object of parameter values", it said.
  expectBothSay([](Json& d) { d["results"][0]["configuration"] = Json::object(); },
                "results[0].configuration is empty, expected the values of the configuration's "
                "parameters");
  expectBothSay([](Json& d) { d["results"][1]["configuration"] = Json::array(); },
                "results[1].configuration is an array, expected an object of parameter values");
}

TEST(T4Check, BothReadersRefuseWhatTheyDoNotKnow) {
  expectBothSay([](Json& d) { d["metadata"]["timeunit"] = "fortnights"; },
                "metadata.timeunit 'fortnights' is not a known time unit");
  expectBothSay([](Json& d) { d["schema_version"] = "9.9"; },
                "schema_version is '9.9', expected a T4 version this reader knows (1.0.0)");
  expectBothSay([](Json& d) { d["metadata"]["device_name"] = 42; },
                "metadata.device_name is a number, expected a text");
  expectBothSay(
      [](Json& d) {
        for (Json& m : firstCorrect(d)["measurements"])
          if (m["name"] == "time") m["value"] = "fast";
      },
      "(time) is 'fast', expected a number");
}

TEST(T4Check, AThroughputMustMatchItsTimeAndCoverEveryCorrectResult) {
  // 99999 TFLOPS for a kernel whose time says about 20: the speed would crown a wrong best.
  expectBothSay(
      [](Json& d) {
        for (Json& m : firstCorrect(d, 5)["measurements"])
          if (m["name"] == "TFLOPS") m["value"] = 99999;
      },
      "'s TFLOPS (99999) does not match its time");
  // A correct result without its TFLOPS would have turned every result's unit into 1/ms.
  expectBothSay([](Json& d) { firstCorrect(d)["measurements"] = Json::array(); },
                "results[0] is correct but has no TFLOPS measurement, which 299 other correct "
                "results have");
}

// Each time measurement the mean of its runtimes, the throughput from their median: with a few
// slow runs in most results (kernels timed with cold caches), the means lie well above the
// medians. Such a file (an archive opevo had just written of a network run on the CPU) was
// refused: most results' work by their means set the typical figure, and the others' work, by
// either figure, was far from it.
TEST(T4Check, ThroughputsFromMediansPassWhereMostMeansAreInflated) {
  const BothReaders r = readBoth([](Json& d) {
    int k = 0;
    for (Json& result : d["results"]) {
      if (result["invalidity"] != "correct" || k++ % 4 == 1) continue;
      for (Json& m : result["measurements"])
        if (m["name"] == "time") m["value"] = m["value"].get<double>() * 2.8;
    }
  });
  EXPECT_EQ(r.imported, "(accepted)");
  EXPECT_EQ(r.restored, "(accepted)");
}

TEST(T4Check, RestoreRefusesAWrongSeedTypeAnUnknownAlgorithmAndAnotherOperator) {
  const BothReaders seed = readBoth([](Json& d) { d["metadata"]["seed"] = "one"; });
  EXPECT_NE(seed.restored.find("metadata.seed is 'one', expected a whole number"),
            std::string::npos)
      << seed.restored;
  const BothReaders algorithm = readBoth([](Json& d) { d["metadata"]["algorithm"] = "nonesuch"; });
  EXPECT_NE(algorithm.restored.find("metadata.algorithm 'nonesuch' is not an algorithm of this "
                                    "program (opevo, random,"),
            std::string::npos)
      << algorithm.restored;

  test::TempDir dir;
  const std::string path = dir.file("run.json");
  std::ofstream(path) << committedRun().dump();
  RestoreOptions mm2 = mm1Seed1();
  mm2.operatorName = "MM2";
  const std::string what = whatOf([&] { readRestoreFile(path, mm2); });
  EXPECT_NE(what.find("the file's run tuned MM1 (metadata.kernel_name), not MM2"),
            std::string::npos)
      << what;
  RestoreOptions mm1 = mm1Seed1();
  mm1.operatorName = "MM1";
  EXPECT_NO_THROW(readRestoreFile(path, mm1));
}

TEST(T4Check, RestoringOneRunTwiceIsRefusedUnlessACopyIsAskedFor) {
  test::TempDir dir;
  const std::string path = dir.file("run.json");
  std::ofstream(path) << committedRun().dump();
  Store store(dir.file("runs.db"));
  const RestoredRun first = restoreRun(store, path, mm1Seed1());
  const std::string again =
      whatOf([&] { storeRestoredRun(store, readRestoreFile(path, mm1Seed1()), false, "--copy"); });
  EXPECT_NE(again.find("run " + std::to_string(first.runId) + " of " + store.path() +
                       " is this file's run already (MM1, opevo-m, seed 1, started 2026-11-27"),
            std::string::npos)
      << again;
  EXPECT_NE(again.find("nothing stored (--copy)"), std::string::npos) << again;
  EXPECT_EQ(store.runs().size(), 1u);
  const RestoredRun copy = storeRestoredRun(store, readRestoreFile(path, mm1Seed1()), true);
  EXPECT_NE(copy.runId, first.runId);
  EXPECT_EQ(store.runs().size(), 2u);
}

}  // namespace
}  // namespace opevo
