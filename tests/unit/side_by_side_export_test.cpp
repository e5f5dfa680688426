// A run's export takes the configuration its side-by-side timing found fastest (opevo tune's last
// step: the run's best few and the library timed in turns), not its fastest trial, whose figure
// was its own luckiest timing; it says so. A stored run in a real SQLite file.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/rng.h"
#include "export/kernel_export.h"
#include "ops/operator_json.h"
#include "store/store.h"
#include "temp_dir.h"

namespace opevo {
namespace {

TEST(SideBySideExport, TheSideBySideWinnerIsExportedAndNamed) {
  const test::TempDir dir;
  Store store((dir.path / "runs.db").string());
  const OperatorDefinition def = operatorDefinitionFromJson(
      nlohmann::json::parse(
          R"({"name": "small_mm", "kind": "matmul", "shape": {"n": 32, "k": 96, "m": 48}})"),
      "test");
  Rng rng(7);
  const std::string fastest = def.space.format(*def.space.randomValid(rng));
  std::string second = fastest;
  while (second == fastest) second = def.space.format(*def.space.randomValid(rng));
  RunRecord r;
  r.operatorName = def.op.name;
  r.operatorJson = operatorDefinitionToJson(def).dump();
  r.algorithm = "opevo-m";
  r.settingsJson = "{}";
  r.backend = "cpu";
  r.device = "a CPU (a record written by this test)";
  r.budgetJson = R"({"trials":2})";
  r.speedUnit = "GFLOP/s";
  std::vector<TrialRow> trials(2);
  for (int i = 0; i < 2; ++i) {
    trials[i].seq = trials[i].order = i + 1;
    trials[i].config = i == 0 ? fastest : second;
    trials[i].timesMs = {0.01};
    trials[i].medianMs = 0.01;
    trials[i].speed = i == 0 ? 50 : 40;
  }
  const std::int64_t id = store.createRunWithTrials(r, trials);
  auto exported = [&](const std::string& name) {
    const ExportResult out = exportRun(store, id, {(dir.path / name).string(), ""});
    std::ifstream in(dir.path / name / "record.json");
    return std::pair{out, nlohmann::json::parse(in)};
  };
  const auto [plain, plainRecord] = exported("plain");
  EXPECT_EQ(plainRecord["configuration"], fastest);
  EXPECT_EQ(plainRecord["chosen_by"], "fastest_trial");
  EXPECT_TRUE(plain.note.empty()) << plain.note;

  store.setRunSideBySide(id, nlohmann::json{{"config", second},
                                            {"chosen_rank", 2},
                                            {"candidates", 3},
                                            {"best_speed", 61.5},
                                            {"reference_speed", 100.0},
                                            {"ratio", 0.615}}
                                 .dump());
  const auto [side, sideRecord] = exported("side");
  EXPECT_EQ(sideRecord["configuration"], second);
  EXPECT_EQ(sideRecord["trial"], 2);
  EXPECT_EQ(sideRecord["chosen_by"], "side_by_side");
  EXPECT_EQ(sideRecord["side_by_side_speed"], 61.5);
  EXPECT_NE(side.note.find("number 2 of 3 by its side-by-side timing (61.5 GFLOP/s there)"),
            std::string::npos)
      << side.note;
  std::ifstream kernel(dir.path / "side" / "kernel.cpp");
  const std::string source((std::istreambuf_iterator<char>(kernel)), {});
  EXPECT_NE(source.find("// Chosen:        the run's number 2 of 3"), std::string::npos);
  EXPECT_EQ(previewBestKernel(store, id, "").configuration, second) << "the window's too";
}

}  // namespace
}  // namespace opevo
