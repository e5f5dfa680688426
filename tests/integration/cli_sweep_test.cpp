#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/child_process.h"
#include "run_process.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

const std::string kGemm = std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz";

std::string tempDir() {
  char pattern[] = "/tmp/opevo-sweep-XXXXXX";
  return mkdtemp(pattern);
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A line's fields (sweep.csv quotes none of these tests' values).
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string field; std::getline(in, field, ',');) out.push_back(field);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

// A 2 x 2 grid of the paper's OpEvo on real measurements: a table on standard output, one CSV
// line per cell and budget, and a heat map naming both axes and every value.
TEST(CliSweep, GridOfTwoSettingsOnADataset) {
  const std::string dir = tempDir();
  const auto r = runProcess(OPEVO_CLI, {"sweep", "--space", kGemm, "--algo", "opevo", "--set",
                                        "q=0.2,0.6", "--set", "lambda=4,8", "--repeats", "2",
                                        "--trials", "30", "--at", "25", "--out", dir, "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("mean fraction of optimum after 25 trials"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| q \\ lambda | 4 | 8 |"), std::string::npos) << r.out;
  const std::string csv = read(fs::path(dir) / "sweep.csv");
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line,
            "q,lambda,repeats,repeats_planned,seed,dataset,completeness,optimum,trials,mean_best,"
            "std_best,mean_fraction_of_optimum,mean_device_seconds,std_device_seconds,"
            "mean_device_seconds_to_best");
  int rows = 0;
  while (std::getline(lines, line)) {
    ++rows;
    const std::vector<std::string> f = fields(line);
    ASSERT_EQ(f.size(), 15u) << line;
    const double fraction = std::stod(f[11]);
    EXPECT_GT(fraction, 0.0) << line;
    EXPECT_LE(fraction, 1.0) << line;
    // What the file says measuring the cell's trials cost: some, and no more to the best than
    // in all.
    EXPECT_GT(std::stod(f[12]), 0.0) << line;
    EXPECT_LE(std::stod(f[14]), std::stod(f[12])) << line;
  }
  EXPECT_EQ(rows, 4 * 2);  // 4 cells x budgets 25 and 30
  const std::string svg = read(fs::path(dir) / "heatmap.svg");
  for (const char* text : {"<svg", ">q<", ">lambda<", ">0.2<", ">0.6<", ">4<", ">8<"})
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  fs::remove_all(dir);
}

// sweep.csv says what each cell's runs cost the device, as compare's summary.json says it of a
// race's runs: a cell raced alone by compare, with the same setting and seeds, reads the same
// mean device time, to its best too. sweep.csv had no device time: a setting that finds the
// same best in fewer trials of slower kernels could not be told from one that is faster.
TEST(CliSweep, ACellSaysWhatItsRunsCostTheDeviceAsCompareDoes) {
  const std::string dir = tempDir();
  const auto sweep = runProcess(
      OPEVO_CLI, {"sweep", "--space", kGemm, "--algo", "opevo", "--set", "q=0.2,0.6", "--repeats",
                  "2", "--trials", "30", "--seed", "3", "--out", dir + "/sweep", "--quiet"});
  ASSERT_EQ(sweep.status, 0) << sweep.err;
  const auto compare =
      runProcess(OPEVO_CLI, {"compare", "--space", kGemm, "--algos", "opevo", "--set",
                             "opevo.q=0.6", "--repeats", "2", "--trials", "30", "--seed", "3",
                             "--out", dir + "/compare", "--quiet"});
  ASSERT_EQ(compare.status, 0) << compare.err;
  std::ifstream summaryFile(fs::path(dir) / "compare" / "summary.json");
  nlohmann::json row;
  for (const auto& r : nlohmann::json::parse(summaryFile))
    if (r["trials"] == 30) row = r;
  ASSERT_FALSE(row.is_null());

  std::istringstream lines(read(fs::path(dir) / "sweep" / "sweep.csv"));
  std::string line;
  std::getline(lines, line);
  const std::vector<std::string> header = fields(line);
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  int found = 0;
  while (std::getline(lines, line)) {
    const std::vector<std::string> f = fields(line);
    ASSERT_EQ(f.size(), header.size()) << line;
    if (f[column("q")] != "0.6" || f[column("trials")] != "30") continue;
    ++found;
    EXPECT_DOUBLE_EQ(std::stod(f[column("mean_best")]), row["mean_best"].get<double>()) << line;
    for (const char* name :
         {"mean_device_seconds", "std_device_seconds", "mean_device_seconds_to_best"}) {
      ASSERT_LT(column(name), header.size()) << name;
      EXPECT_DOUBLE_EQ(std::stod(f[column(name)]), row[name].get<double>()) << name << ": " << line;
    }
  }
  EXPECT_EQ(found, 1);
  EXPECT_GT(row["mean_device_seconds"].get<double>(), 0.0);
  fs::remove_all(dir);
}

// A setting fixed in every cell changes every result: the table's title, the heat map and
// sweep.csv name it. Progress lines name each run's cell, not only the algorithm all share.
TEST(CliSweep, FixedSettingsAndCellsAreNamed) {
  const std::string dir = tempDir();
  const auto r = runProcess(
      OPEVO_CLI, {"sweep", "--space", kGemm, "--algo", "opevo", "--set", "q=0.1,0.5", "--set",
                  "lambda=2", "--repeats", "2", "--trials", "20", "--out", dir});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("opevo (lambda=2): mean fraction of optimum"), std::string::npos) << r.out;
  EXPECT_NE(read(fs::path(dir) / "heatmap.svg").find("opevo (lambda=2)"), std::string::npos);
  std::istringstream lines(read(fs::path(dir) / "sweep.csv"));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line,
            "q,lambda,repeats,repeats_planned,seed,dataset,completeness,optimum,trials,mean_best,"
            "std_best,mean_fraction_of_optimum,mean_device_seconds,std_device_seconds,"
            "mean_device_seconds_to_best");
  int rows = 0;
  while (std::getline(lines, line)) {
    ++rows;
    EXPECT_TRUE(line.rfind("0.1,2,", 0) == 0 || line.rfind("0.5,2,", 0) == 0) << line;
  }
  EXPECT_GT(rows, 0);
  for (const char* run : {"opevo q=0.1 repeat 1", "opevo q=0.5 repeat 1", "opevo q=0.1 repeat 2",
                          "opevo q=0.5 repeat 2"})
    EXPECT_NE(r.err.find(run), std::string::npos) << run << "\n" << r.err;
  fs::remove_all(dir);
}

TEST(CliSweep, BadInputIsNamedAndNothingIsWritten) {
  const std::string dir = tempDir() + "/out";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--set", "qq=0.1,0.2"}, "qq"},
      {{"--set", "q=0.1,7"}, "q"},
      {{"--set", "q=0.1,0.2", "--set", "lambda=4,8", "--set", "rho=4,8"}, "one or two"},
      {{"--set", "q"}, "setting=value"},
      {{"--set", "q=0.1,0.2", "--at", "500"}, "--at"},
      {{"--set", "q=0.1,0.2", "--algo", "nosuch"}, "nosuch"},
      {{"--set", "q=0.1,0.2", "--set", "lambda=0x10,8"}, "'0x10' is not a decimal number"},
      {{"--set", "q=0.1,0.10"}, "the value 0.1 twice"},
      {{"--set", "q=0.3,,0.7"}, "include an empty one"},
      {{"--set", "q=0.2,1.5"}, "1.5"},
      {{"--set", "q=0.1,0.2", "--set", "lambda=2", "--set", "lambda=4"}, "'lambda' is given twice"},
      {{"--set", "q=0.1,0.2", "--repeats", "3", "--seed", "18446744073709551614"},
       "at most 18446744073709551613"},
  };
  for (const auto& [extra, mentions] : cases) {
    std::vector<std::string> args = {"sweep", "--space", kGemm, "--trials", "20", "--out", dir};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = runProcess(OPEVO_CLI, args);
    EXPECT_EQ(r.status, 2) << extra.back() << ": " << r.err;
    EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
  }
  const auto missing = runProcess(
      OPEVO_CLI, {"sweep", "--space", "/nonexistent.json.gz", "--set", "q=0.1,0.2", "--out", dir});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("/nonexistent.json.gz"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(dir));
  fs::remove_all(fs::path(dir).parent_path());
}

// Ctrl-C ends the repeat in hand; the repeats every cell completed are summarized and written,
// with the shell's status for Ctrl-C, as compare does. The default action wrote nothing.
TEST(CliSweep, CtrlCWritesTheRepeatsEveryCellCompleted) {
  const std::string dir = tempDir();
  const std::string log = dir + "/log.txt";
  ChildStreams streams;
  streams.stdoutFile = log;
  streams.stderrToStdout = true;
  const pid_t pid =
      startChild({OPEVO_CLI, "sweep", "--space", kGemm, "--algo", "opevo", "--set", "q=0.2,0.6",
                  "--repeats", "10", "--trials", "2000", "--out", dir + "/out"},
                 streams);
  const auto text = [&] { return read(log); };
  // A run of repeat 2 has ended, so repeat 1 of every cell is complete, and 8 repeats are left:
  // seconds each, time enough for the signal. A sweep that never gets there fails here with its
  // log, where signalling it anyway could pass on whatever repeats it happened to have done.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  bool started2 = false;
  while (!(started2 = text().find("repeat 2 ") != std::string::npos) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (!started2) kill(pid, SIGKILL);
  const int signalled = started2 ? kill(pid, SIGINT) : -1;
  const int status = waitChild(pid);
  const std::string out = text();
  ASSERT_TRUE(started2) << "no run of repeat 2 ended in 120 s:\n" << out;
  ASSERT_EQ(signalled, 0) << out;
  ASSERT_EQ(status, 130) << out;
  // The signal stopped the sweep (its notice said so), not the program at once.
  EXPECT_NE(out.find("stopping: the repeats every cell completed"), std::string::npos) << out;
  // Stopped partway, keeping at least one repeat of every cell: the table and its note say how
  // many, as the exit message does.
  const std::string stopped = "interrupted: stopped after ";
  const auto at = out.find(stopped);
  ASSERT_NE(at, std::string::npos) << out;
  const int kept = std::stoi(out.substr(at + stopped.size()));
  EXPECT_GE(kept, 1) << out;
  EXPECT_LT(kept, 10) << out;
  EXPECT_NE(
      out.find(std::to_string(kept) + " of 10 repeats: the map covers " + std::to_string(kept) +
               (kept == 1 ? " repeat" : " repeats") + " of every cell"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("| after 2000 trials |"), std::string::npos) << out;
  std::istringstream lines(read(fs::path(dir) / "out" / "sweep.csv"));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line,
            "q,repeats,repeats_planned,seed,dataset,completeness,optimum,trials,mean_best,std_best,"
            "mean_fraction_of_optimum,mean_device_seconds,std_device_seconds,"
            "mean_device_seconds_to_best");
  int rows = 0;
  while (std::getline(lines, line)) ++rows;
  EXPECT_GT(rows, 0);
  EXPECT_TRUE(fs::exists(fs::path(dir) / "out" / "heatmap.svg"));
  fs::remove_all(dir);
}

// A space of 12 configurations swept for 20 trials: the table, the map and sweep.csv hold the
// value after the 12 every run reached, and say so. The table and map were all "-".
TEST(CliSweep, ASpaceSmallerThanTheTrialsShowsItsLastTrial) {
  const std::string dir = tempDir();
  const std::string db = dir + "/x.db", small = dir + "/r12.json.gz";
  ASSERT_EQ(runProcess(OPEVO_CLI, {"tune", "--db", db, "--backend", "replay:" + kGemm, "--trials",
                                   "12", "--json"})
                .status,
            0);
  ASSERT_EQ(runProcess(OPEVO_CLI, {"export-t4", "--db", db, "1", "--out", small}).status, 0);
  const auto r =
      runProcess(OPEVO_CLI, {"sweep", "--space", small, "--algo", "opevo", "--set", "q=0.2,0.8",
                             "--repeats", "2", "--trials", "20", "--out", dir + "/out", "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("| - |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| after 12 trials |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the space has 12 configurations: the map is after 12 trials"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(read(fs::path(dir) / "out" / "heatmap.svg").find(">-<"), std::string::npos);
  fs::remove_all(dir);
}

// A rerun into the same folder replaced an earlier study's files without a word: refused, naming
// them, unless --force.
TEST(CliSweep, ARerunIntoTheSameFolderIsRefusedUnlessForced) {
  const std::string dir = tempDir();
  const std::vector<std::string> args = {"sweep", "--space",   kGemm,        "--algo", "opevo",
                                         "--set", "q=0.2,0.6", "--repeats",  "1",      "--trials",
                                         "10",    "--out",     dir + "/out", "--quiet"};
  ASSERT_EQ(runProcess(OPEVO_CLI, args).status, 0);
  const std::string csv = read(fs::path(dir) / "out" / "sweep.csv");
  std::vector<std::string> again = args;
  again[8] = "2";  // other repeats: other files
  const auto refused = runProcess(OPEVO_CLI, again);
  EXPECT_EQ(refused.status, 2) << refused.err;
  for (const char* word : {"sweep.csv", "heatmap.svg", "--force", "already holds"})
    EXPECT_NE(refused.err.find(word), std::string::npos) << word << " in: " << refused.err;
  EXPECT_EQ(read(fs::path(dir) / "out" / "sweep.csv"), csv);
  again.push_back("--force");
  ASSERT_EQ(runProcess(OPEVO_CLI, again).status, 0);
  EXPECT_NE(read(fs::path(dir) / "out" / "sweep.csv"), csv);
  fs::remove_all(dir);
}

// A write that fails (a full disk) is named with its reason, exits non-zero, and leaves no partial
// file. It once left sweep.csv cut short, or said "wrote" and exited 0.
TEST(CliSweep, AFailedWriteIsNamedAndLeavesNoPartialFile) {
  const std::string dir = tempDir();
  fs::create_directories(fs::path(dir) / "out");
  const auto r =
      runProcessOnFullDisk(0, OPEVO_CLI,
                           {"sweep", "--space", kGemm, "--algo", "opevo", "--set", "q=0.2,0.6",
                            "--repeats", "1", "--trials", "10", "--out", dir + "/out"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("sweep.csv"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("wrote "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(fs::path(dir) / "out" / "sweep.csv"));
  EXPECT_FALSE(fs::exists(fs::path(dir) / "out" / "heatmap.svg"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace opevo::test
