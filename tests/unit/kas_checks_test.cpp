// The option checks every kas command shares (gpu/kas/kas_checks.h), and that a kernel search
// makes them before it stores anything; the stored figures the report reads
// (core/kas/candidate_front.h).

#include "kas/kas_checks.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "kas/candidate_front.h"
#include "kas/kas_search.h"
#include "store/store.h"

namespace opevo::kas {
namespace {

namespace fs = std::filesystem;

struct TempDb {
  fs::path dir;
  std::string path;
  TempDb() {
    char pattern[] = "/tmp/opevo-kas-checks-XXXXXX";
    dir = mkdtemp(pattern);
    path = (dir / "opevo.db").string();
  }
  ~TempDb() { fs::remove_all(dir); }
};

std::string refusal(const KasSearchSettings& s) {
  try {
    s.check();
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(KasChecks, ASearchRefusesWhatSampleTuneAndTrainRefuseInTheirWords) {
  const KasSearchSettings good;
  EXPECT_EQ(refusal(good), "accepted");
  auto with = [&](auto change) {
    KasSearchSettings s = good;
    change(s);
    return refusal(s);
  };
  EXPECT_EQ(with([](KasSearchSettings& s) { s.groups = 3; }),
            "--groups 3 does not divide the channels of resnet18's replaced convolutions (1, 2, "
            "4, 8, 16, 32, 64 do)");
  EXPECT_NE(with([](KasSearchSettings& s) { s.groups = -4; }).find("--groups -4"),
            std::string::npos);
  EXPECT_NE(
      with([](KasSearchSettings& s) { s.algorithm = "nosuch"; }).find("unknown algorithm 'nosuch'"),
      std::string::npos);
  EXPECT_NE(with([](KasSearchSettings& s) { s.minSpeedup = -1; }).find("--min-speedup"),
            std::string::npos);
  EXPECT_NE(with([](KasSearchSettings& s) { s.training.threads = -1; }).find("--threads -1"),
            std::string::npos);
  EXPECT_NE(with([](KasSearchSettings& s) { s.training.batch = 100000; }).find("--batch 100000"),
            std::string::npos);
  EXPECT_NE(with([](KasSearchSettings& s) {
              s.training.dataDir = "/nonexistent";
            }).find("/nonexistent/train-images-idx3-ubyte.gz: not found"),
            std::string::npos);
  // 0 threads is every core, as the window and stored searches say it.
  EXPECT_EQ(with([](KasSearchSettings& s) { s.training.threads = 0; }), "accepted");
}

// A search stores how its schedules are timed, so a resume times them alike; one stored before
// it did reads as the defaults.
TEST(KasChecks, ASearchStoresHowItsSchedulesAreTimed) {
  KasSearchSettings s;
  s.measuring.compileThreads = 3;
  s.measuring.timeoutSeconds = 7.5;
  s.measuring.timing.minTotalMs = 40;
  s.measuring.cutoffFactor = 0;
  const KasSearchSettings back = KasSearchSettings::fromJson(s.toJson());
  EXPECT_EQ(back.measuring.compileThreads, 3);
  EXPECT_DOUBLE_EQ(back.measuring.timeoutSeconds, 7.5);
  EXPECT_DOUBLE_EQ(back.measuring.timing.minTotalMs, 40);
  EXPECT_DOUBLE_EQ(back.measuring.cutoffFactor, 0);
  nlohmann::json old = s.toJson();
  old.erase("measuring");
  const KasMeasurerOptions defaults;
  const KasSearchSettings before = KasSearchSettings::fromJson(old);
  EXPECT_DOUBLE_EQ(before.measuring.timeoutSeconds, defaults.timeoutSeconds);
  EXPECT_DOUBLE_EQ(before.measuring.cutoffFactor, defaults.cutoffFactor);
  EXPECT_DOUBLE_EQ(before.measuring.timing.minTotalMs, defaults.timing.minTotalMs);
  old["measuring"] = {{"timeout", "soon"}};
  EXPECT_THROW(KasSearchSettings::fromJson(old), InputError);

  s.measuring.timing.minTotalMs = 7500;
  EXPECT_EQ(
      refusal(s),
      "--min-time-ms 7500 is not under the trial timeout of 7.5 s: no trial could time the runs "
      "asked; raise --timeout or lower --min-time-ms");
  s.measuring.timing.minTotalMs = 40;
  s.measuring.timeoutSeconds = 0;
  EXPECT_NE(refusal(s).find("--timeout 0"), std::string::npos);
}

TEST(KasChecks, ABadSettingStoresNoSearch) {
  TempDb db;
  Store store(db.path);
  KasSearchSettings s;
  s.algorithm = "nosuch";
  EXPECT_THROW(KasSearch(store, s), InputError);
  s = {};
  s.groups = 3;
  EXPECT_THROW(KasSearch(store, s), InputError);
  EXPECT_TRUE(store.kasSearches().empty());
}

TEST(KasCandidateFront, ABaselineNotTrainedYetHasNoAccuracy) {
  KasSearchRecord r;
  EXPECT_FALSE(baselineAccuracy(r));  // not 0%
  r.baselineJson = R"({"convolution": {}})";
  EXPECT_FALSE(baselineAccuracy(r));
  r.baselineJson = R"({"accuracy": 0.17})";
  EXPECT_DOUBLE_EQ(baselineAccuracy(r).value_or(-1), 0.17);
}

TEST(KasCandidateFront, LayerTimesAreWhatKernelMsSums) {
  KasCandidateRow c;
  c.tuningJson = nlohmann::json::array({{{"layer", "a"},
                                         {"count", 4},
                                         {"ms", 0.5},
                                         {"best_trial_ms", 0.45},
                                         {"schedule", "s"},
                                         {"notes", "of 3 trials: 1 gave a wrong result"}},
                                        // Stored before best_trial_ms: the curve left the start
                                        // schedule out, which was faster here.
                                        {{"layer", "b"},
                                         {"count", 3},
                                         {"ms", 0.2},
                                         {"default_ms", 0.19},
                                         {"curve_ms", {0.3, 0.25}}}})
                     .dump();
  const std::vector<LayerTime> t = layerTimes(c);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].layer, "a");
  EXPECT_EQ(t[0].count, 4);
  EXPECT_DOUBLE_EQ(t[0].chosenMs, 0.5);
  EXPECT_DOUBLE_EQ(t[0].bestTrialMs.value_or(0), 0.45);
  EXPECT_DOUBLE_EQ(t[1].bestTrialMs.value_or(0), 0.19);
  EXPECT_EQ(t[0].notes, "of 3 trials: 1 gave a wrong result");
  EXPECT_EQ(t[1].notes, "");  // stored before notes were
  EXPECT_TRUE(layerTimes(KasCandidateRow{}).empty());
}

}  // namespace
}  // namespace opevo::kas
