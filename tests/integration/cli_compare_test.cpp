#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "common/child_process.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

const std::string kConvolution = std::string(OPEVO_DATASETS_DIR) + "/convolution_milo/A100.json.gz";

struct OutDir {
  fs::path path;
  OutDir() {
    char pattern[] = "/tmp/opevo-compare-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~OutDir() { fs::remove_all(path); }
};

// A long race started in the background, its output in a log; `stop` sends it `signal` once it
// is under way (its header printed, half a second of trials run).
struct RunningRace {
  std::string log;
  pid_t pid = -1;
  RunningRace(const OutDir& out, std::vector<std::string> extra)
      : log((out.path / "log.txt").string()) {
    ChildStreams streams;
    streams.stdoutFile = log;
    streams.stderrToStdout = true;
    std::vector<std::string> args = {
        OPEVO_CLI,        "compare",  "--space", kConvolution, "--algos",
        "opevo-m,random", "--trials", "100000",  "--out",      (out.path / "race").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    pid = startChild(args, streams);
  }
  std::string text() const {
    std::ifstream in(log);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  int stop(int signal) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (text().find("runs interleaved") == std::string::npos &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    kill(pid, signal);
    return waitChild(pid);
  }
};

// Ctrl-C stops a long race after each run's trial in hand and still writes what was run: the
// summary, its table and trials.csv, with the shell's status for Ctrl-C. The default action ended
// it with no word and no summary.json.
TEST(CliCompare, CtrlCWritesTheSummaryOfWhatWasRun) {
  OutDir out;
  const RunningRace race(out, {"--repeats", "10"});
  EXPECT_EQ(race.stop(SIGINT), 130) << race.text();
  EXPECT_NE(race.text().find("| opevo-m | 25 |"), std::string::npos) << race.text();
  EXPECT_NE(race.text().find("interrupted: stopped after "), std::string::npos) << race.text();
  EXPECT_TRUE(fs::exists(out.path / "race" / "summary.json"));
  EXPECT_TRUE(fs::exists(out.path / "race" / "trials.csv"));
}

// SIGHUP (the terminal or ssh session closed) ended a race at once: no summary, and with --db its
// stored runs read "running" for ever. Now it stops the race as Ctrl-C does, with 129.
TEST(CliCompare, SighupStopsTheRaceAndItsStoredRunsReadStopped) {
  OutDir out;
  const std::string db = (out.path / "runs.db").string();
  const RunningRace race(out, {"--repeats", "2", "--db", db});
  EXPECT_EQ(race.stop(SIGHUP), 129) << race.text();
  EXPECT_NE(race.text().find("stopping after the trials in hand"), std::string::npos)
      << race.text();
  EXPECT_TRUE(fs::exists(out.path / "race" / "summary.json")) << race.text();
  const std::vector<RunRecord> runs = Store(db).runs();
  ASSERT_EQ(runs.size(), 4u);
  for (const RunRecord& r : runs) EXPECT_NE(r.status, RunStatus::Running) << r.id;
}

// A summary that cannot be written is an error with its reason, not "wrote ... summary.json"
// and an empty file (a folder of its name in the way; a full disk); a folder that cannot hold
// trials.csv says why.
TEST(CliCompare, ASummaryThatCannotBeWrittenIsAnErrorWithItsReason) {
  OutDir out;
  const fs::path race = out.path / "race";
  fs::create_directories(race / "summary.json");
  const auto blocked = runProcess(OPEVO_CLI, {"compare", "--space", kConvolution, "--algos",
                                              "random", "--trials", "10", "--out", race.string()});
  EXPECT_EQ(blocked.status, 2);
  EXPECT_NE(blocked.err.find("cannot write '" + (race / "summary.json").string() +
                             "': a folder of that name is in the way"),
            std::string::npos)
      << blocked.err;
  EXPECT_EQ(blocked.out.find("wrote"), std::string::npos) << blocked.out;
  EXPECT_TRUE(fs::is_empty(race / "summary.json"));

  const fs::path full = out.path / "full";
  const auto noRoom = runProcessOnFullDisk(0, OPEVO_CLI,
                                           {"compare", "--space", kConvolution, "--algos", "random",
                                            "--trials", "10", "--out", full.string()});
  EXPECT_NE(noRoom.status, 0);
  EXPECT_NE(noRoom.err.find("File too large"), std::string::npos) << noRoom.err;
  EXPECT_EQ(noRoom.out.find("wrote"), std::string::npos) << noRoom.out;
  EXPECT_FALSE(fs::exists(full / "summary.json"));

  fs::create_directory(out.path / "csv");
  // The trials stream to trials.csv.partial while the race runs (trials.csv once it ended).
  fs::create_symlink("/dev/full", out.path / "csv" / "trials.csv.partial");
  const auto csv = runProcess(OPEVO_CLI, {"compare", "--space", kConvolution, "--algos", "random",
                                          "--trials", "10", "--out", (out.path / "csv").string()});
  EXPECT_EQ(csv.status, 2);
  EXPECT_NE(csv.err.find("No space left on device"), std::string::npos) << csv.err;
}

TEST(CliCompare, WritesTrialsSummaryAndTable) {
  OutDir out;
  const auto r =
      runProcess(OPEVO_CLI, {"compare", "--space", kConvolution, "--algos", "opevo,random,autotvm",
                             "--repeats", "2", "--trials", "60", "--seed", "5", "--out",
                             out.path.string(), "--set", "opevo.q=0.6"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("| opevo | 25 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| autotvm | 60 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Replay of real measurements"), std::string::npos);
  EXPECT_NE(r.err.find("60 trials"), std::string::npos) << r.err;  // a line per finished run
  EXPECT_NE(r.err.find("[6/6 runs]"), std::string::npos) << r.err;

  std::ifstream csv(out.path / "trials.csv");
  std::string line;
  int lines = 0;
  while (std::getline(csv, line)) ++lines;
  EXPECT_EQ(lines, 1 + 3 * 2 * 60);

  std::ifstream jsonFile(out.path / "summary.json");
  const auto summary = nlohmann::json::parse(jsonFile);
  ASSERT_EQ(summary.size(), 3u * 3u);  // budgets 25, 50, 60
  for (const auto& row : summary) {
    for (const char* key :
         {"algorithm", "trials", "mean_best", "std_best", "mean_fraction_of_optimum"})
      EXPECT_TRUE(row.contains(key)) << key;
    EXPECT_GT(row["mean_fraction_of_optimum"].get<double>(), 0.0);
    EXPECT_LE(row["mean_fraction_of_optimum"].get<double>(), 1.0 + 1e-12);
  }
}

// The runs of a race are interleaved batch by batch: trials.csv's order column shows every run
// of opevo and random x 2 repeats among the first 40 trials measured.
TEST(CliCompare, OrderShowsEveryRunAmongTheFirstTrials) {
  OutDir out;
  const auto r = runProcess(
      OPEVO_CLI,
      {"compare", "--space", std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz",
       "--algos", "opevo,random", "--repeats", "2", "--trials", "40", "--out", out.path.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream csv(out.path / "trials.csv");
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line.rfind("order,run,algorithm,repeat,seed,trial,config,status,speed,best_so_far", 0),
            0u)
      << line;
  std::set<std::string> runsInFirst40;
  std::set<std::string> repeats;
  long long expected = 1;
  while (std::getline(csv, line)) {
    std::stringstream fields(line);
    std::string field;
    for (int i = 0; i < 4; ++i) std::getline(fields, field, ',');
    repeats.insert(field);
    const auto comma = line.find(',');
    EXPECT_EQ(std::stoll(line.substr(0, comma)), expected);
    if (expected <= 40)
      runsInFirst40.insert(line.substr(comma + 1, line.find(',', comma + 1) - comma - 1));
    ++expected;
  }
  EXPECT_EQ(expected - 1, 160);
  EXPECT_EQ(runsInFirst40, (std::set<std::string>{"1", "2", "3", "4"}));
  // Counted from 1, as the progress lines and the window's History count repeats.
  EXPECT_EQ(repeats, (std::set<std::string>{"1", "2"}));

  const auto shuffled = runProcess(
      OPEVO_CLI, {"compare", "--space", kConvolution, "--algos", "opevo,random", "--trials", "10",
                  "--repeats", "1", "--schedule", "shuffle", "--out", (out.path / "s").string()});
  EXPECT_EQ(shuffled.status, 0) << shuffled.err;
  const auto bad =
      runProcess(OPEVO_CLI, {"compare", "--space", kConvolution, "--algos", "opevo", "--schedule",
                             "fastest-first", "--out", (out.path / "b").string()});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("round-robin or shuffle"), std::string::npos) << bad.err;
}

TEST(CliCompare, BadInputExitsTwo) {
  OutDir out;
  const fs::path empty = out.path / "empty.json";
  std::ofstream(empty).close();
  const fs::path notJson = out.path / "notes.json";
  std::ofstream(notJson) << "hello, I am not JSON";
  const fs::path truncated = out.path / "truncated.json";
  std::ofstream(truncated) << R"({"device_name": "x", "kernel_name": "k", "tune_params_keys": ["a"],
    "tune_params": {"a": [1, 2]}, "cache": {"1": {"a": 1, "time": 0.5, "ti)";
  const fs::path unknown = out.path / "unknown.json";
  std::ofstream(unknown) << R"({"measurements": [1, 2, 3]})";

  const std::string dir = (out.path / "o").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--space", kConvolution, "--algos", "hyperopt"}, "unknown algorithm 'hyperopt'"},
      {{"--space", kConvolution, "--algos", "opevo", "--set", "opevo.lambda=0"}, "lambda=0"},
      {{"--space", kConvolution, "--algos", "opevo", "--set", "opevo.q=1"}, "q=1"},
      {{"--space", kConvolution, "--algos", "opevo", "--set", "opevo.q=-0.2"}, "q=-0.2"},
      {{"--space", kConvolution, "--algos", "opevo", "--batch", "0"}, "--batch"},
      {{"--space", kConvolution, "--algos", "gbfs"}, "factor parameters only"},
      {{"--space", empty.string(), "--algos", "opevo"}, "empty"},
      {{"--space", notJson.string(), "--algos", "opevo"}, "JSON"},
      {{"--space", truncated.string(), "--algos", "opevo"}, "truncated"},
      {{"--space", unknown.string(), "--algos", "opevo"}, "schema"},
      {{"--space", "MM1", "--algos", "opevo"}, "measurement backend"},
  };
  for (const auto& [args, mentions] : cases) {
    std::vector<std::string> all = {"compare", "--out", dir, "--trials", "10", "--repeats", "1"};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = runProcess(OPEVO_CLI, all);
    EXPECT_EQ(r.status, 2) << args[1] << " " << args[3] << ": " << r.err;
    EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(fs::path(dir) / "trials.csv"));
}

// Every run of a race is held from its start: --repeats 100000000 took 3 GB in 15 s, silent.
// Refused at once, as the window's limit; so are sweep's, and ids past any run (they were taken
// as 9223372036854775807).
TEST(CliCompare, RepeatsBeyondAThousandAndHugeIdsAreRefused) {
  OutDir out;
  const auto compare =
      runProcess(OPEVO_CLI, {"compare", "--space", kConvolution, "--algos", "random", "--repeats",
                             "100000000", "--trials", "2", "--out", (out.path / "o").string()});
  EXPECT_EQ(compare.status, 2) << compare.err;
  EXPECT_NE(compare.err.find("--repeats"), std::string::npos) << compare.err;
  EXPECT_FALSE(fs::exists(out.path / "o"));
  const auto sweep =
      runProcess(OPEVO_CLI, {"sweep", "--space", kConvolution, "--algo", "opevo", "--set", "q=0.2",
                             "--repeats", "1001", "--out", (out.path / "s").string()});
  EXPECT_EQ(sweep.status, 2) << sweep.err;
  EXPECT_NE(sweep.err.find("--repeats"), std::string::npos) << sweep.err;
  const auto show = runProcess(OPEVO_CLI, {"show", "99999999999999999999"});
  EXPECT_EQ(show.status, 2) << show.err;
  EXPECT_NE(show.err.find("is too large, got 99999999999999999999"), std::string::npos) << show.err;
  // "Value -1 not in range 0.000000 to 1797693134862315708145274237317043567980705675258449..."
  const auto netRuns = runProcess(OPEVO_CLI, {"net", "runs", "-1"});
  EXPECT_EQ(netRuns.status, 2) << netRuns.err;
  EXPECT_NE(netRuns.err.find("must be a whole number of 1 or more, got -1"), std::string::npos)
      << netRuns.err;
  EXPECT_LT(netRuns.err.size(), 200u) << netRuns.err;
}

// A word where a bounded number goes: CLI11's range check answered "Value abc not in range 1 to
// 1000000000", as though abc were a number too large. Each says what it takes and what it got.
TEST(CliCompare, ABoundedNumberOptionSaysWhatItTakes) {
  const struct {
    std::vector<std::string> args;
    std::string said;
  } cases[] = {
      {{"tune", "--op", "MM1", "--backend", "cpu", "--trials", "abc"},
       "--trials: must be a whole number from 1 to 1000000000, got abc"},
      {{"net", "run", "alexnet", "--runs", "1.5"},
       "--runs: must be a whole number from 1 to 1000000, got 1.5"},
      {{"sweep", "--space", kConvolution, "--algo", "opevo", "--set", "q=0.2,0.3", "--repeats",
        "1001"},
       "--repeats: must be a whole number from 1 to 1000, got 1001"},
      {{"kas", "search", "--theta", "x"}, "--theta: must be a number from 0 to 1, got x"},
      {{"runs", "compare", "1", "2", "--at", "10,abc"},
       "--at: must be a whole number of 1 or more, got abc"},
      // CLI11 reads a leading zero as octal: --trials 010 ran 8 trials.
      {{"tune", "--op", "MM1", "--backend", "cpu", "--trials", "010"},
       "--trials: must be a whole number from 1 to 1000000000, got 010 (write it without the "
       "leading zero)"},
      {{"space", "MM1", "--seed", "010"},
       "--seed: must be written without a leading zero, got 010"},
  };
  for (const auto& c : cases) {
    const auto r = runProcess(OPEVO_CLI, c.args);
    EXPECT_EQ(r.status, 2) << c.args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(c.said), std::string::npos) << c.args[0] << ": " << r.err;
    EXPECT_EQ(r.err.find("not in range"), std::string::npos) << r.err;
  }
  // A sign, as a person may write it, is taken as it was before the range's own check.
  const auto plus = runProcess(OPEVO_CLI, {"qwalk", "--param", "factor:8:2", "--samples", "+5"});
  EXPECT_EQ(plus.status, 0) << plus.err;
}

// Standard output on a full disk: `opevo runs --json > runs.json` exited 0, the file cut short.
TEST(CliCompare, AStandardOutputThatCannotBeWrittenIsAnError) {
  const auto r = runProcess("/bin/sh", {"-c", std::string(OPEVO_CLI) + " space MM1 > /dev/full"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("opevo: cannot write standard output: No space left on device"),
            std::string::npos)
      << r.err;
}

// Repeat r uses seed + r: a seed whose repeats would pass 2^64 - 1 would wrap to 0, 1, ..., the
// seeds of another race's first repeats. Refused before the dataset is read; the largest seed
// that fits is accepted.
TEST(CliCompare, ASeedWhoseRepeatsWouldWrapIsRefused) {
  OutDir out;
  const std::string dir = (out.path / "o").string();
  std::vector<std::string> args = {"compare",   "--space", kConvolution, "--algos", "random",
                                   "--repeats", "3",       "--trials",   "5",       "--quiet",
                                   "--out",     dir,       "--seed"};
  args.push_back("18446744073709551615");
  const auto wraps = runProcess(OPEVO_CLI, args);
  EXPECT_EQ(wraps.status, 2) << wraps.err;
  EXPECT_NE(wraps.err.find("at most 18446744073709551613"), std::string::npos) << wraps.err;
  EXPECT_FALSE(fs::exists(dir));
  args.back() = "18446744073709551613";
  const auto fits = runProcess(OPEVO_CLI, args);
  ASSERT_EQ(fits.status, 0) << fits.err;
  EXPECT_NE(fits.out.find("seed 18446744073709551613"), std::string::npos) << fits.out;
}

TEST(CliTuners, ListsEveryAlgorithmAndSetting) {
  const auto r = runProcess(OPEVO_CLI, {"tuners"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* text : {"opevo.q = 0.5", "autotvm.plan_size = 64", "ansor.population = 2048",
                           "gbfs.rho = 5", "na2c.steps = 3", "genetic", "annealing", "exhaustive"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text;
}

// Scripts read the list as JSON: every algorithm, exactly one default (the one `tune` uses), and
// each setting with its range.
TEST(CliTuners, AsJsonWithExactlyOneDefault) {
  const auto r = runProcess(OPEVO_CLI, {"tuners", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto list = nlohmann::json::parse(r.out);
  std::set<std::string> names, defaults;
  for (const auto& t : list) {
    names.insert(t.at("name").get<std::string>());
    if (t.at("default").get<bool>()) defaults.insert(t.at("name").get<std::string>());
    for (const auto& s : t.at("settings"))
      EXPECT_LE(s.at("min").get<double>(), s.at("value").get<double>()) << t.at("name");
  }
  for (const char* name : {"opevo", "opevo-m", "autotvm", "ansor", "random", "genetic"})
    EXPECT_TRUE(names.count(name)) << name;
  ASSERT_EQ(defaults.size(), 1u);
  EXPECT_EQ(*defaults.begin(), "opevo-m");
  const auto help = runProcess(OPEVO_CLI, {"tune", "--help"});
  EXPECT_NE(help.out.find("default opevo-m"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace opevo::test
