// `opevo import`, `opevo export-t4` and `opevo t1` run as a user would, on the shipped files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/gzip_file.h"
#include "run_process.h"
#include "store/run_operator.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

std::string dataset(const std::string& relative) {
  return std::string(OPEVO_DATASETS_DIR) + "/" + relative;
}

struct TempDir {
  fs::path path;
  TempDir() {
    char pattern[] = "/tmp/opevo-cli-interchange-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

// An error is one line on stderr naming what was wrong, nothing on stdout, and exit status 2.
void expectUsageError(const ProcessResult& r, const std::string& mentions) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliInterchange, ImportExportImport) {
  TempDir dir;
  const std::string db = dir.file("opevo.db");
  const auto imported =
      runProcess(OPEVO_CLI, {"import", dataset("convolution_milo/A100_T4.json.gz"), "--db", db});
  ASSERT_EQ(imported.status, 0) << imported.err;
  EXPECT_EQ(imported.out, "1\n");  // the id alone, for scripts
  EXPECT_NE(imported.err.find("imported 4362 trials (t4"), std::string::npos) << imported.err;
  // Listed as what it is: another tool's measurements, not a loop space of ours.
  const auto listed = runProcess(OPEVO_CLI, {"runs", "--json", "--db", db});
  ASSERT_EQ(listed.status, 0) << listed.err;
  EXPECT_EQ(nlohmann::json::parse(listed.out).at(0).at("mode"), "imported") << listed.out;

  const std::string t4 = dir.file("run1.json.gz");
  const auto exported = runProcess(OPEVO_CLI, {"export-t4", "1", "--out", t4, "--db", db});
  ASSERT_EQ(exported.status, 0) << exported.err;
  EXPECT_EQ(exported.out, "wrote 4362 results of run 1 to " + t4 + "\n");
  const auto doc = nlohmann::json::parse(readMaybeGzipped(t4));
  EXPECT_EQ(doc["schema_version"], "1.0.0");
  EXPECT_EQ(doc["results"].size(), 4362u);

  const auto again = runProcess(OPEVO_CLI, {"import", t4, "--db", db});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(again.out, "2\n");
  const Store store(db);
  ASSERT_EQ(store.runs().size(), 2u);
  const auto first = store.trials(1);
  const auto second = store.trials(2);
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].config, second[i].config);
    EXPECT_EQ(first[i].status, second[i].status);
    EXPECT_EQ(first[i].timesMs, second[i].timesMs);
    EXPECT_DOUBLE_EQ(first[i].speed, second[i].speed);
  }
}

TEST(CliInterchange, DefaultDatabaseFollowsXdg) {
  TempDir dir;
  // Before anything is stored, reading says so and creates neither the file nor its folders.
  const auto none =
      runProcess("/usr/bin/env", {"XDG_DATA_HOME=" + dir.path.string(), OPEVO_CLI, "show", "1"});
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("no database yet at '" + dir.file("opevo-studio/opevo.db") + "'"),
            std::string::npos)
      << none.err;
  EXPECT_FALSE(fs::exists(dir.file("opevo-studio")));
  const auto r = runProcess("/usr/bin/env", {"XDG_DATA_HOME=" + dir.path.string(), OPEVO_CLI,
                                             "import", dataset("convolution_milo/A100.json.gz")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1\n");
  const std::string db = dir.file("opevo-studio/opevo.db");
  ASSERT_TRUE(fs::exists(db));
  const Store store(db);
  ASSERT_EQ(store.runs().size(), 1u);
  EXPECT_EQ(store.runs()[0].device, "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(store.runs()[0].backend, "replay-import");
}

TEST(CliInterchange, T1PrintsTheSpaceAndItsValidCount) {
  const auto conv = runProcess(OPEVO_CLI, {"t1", dataset("kernels/convolution_milo.json")});
  ASSERT_EQ(conv.status, 0) << conv.err;
  EXPECT_NE(conv.out.find("kernel:    convolution_kernel (CUDA)"), std::string::npos) << conv.out;
  EXPECT_NE(
      conv.out.find("block_size_y                 int     discrete       5  [1, 2, 4, 8, 16]"),
      std::string::npos)
      << conv.out;
  EXPECT_NE(conv.out.find("  2. block_size_x*block_size_y<=1024"), std::string::npos) << conv.out;
  EXPECT_NE(conv.out.find("10240 Cartesian points, 4362 valid"), std::string::npos) << conv.out;
  const auto dedisp = runProcess(OPEVO_CLI, {"t1", dataset("kernels/dedispersion_milo.json")});
  ASSERT_EQ(dedisp.status, 0) << dedisp.err;
  EXPECT_NE(dedisp.out.find("22272 Cartesian points, 11130 valid"), std::string::npos);
  const auto capped = runProcess(
      OPEVO_CLI, {"t1", dataset("kernels/dedispersion_milo.json"), "--max-points", "1000"});
  ASSERT_EQ(capped.status, 0) << capped.err;
  EXPECT_NE(capped.out.find("valid ones not counted"), std::string::npos) << capped.out;
}

// The lease of 2026-11-27, committed as T4 files, goes back into a database as the GPU runs they
// were: what a new checkout's GPU campaign starts from (scripts/gpu-campaign restore).
TEST(CliInterchange, RestoresACommittedGpuRun) {
  TempDir dir;
  const std::string db = dir.file("opevo.db");
  const std::string file =
      std::string(OPEVO_DATASETS_DIR) + "/../measurements/h200/2026-11-27/MM1_opevo_seed1.json.gz";
  // Exported before the seed and the operator were written into the file: both must be given.
  expectUsageError(runProcess(OPEVO_CLI, {"import", "--restore", file, "--op", "MM1", "--db", db}),
                   "give it (--seed N)");
  expectUsageError(runProcess(OPEVO_CLI, {"import", "--restore", file, "--seed", "1", "--db", db}),
                   "give it (--op PRESET or FILE)");
  expectUsageError(runProcess(OPEVO_CLI, {"import", file, "--seed", "1", "--db", db}),
                   "--op and --seed are for --restore");
  // --op names the run's operator: another than the file's is refused, not ignored.
  expectUsageError(runProcess(OPEVO_CLI, {"import", "--restore", file, "--op", "MM2", "--seed", "1",
                                          "--db", db}),
                   "the file's run tuned MM1 (metadata.kernel_name), not MM2");
  expectUsageError(runProcess(OPEVO_CLI, {"import", file, "--copy", "--db", db}),
                   "--copy is for --restore");
  // C2 is not the run's operator (its space would not hold MM1's configurations either).
  expectUsageError(
      runProcess(OPEVO_CLI, {"import", "--restore", file, "--op", "C2", "--seed", "1", "--db", db}),
      "the file's run tuned MM1 (metadata.kernel_name), not C2");
  EXPECT_TRUE(Store(db).runs().empty());

  const auto r = runProcess(
      OPEVO_CLI, {"import", "--restore", file, "--op", "MM1", "--seed", "1", "--db", db});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1\n");
  EXPECT_NE(r.err.find("restored run 1"), std::string::npos) << r.err;
  const Store store(db);
  const RunRecord run = *store.run(1);
  EXPECT_EQ(run.operatorName, "MM1");
  EXPECT_EQ(run.algorithm, "opevo");
  EXPECT_EQ(run.backend, "cuda");
  EXPECT_EQ(run.seed, 1u);
  EXPECT_EQ(run.status, RunStatus::Finished);
  EXPECT_NE(run.device.find("NVIDIA H200"), std::string::npos) << run.device;
  EXPECT_NE(run.referenceLibrary.find("cuBLAS"), std::string::npos);
  const std::vector<TrialRow> trials = store.trials(1);
  ASSERT_EQ(trials.size(), 300u);
  double best = 0;
  for (const TrialRow& t : trials) best = std::max(best, t.speed);
  EXPECT_NEAR(best, 26.44, 0.005);  // docs/results/gpu.md
  // Exported again, the file names its seed and operator: it restores without them.
  ASSERT_EQ(
      runProcess(OPEVO_CLI, {"export-t4", "1", "--out", dir.file("again.json.gz"), "--db", db})
          .status,
      0);
  // It is run 1 already: a second restore is refused unless a copy is asked for.
  expectUsageError(
      runProcess(OPEVO_CLI, {"import", "--restore", dir.file("again.json.gz"), "--db", db}),
      "run 1 of " + db + " is this file's run already (MM1, opevo, seed 1, started ");
  expectUsageError(runProcess(OPEVO_CLI, {"import", "--restore", file, "--op", "MM1", "--seed", "1",
                                          "--db", db}),
                   "nothing stored (--copy stores it again as another run)");
  EXPECT_EQ(store.runs().size(), 1u);
  const auto again = runProcess(
      OPEVO_CLI, {"import", "--restore", dir.file("again.json.gz"), "--copy", "--db", db});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(store.trials(2).size(), 300u);
  EXPECT_EQ(runOperatorKey(store.run(2)->operatorJson), runOperatorKey(run.operatorJson));
  // Imported plainly, as measurements, it says what --restore would make of it.
  const auto plain = runProcess(OPEVO_CLI, {"import", dir.file("again.json.gz"), "--db", db});
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_NE(plain.err.find("is opevo's own export of a run of MM1 (opevo, seed 1): `opevo "
                           "import --restore "),
            std::string::npos)
      << plain.err;
  // A measured file of someone else's says nothing of the kind.
  const auto other =
      runProcess(OPEVO_CLI, {"import", dataset("convolution_milo/A100_T4.json.gz"), "--db", db});
  EXPECT_EQ(other.err.find("opevo's own export"), std::string::npos) << other.err;
  // It holds times only, and no kernel name: the summary says why it is in 1/ms and not named as
  // the cache of the same measurements is.
  EXPECT_NE(other.err.find("speed in 1/ms, as 1/time: the file holds times but no throughput"),
            std::string::npos)
      << other.err;
  EXPECT_NE(other.err.find("note: the file names no kernel: the run's operator is named after "
                           "the file, 'A100_T4'"),
            std::string::npos)
      << other.err;
}

TEST(CliInterchange, BadFilesExitTwoAndStoreNothing) {
  TempDir dir;
  const std::string db = dir.file("opevo.db");
  const std::string t4 = dir.file("bad_T4.json");
  std::ofstream(t4) << R"({"schema_version": "1.0.0", "results": [{"configuration": {"a": 1},
      "invalidity": "correct", "correctness": 1}]})";
  expectUsageError(runProcess(OPEVO_CLI, {"import", t4, "--db", db}),
                   "lacks the required field 'times'");
  expectUsageError(
      runProcess(OPEVO_CLI, {"import", dataset("kernels/convolution_milo.json"), "--db", db}),
      "this is a T1 search-space file");
  expectUsageError(runProcess(OPEVO_CLI, {"import", dir.file("missing.json"), "--db", db}),
                   "missing.json");
  // A network run archive is no measured file, but it is ours: say which command takes it.
  const std::string archive = std::string(OPEVO_SOURCE_DIR) +
                              "/resources/measurements/h200/2026-11-28/net_alexnet_direct.json.gz";
  expectUsageError(runProcess(OPEVO_CLI, {"import", archive, "--db", db}),
                   "network run archive (opevo net archive)");
  expectUsageError(runProcess(OPEVO_CLI, {"import", archive, "--db", db}),
                   "`opevo net restore " + archive + "`");
  EXPECT_TRUE(Store(db).runs().empty());
  // Read and refused before a database is opened: none is made where there was none.
  const std::string fresh = dir.file("fresh.db");
  expectUsageError(runProcess(OPEVO_CLI, {"import", t4, "--db", fresh}),
                   "lacks the required field 'times'");
  expectUsageError(runProcess(OPEVO_CLI, {"import", "--restore", t4, "--seed", "1", "--db", fresh}),
                   "bad_T4.json");
  EXPECT_FALSE(fs::exists(fresh));

  const std::string t1 = dir.file("bad_t1.json");
  std::ofstream(t1) << R"({"ConfigurationSpace": {"TuningParameters": [
      {"Name": "block_size_x", "Values": "[16, 32]"}, {"Name": "block_size_y", "Values": "[1]"}],
      "Conditions": [{"Expression": "block_size_x*block_size_y<=1O24"}]}})";
  expectUsageError(
      runProcess(OPEVO_CLI, {"t1", t1}),
      t1 + ": ConfigurationSpace.Conditions[0].Expression: expression "
           "\"block_size_x*block_size_y<=1O24\": unexpected character 'O' at column 29");
  expectUsageError(runProcess(OPEVO_CLI, {"t1", t4}), "this is a measured dataset");

  expectUsageError(
      runProcess(OPEVO_CLI, {"export-t4", "7", "--out", dir.file("x.json"), "--db", db}),
      "no run 7 in " + db);
  expectUsageError(runProcess(OPEVO_CLI, {"export-t4", "1", "--out", dir.file("x.json"), "--db",
                                          dir.file("none.db")}),
                   "does not exist");
  EXPECT_FALSE(fs::exists(dir.file("none.db")));
  EXPECT_EQ(runProcess(OPEVO_CLI, {"export-t4", "1", "--db", db}).status, 2);  // --out is required
  EXPECT_EQ(runProcess(OPEVO_CLI, {"import"}).status, 2);
  EXPECT_EQ(runProcess(OPEVO_CLI, {"t1"}).status, 2);
}

}  // namespace
}  // namespace opevo::test
