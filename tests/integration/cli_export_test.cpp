#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "file_bytes.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

TEST(CliExport, CpuKernelBuildsAndChecksItselfAndCudaSourceCompiles) {
  char pattern[] = "/tmp/opevo-export-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
  const fs::path op = dir / "conv.json";
  std::ofstream(op) << R"({"name": "small_conv", "kind": "conv2d", "shape": {"batch": 2,
      "in_channels": 4, "height": 11, "width": 11, "out_channels": 6, "kernel_h": 3, "kernel_w": 3,
      "stride": 2, "pad": 1}})";
  const std::string db = (dir / "runs.db").string();
  const auto tuned =
      runProcess(OPEVO_CLI, {"tune", "--op", op.string(), "--backend", "cpu", "--trials", "4",
                             "--db", db, "--min-time-ms", "1", "--json"});
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  const std::string run = std::to_string(nlohmann::json::parse(tuned.out)["run"].get<int>());

  const fs::path cpu = dir / "cpu";
  const auto exported = runProcess(OPEVO_CLI, {"export", run, "--db", db, "--out", cpu.string()});
  ASSERT_EQ(exported.status, 0) << exported.err;
  for (const char* f :
       {"kernel.cpp", "config.h", "record.json", "check.cpp", "build.sh", "trials.csv"})
    EXPECT_TRUE(fs::exists(cpu / f)) << f;
  const std::string firstLines = fileBytes(cpu / "kernel.cpp");
  EXPECT_NE(firstLines.find("// Operator:"), std::string::npos);
  EXPECT_NE(firstLines.find("GFLOP/s"), std::string::npos);  // a CPU kernel's unit
  const auto check = runProcess("/bin/sh", {(cpu / "build.sh").string()});
  EXPECT_EQ(check.status, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("PASS"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find(" GFLOP/s"), std::string::npos) << check.out;
  {
    // The tuner's time is stored with each trial (schema 6) and exported: once always 0.
    std::ifstream csv(cpu / "trials.csv");
    std::string header, line;
    std::getline(csv, header);
    std::size_t column = 0;
    for (std::size_t at = 0; at < header.find("tuner_ms"); ++at) column += header[at] == ',';
    double tunerMs = 0;
    while (std::getline(csv, line)) {
      std::stringstream fields(line);
      std::string field;
      for (std::size_t i = 0; i <= column; ++i) std::getline(fields, field, ',');
      tunerMs += std::stod(field);
    }
    EXPECT_GT(tunerMs, 0) << header;
  }

  const auto readRecord = [](const fs::path& folder) {
    std::ifstream in(folder / "record.json");
    return nlohmann::json::parse(in);
  };
  EXPECT_TRUE(readRecord(cpu)["measured_on_export_backend"].get<bool>());
  EXPECT_EQ(exported.out.find("not measured there"), std::string::npos) << exported.out;

  // The same configuration for CUDA: said to be unmeasured there, on the screen and in the record.
  const fs::path cuda = dir / "cuda";
  const auto toCuda = runProcess(
      OPEVO_CLI, {"export", run, "--db", db, "--out", cuda.string(), "--backend", "cuda"});
  ASSERT_EQ(toCuda.status, 0) << toCuda.err;
  EXPECT_NE(toCuda.out.find("tuned on cpu: the same configuration for cuda, not measured there"),
            std::string::npos)
      << toCuda.out;
  EXPECT_FALSE(readRecord(cuda)["measured_on_export_backend"].get<bool>());
  const char* nvcc = "/usr/local/cuda/bin/nvcc";
  if (!fs::exists(nvcc)) {
    fs::remove_all(dir);
    GTEST_SKIP() << "nvcc not installed at " << nvcc
                 << "; the CUDA export was written but not compiled";
  }
  const auto compiled = runProcess(
      nvcc, {"-O2", "-arch=sm_80", "-o", (cuda / "check").string(), (cuda / "check.cu").string()});
  EXPECT_EQ(compiled.status, 0) << compiled.err;
  fs::remove_all(dir);
}

// A run stored by `opevo import` has measurements and no operator of ours: its export writes the
// record and the trials and says how to get a kernel (it once failed on "unknown backend
// 'replay-import'", then on "unknown kind 'imported'" with --backend cpu).
TEST(CliExport, AnImportedRunExportsItsRecordAndSaysWhyNoKernel) {
  char pattern[] = "/tmp/opevo-export-import-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const std::string db = (dir / "o.db").string();
  const auto imported = runProcess(
      OPEVO_CLI, {"import",
                  std::string(OPEVO_SOURCE_DIR) +
                      "/resources/measurements/h200/2026-11-27/MM1_opevo-m_seed1.json.gz",
                  "--db", db});
  ASSERT_EQ(imported.status, 0) << imported.err;
  for (const std::vector<std::string>& backend :
       {std::vector<std::string>{}, std::vector<std::string>{"--backend", "cpu"}}) {
    const fs::path out = dir / ("out" + std::to_string(backend.size()));
    std::vector<std::string> args = {"export", "1", "--db", db, "--out", out.string()};
    args.insert(args.end(), backend.begin(), backend.end());
    const auto r = runProcess(OPEVO_CLI, args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE((r.out + r.err).find("was imported from a measured file"), std::string::npos)
        << r.out << r.err;
    EXPECT_TRUE(fs::exists(out / "record.json"));
    EXPECT_TRUE(fs::exists(out / "trials.csv"));
    EXPECT_FALSE(fs::exists(out / "kernel.cpp"));
  }
  fs::remove_all(dir);
}

// The walk: `opevo export` on a full disk said only "cannot write .../check.cpp" and left config.h
// and record.json at 0 bytes. An export writes all its files or none, and says which file failed
// and why.
TEST(CliExport, AFullDiskWritesNoFileAndSaysWhy) {
  char pattern[] = "/tmp/opevo-export-full-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const std::string db = (dir / "o.db").string();
  const auto imported = runProcess(
      OPEVO_CLI, {"import",
                  std::string(OPEVO_SOURCE_DIR) +
                      "/resources/measurements/h200/2026-11-27/MM1_opevo-m_seed1.json.gz",
                  "--db", db});
  ASSERT_EQ(imported.status, 0) << imported.err;
  const fs::path out = dir / "out";
  fs::create_directory(out);
  {
    const Store open(db);
    const auto full =
        runProcessOnFullDisk(0, OPEVO_CLI, {"export", "1", "--db", db, "--out", out.string()});
    EXPECT_EQ(full.status, 2);
    EXPECT_NE(full.err.find("cannot write '" + (out / "trials.csv").string() + "': File too large"),
              std::string::npos)
        << full.err;
    EXPECT_EQ(full.out.find("wrote"), std::string::npos) << full.out;
    EXPECT_TRUE(fs::is_empty(out)) << "a file or a temporary was left";
  }

  // With room again: every file, and the repeat counted from 1 as History shows it.
  const auto written = runProcess(OPEVO_CLI, {"export", "1", "--db", db, "--out", out.string()});
  ASSERT_EQ(written.status, 0) << written.err;
  std::ifstream csv(out / "trials.csv");
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  EXPECT_EQ(header.rfind("order,run,algorithm,repeat,", 0), 0u) << header;
  std::stringstream fields(row);
  std::string field;
  for (int i = 0; i < 4; ++i) std::getline(fields, field, ',');
  EXPECT_EQ(field, "1") << row;
  fs::remove_all(dir);
}

TEST(CliExport, UnknownRunExitsTwo) {
  const std::string db = "/tmp/opevo-export-none-" + std::to_string(::getpid()) + ".db";
  // A database that is not there is named, and not created.
  const auto missing = runProcess(OPEVO_CLI, {"export", "424242", "--db", db, "--out", "/tmp/x"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("database '" + db + "' does not exist"), std::string::npos)
      << missing.err;
  EXPECT_FALSE(std::filesystem::exists(db));
  std::ofstream{db};  // an empty file is no database, and stays empty
  const auto empty = runProcess(OPEVO_CLI, {"export", "424242", "--db", db, "--out", "/tmp/x"});
  EXPECT_EQ(empty.status, 2);
  EXPECT_NE(empty.err.find("is an empty file, not a database"), std::string::npos) << empty.err;
  EXPECT_EQ(std::filesystem::file_size(db), 0u);
  std::filesystem::remove(db);
  { Store created(db); }  // a database without runs
  const auto r = runProcess(OPEVO_CLI, {"export", "424242", "--db", db, "--out", "/tmp/x"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no run 424242"), std::string::npos) << r.err;
  std::filesystem::remove(db);
}

// The walk: `opevo export 1 --out exp1` a second time rewrote all six files without a word. An
// earlier export is refused by name, with the way to replace it; --force replaces it.
TEST(CliExport, ASecondExportIntoOneFolderIsRefusedUnlessForced) {
  char pattern[] = "/tmp/opevo-export-again-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const std::string db = (dir / "o.db").string();
  const auto imported = runProcess(
      OPEVO_CLI, {"import",
                  std::string(OPEVO_SOURCE_DIR) +
                      "/resources/measurements/h200/2026-11-27/MM1_opevo-m_seed1.json.gz",
                  "--db", db});
  ASSERT_EQ(imported.status, 0) << imported.err;
  const fs::path out = dir / "exp1";
  const std::vector<std::string> args = {"export", "1", "--db", db, "--out", out.string()};
  const auto first = runProcess(OPEVO_CLI, args);
  ASSERT_EQ(first.status, 0) << first.err;
  // Which trial, in the words the window's heading uses.
  EXPECT_EQ(first.out.rfind("exported trial ", 0), 0u) << first.out;
  std::ofstream(out / "record.json") << "{}\n";  // the earlier export, changed since
  const auto again = runProcess(OPEVO_CLI, args);
  EXPECT_EQ(again.status, 2);
  // Appended piece by piece: GCC 12 warns (-Wrestrict) about "literal" + temporary.
  std::string refusal = "'";
  refusal.append(out.string())
      .append("' already holds an export (trials.csv, record.json): nothing was written");
  EXPECT_NE(again.err.find(refusal), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("add --force to replace them"), std::string::npos) << again.err;
  EXPECT_EQ(again.out.find("wrote"), std::string::npos) << again.out;
  EXPECT_EQ(fileBytes(out / "record.json"), "{}\n");
  std::vector<std::string> forced = args;
  forced.push_back("--force");
  const auto replaced = runProcess(OPEVO_CLI, forced);
  EXPECT_EQ(replaced.status, 0) << replaced.err;
  std::ifstream written(out / "record.json");
  EXPECT_EQ(nlohmann::json::parse(written)["run"], 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace opevo::test
