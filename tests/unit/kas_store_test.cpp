#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "kas/backbone.h"
#include "kas/candidate_front.h"
#include "kas/conv_targets.h"
#include "kas/kernel_fit.h"
#include "kas/pareto.h"
#include "kas/sampler.h"
#include "net/network_json.h"
#include "store/store.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

struct TempDb {
  fs::path dir;
  std::string path;
  TempDb() {
    char pattern[] = "/tmp/opevo-kas-store-XXXXXX";
    dir = mkdtemp(pattern);
    path = (dir / "opevo.db").string();
  }
  ~TempDb() { fs::remove_all(dir); }
};

TEST(KasStore, ACandidateMovesThroughItsStagesAndSurvivesReopening) {
  TempDb db;
  std::int64_t id = 0;
  {
    Store store(db.path);
    KasSearchRecord s;
    s.network = "resnet18";
    s.settingsJson = R"({"candidates": 2})";
    id = store.createKasSearch(s);
    KasCandidateRow c;
    c.searchId = id;
    c.seq = 1;
    c.hash = "0123456789abcdef";
    c.kernelJson = R"({"format": "opevo-kas-kernel"})";
    c.groups = 4;
    c.flopsRatio = 0.4;
    c.paramsRatio = 0.3;
    store.putKasCandidate(c);
    EXPECT_FALSE(store.kasCandidates(id).front().kernelMs.has_value());
    c.stage = KasStage::Tuned;
    c.kernelMs = 2.0;
    c.convMs = 3.0;
    c.tuneSeconds = 12;
    store.putKasCandidate(c);
    c.stage = KasStage::Trained;
    c.accuracy = 0.875;
    c.stoppedEarly = true;
    store.putKasCandidate(c);
    store.setKasSearchBaseline(id, R"({"accuracy": 0.9})");
    store.setKasSearchStatus(id, RunStatus::Interrupted);
  }
  Store store(db.path);
  const auto searches = store.kasSearches();
  ASSERT_EQ(searches.size(), 1u);
  EXPECT_EQ(searches[0].status, RunStatus::Interrupted);
  EXPECT_FALSE(searches[0].ended.empty());
  EXPECT_EQ(searches[0].baselineJson, R"({"accuracy": 0.9})");
  const auto all = store.kasCandidates(id);
  ASSERT_EQ(all.size(), 1u);  // written three times, one row
  EXPECT_EQ(all[0].stage, KasStage::Trained);
  EXPECT_EQ(all[0].groups, 4);
  EXPECT_DOUBLE_EQ(*all[0].speedup(), 1.5);
  EXPECT_DOUBLE_EQ(*all[0].accuracy, 0.875);
  EXPECT_TRUE(all[0].stoppedEarly);
  EXPECT_DOUBLE_EQ(all[0].tuneSeconds, 12);
  EXPECT_FALSE(store.kasSearch(id + 1).has_value());
}

TEST(KasPareto, KeepsOnlyUndominatedPointsFastestFirst) {
  const std::vector<kas::ParetoPoint> points = {{1.0, 0.90}, {1.5, 0.88}, {1.2, 0.87}, {2.0, 0.80},
                                                {1.5, 0.88}, {0.8, 0.91}, {2.0, 0.79}};
  // (1.2, 0.87) is beaten by (1.5, 0.88); (2.0, 0.79) by (2.0, 0.80); equal points both stay.
  EXPECT_EQ(kas::paretoFront(points), (std::vector<std::size_t>{3, 1, 4, 0, 5}));
  EXPECT_TRUE(kas::paretoFront({}).empty());
}

// A trained candidate with figures, as a search stores it; `diverged` as its training reports it.
KasCandidateRow trainedCandidate(int seq, double speedup, double accuracy, bool diverged = false) {
  KasCandidateRow c;
  c.seq = seq;
  c.stage = KasStage::Trained;
  c.kernelMs = 10;
  c.convMs = 10 * speedup;
  c.accuracy = accuracy;
  c.trainingJson = nlohmann::json{{"curve", {accuracy}}, {"diverged", diverged}}.dump();
  return c;
}

TEST(KasCandidateFront, ADivergedTrainingIsNeitherOnTheFrontNorTheBestChoice) {
  // #3 is the fastest and, its baseline being weak, even within a point of it; but its training
  // diverged, so its accuracy says nothing of the kernel. Counted, it would push #1 off the front.
  const std::vector<KasCandidateRow> all = {
      trainedCandidate(1, 2.0, 0.30), trainedCandidate(2, 1.2, 0.34),
      trainedCandidate(3, 3.0, 0.30, true), trainedCandidate(4, 1.1, 0.20)};
  const auto candidates = kas::pointersTo(all);
  EXPECT_TRUE(kas::trainingDiverged(all[2]));
  EXPECT_FALSE(kas::trainingDiverged(all[0]));
  EXPECT_TRUE(kas::plotted(all[2]));  // still drawn, with its own marker
  EXPECT_EQ(kas::frontSeqs(candidates), (std::vector<int>{1, 2}));
  const KasCandidateRow* best = kas::bestWithinLoss(candidates, 0.31, 0.01);
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(best->seq, 1);
  EXPECT_EQ(kas::bestWithinLoss(candidates, 0.9, 0.01), nullptr);
}

TEST(KasKernelFit, OneGroupCountFitsTheNetworkAndTheBackboneTogether) {
  const auto net = kas::replaceableConvolutions(net::loadNetwork("resnet18"));
  const auto backbone = kas::backboneTargets();
  std::vector<kas::ConvTarget> all = net;
  all.insert(all.end(), backbone.begin(), backbone.end());
  Rng rng(3);
  int fitted = 0;
  for (const auto& dag : kas::sampleDistinct(5, 40, {}, nullptr)) {
    const auto order = kas::groupOrder(all, 0, &rng);
    const auto fit = kas::fitKernel(dag, {net, backbone}, order, {});
    if (!fit) continue;
    ++fitted;
    ASSERT_EQ(fit->solutions.size(), 2u);
    for (const auto& t : all) EXPECT_EQ(t.channels % fit->groups, 0) << t.name;
    EXPECT_EQ(fit->solutions[0].layers.size(), net.size());
    EXPECT_EQ(fit->solutions[1].layers.size(), backbone.size());
    for (const auto& s : fit->solutions) {
      EXPECT_LE(s.flops, 0.5 * s.convFlops * (1 + 1e-9));
      EXPECT_LE(s.params, 0.5 * s.convParams * (1 + 1e-9));
    }
  }
  EXPECT_GT(fitted, 20);
}

}  // namespace
}  // namespace opevo
