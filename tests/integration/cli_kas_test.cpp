// opevo kas as a user runs it: sampling for ResNet-18, a small real search (kernels tuned on this
// CPU, trained by opevo-kas-train), a search killed with -9 and resumed, and bad input.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>

#include "common/child_process.h"
#include "kas/kas_json.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    char pattern[] = "/tmp/opevo-cli-kas-XXXXXX";
    path = mkdtemp(pattern);
    // Kernels are built into the cache: a test's own, so runs never share or leave them.
    setenv("XDG_CACHE_HOME", (path / "cache").c_str(), 1);
    // And its temporaries: a search killed with -9 cannot remove its training folder, which
    // stayed in /tmp (opevo-kas-train-XXXXXX) after every run of the suite.
    fs::create_directory(path / "tmp");
    if (const char* before = std::getenv("TMPDIR")) m_tmpdir = before;
    setenv("TMPDIR", (path / "tmp").c_str(), 1);
  }
  // TMPDIR as it was: tests run after this one in the same process must not get a removed folder.
  ~TempDir() {
    if (m_tmpdir)
      setenv("TMPDIR", m_tmpdir->c_str(), 1);
    else
      unsetenv("TMPDIR");
    fs::remove_all(path);
  }
  std::optional<std::string> m_tmpdir;
};

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool trainerBuilt() {
  return fs::exists(fs::path(OPEVO_CLI).parent_path() / "opevo-kas-train") &&
         fs::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz");
}

// A search small enough for a test: one 16-channel layer to tune, a few hundred images.
std::vector<std::string> smallSearch(const std::string& db, int candidates) {
  return {"kas",
          "search",
          "--network",
          std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_conv_chain.json",
          "--candidates",
          std::to_string(candidates),
          "--trials",
          "2",
          "--epochs",
          "1",
          "--train-images",
          "256",
          "--test-images",
          "200",
          "--batch",
          "64",
          "--threads",
          "1",
          "--seed",
          "3",
          "--db",
          db};
}

TEST(CliKas, SamplingGivesAHundredDistinctValidKernelsForResNet18) {
  const ProcessResult r =
      runProcess(OPEVO_CLI, {"kas", "sample", "--count", "200", "--seed", "1", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& kernels = j.at("kernels");
  EXPECT_GE(kernels.size(), 100u);
  std::set<std::string> hashes;
  for (const auto& k : kernels) {
    EXPECT_TRUE(hashes.insert(k.at("hash").get<std::string>()).second);
    // Each one reads back as a kernel file and type-checks.
    const kas::MicroDag dag = kas::kernelFromJson(k.at("kernel"), "sampled kernel");
    EXPECT_TRUE(dag.complete());
    EXPECT_LE(k.at("solution").at("flops_ratio").get<double>(), 0.5 + 1e-9);
  }
}

// A written kernel file keeps the group count it was sampled with: show fits it with that G (and
// so the same FLOPs share) where it used to try G in its own order; tune takes any layer of a
// replaced shape by name.
TEST(CliKas, AKernelFileKeepsItsSampledGroupCount) {
  TempDir dir;
  const std::string out = (dir.path / "kernels").string();
  const ProcessResult r = runProcess(
      OPEVO_CLI, {"kas", "sample", "--count", "8", "--seed", "1", "--out", out, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto sampled = nlohmann::json::parse(r.out).at("kernels");
  ASSERT_FALSE(sampled.empty());
  for (const auto& k : sampled) {
    const std::string file = out + "/kernel-" + k.at("hash").get<std::string>() + ".json";
    const ProcessResult show = runProcess(OPEVO_CLI, {"kas", "show", file, "--json"});
    ASSERT_EQ(show.status, 0) << show.err;
    const auto shown = nlohmann::json::parse(show.out).at("solution");
    EXPECT_EQ(shown.at("groups"), k.at("solution").at("groups")) << file;
    EXPECT_DOUBLE_EQ(shown.at("flops_ratio").get<double>(),
                     k.at("solution").at("flops_ratio").get<double>())
        << file;
  }
  const std::string first = out + "/kernel-" + sampled[0].at("hash").get<std::string>() + ".json";
  const ProcessResult byName = runProcess(
      OPEVO_CLI, {"kas", "tune", first, "--layer", "layer1.1.conv2", "--trials", "1", "--json"});
  ASSERT_EQ(byName.status, 0) << byName.err;
  EXPECT_EQ(nlohmann::json::parse(byName.out).at("layer"), "layer1.0.conv1");
}

TEST(CliKas, ASmallSearchTunesTrainsAndReportsTheFrontBesideTheBaseline) {
  if (!trainerBuilt()) GTEST_SKIP() << "opevo-kas-train or Fashion-MNIST missing";
  TempDir dir;
  const std::string db = (dir.path / "opevo.db").string();
  auto args = smallSearch(db, 2);
  args.push_back("--json");
  const ProcessResult r = runProcess(OPEVO_CLI, args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("status"), "finished");
  const double baseline = j.at("baseline_accuracy").get<double>();
  EXPECT_GT(baseline, 0.0);
  EXPECT_LE(baseline, 1.0);
  ASSERT_EQ(j.at("candidates").size(), 2u);
  int trained = 0;
  for (const auto& c : j.at("candidates")) {
    const std::string stage = c.at("stage");
    EXPECT_TRUE(stage == "trained" || stage == "failed") << c.dump();
    if (stage != "trained") continue;
    ++trained;
    EXPECT_GT(c.at("speedup").get<double>(), 0.0);
    EXPECT_GT(c.at("kernel_ms").get<double>(), 0.0);
    EXPECT_GT(c.at("accuracy").get<double>(), 0.0);
    EXPECT_LE(c.at("accuracy").get<double>(), 1.0);
  }
  EXPECT_GE(trained, 1);
  EXPECT_FALSE(j.at("pareto").empty());
  EXPECT_GT(j.at("seconds").at("tune").get<double>(), 0.0);
  EXPECT_GT(j.at("seconds").at("train").get<double>(), 0.0);

  // Each layer runs on the best schedule known: never slower than the one tuning started from.
  {
    Store store(db);
    for (const KasCandidateRow& c : store.kasCandidates(1)) {
      if (c.tuningJson.empty()) continue;
      for (const auto& layer : nlohmann::json::parse(c.tuningJson))
        EXPECT_LE(layer.at("ms").get<double>(), layer.at("default_ms").get<double>()) << c.hash;
    }
  }
  // The store holds it for the report and the list.
  const ProcessResult list = runProcess(OPEVO_CLI, {"kas", "searches", "--db", db, "--json"});
  ASSERT_EQ(list.status, 0) << list.err;
  EXPECT_EQ(nlohmann::json::parse(list.out).at(0).at("trained"), trained);
  const ProcessResult report = runProcess(OPEVO_CLI, {"kas", "report", "1", "--db", db});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("Pareto front"), std::string::npos) << report.out;
}

// A second Ctrl-C while a trial is in hand (here a worker that never answers) kills the worker
// before the program ends; it ran on.
TEST(CliKas, ASecondCtrlCKillsTheWorkerInHand) {
  if (!trainerBuilt()) GTEST_SKIP() << "opevo-kas-train or Fashion-MNIST missing";
  TempDir dir;
  const std::string pidFile = (dir.path / "worker.pid").string();
  const std::string worker = (dir.path / "worker.sh").string();
  std::ofstream(worker) << "#!/bin/sh\necho $$ > " << pidFile << "\nexec sleep 600\n";
  fs::permissions(worker, fs::perms::owner_all);
  auto args = smallSearch((dir.path / "opevo.db").string(), 1);
  args.insert(args.begin(), {"/usr/bin/env", "OPEVO_WORKER=" + worker, OPEVO_CLI});
  ChildStreams streams;
  streams.stdoutFile = (dir.path / "log.txt").string();
  streams.stderrToStdout = true;
  const pid_t pid = startChild(args, streams);
  const auto waitFor = [](const std::function<bool()>& done, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done())  // called until it says true, once then: waitpid reaps
      if (std::chrono::steady_clock::now() > deadline)
        return false;
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return true;
  };

  ASSERT_TRUE(waitFor([&] { return fs::exists(pidFile) && fs::file_size(pidFile) > 0; },
                      std::chrono::seconds(120)));
  const pid_t workerPid = std::stoi(readText(pidFile));
  const auto log = [&] { return readText(dir.path / "log.txt"); };
  kill(pid, SIGINT);
  EXPECT_TRUE(waitFor(
      [&] { return log().find("stopping after the candidate in hand") != std::string::npos; },
      std::chrono::seconds(3)))
      << log();
  kill(pid, SIGINT);
  int status = 0;
  EXPECT_TRUE(
      waitFor([&] { return waitpid(pid, &status, WNOHANG) == pid; }, std::chrono::seconds(10)))
      << log();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130) << log();
  const auto gone = [&] {
    std::ifstream stat("/proc/" + std::to_string(workerPid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    const auto close = line.rfind(')');
    return close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z';
  };
  EXPECT_TRUE(waitFor(gone, std::chrono::seconds(5))) << "the worker runs on";
  kill(pid, SIGKILL);  // (when the test failed)
  waitChild(pid);
  kill(workerPid, SIGKILL);
}

TEST(CliKas, ASearchKilledMidwayResumesWithTheSameKernelsAndNothingTwice) {
  if (!trainerBuilt()) GTEST_SKIP() << "opevo-kas-train or Fashion-MNIST missing";
  TempDir dir;
  const std::string db = (dir.path / "opevo.db").string();
  auto args = smallSearch(db, 3);
  args.insert(args.begin(), OPEVO_CLI);
  ChildStreams quiet;
  quiet.stdoutToNull = true;
  quiet.stderrToNull = true;
  const pid_t pid = startChild(args, quiet);
  // Killed once the first candidate was tuned (and possibly trained).
  std::vector<KasCandidateRow> before;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  bool exited = false;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    if (fs::exists(db)) {
      Store store(db);
      before = store.kasCandidates(1);
      if (!before.empty() && before.front().stage != KasStage::Sampled) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(exited) << "the search ended before it could be killed";
  // While it runs, it lists as running, and a second program may not resume it beside it (both
  // stored their results into one search, the last writer's figures winning).
  const auto listed = [&] {
    const ProcessResult l = runProcess(OPEVO_CLI, {"kas", "searches", "--db", db, "--json"});
    EXPECT_EQ(l.status, 0) << l.err;
    const auto j = nlohmann::json::parse(l.out, nullptr, false);
    return j.is_array() && j.size() == 1 ? j[0].value("status", "") : "unreadable: " + l.out;
  };
  EXPECT_EQ(listed(), "running");
  const ProcessResult twice = runProcess(OPEVO_CLI, {"kas", "search", "--resume", "1", "--db", db});
  EXPECT_EQ(twice.status, 2) << twice.err;
  EXPECT_NE(twice.err.find("kernel search 1 of " + db + " is being run by another process"),
            std::string::npos)
      << twice.err;
  kill(pid, SIGKILL);
  waitChild(pid);
  {
    Store store(db);
    before = store.kasCandidates(1);
    EXPECT_NE(store.kasSearch(1)->status, RunStatus::Finished);
  }
  // Stored as running by a program that is gone: it reads as interrupted, and resumes.
  EXPECT_EQ(listed(), "interrupted");
  ASSERT_FALSE(before.empty());

  const ProcessResult r =
      runProcess(OPEVO_CLI, {"kas", "search", "--resume", "1", "--db", db, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  Store store(db);
  EXPECT_EQ(store.kasSearch(1)->status, RunStatus::Finished);
  EXPECT_EQ(store.kasSearches().size(), 1u);
  const auto after = store.kasCandidates(1);
  ASSERT_EQ(after.size(), 3u);
  std::set<std::string> hashes;
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].seq, static_cast<int>(i) + 1);
    EXPECT_TRUE(hashes.insert(after[i].hash).second) << "kernel " << after[i].hash << " twice";
    EXPECT_TRUE(after[i].stage == KasStage::Trained || after[i].stage == KasStage::Failed)
        << after[i].seq << " left " << kasStageNames().name(after[i].stage);
  }
  // What was stored before the kill is what the resume kept: the same kernels, and a step
  // finished then is not run again.
  for (const auto& b : before) {
    const auto& a = after[static_cast<std::size_t>(b.seq - 1)];
    EXPECT_EQ(a.hash, b.hash);
    if (b.stage != KasStage::Sampled) {
      EXPECT_EQ(a.kernelMs, b.kernelMs);
      EXPECT_DOUBLE_EQ(a.tuneSeconds, b.tuneSeconds);
    }
    if (b.stage == KasStage::Trained) {
      EXPECT_EQ(a.accuracy, b.accuracy);
    }
  }
}

TEST(CliKas, BadInputIsNamed) {
  TempDir dir;
  const std::string db = (dir.path / "opevo.db").string();
  const ProcessResult net =
      runProcess(OPEVO_CLI, {"kas", "search", "--network", "nosuch", "--db", db});
  EXPECT_EQ(net.status, 2);
  EXPECT_NE(net.err.find("nosuch"), std::string::npos) << net.err;

  const std::string bad = (dir.path / "bad.json").string();
  std::ofstream(bad) << R"({"nodes": [{"op": "input"}, {"op": "twist", "input": 0}]})";
  const ProcessResult train = runProcess(OPEVO_CLI, {"kas", "train", bad});
  EXPECT_EQ(train.status, 2);
  EXPECT_NE(train.err.find("bad.json"), std::string::npos) << train.err;
  EXPECT_NE(train.err.find("twist"), std::string::npos) << train.err;

  // Refused before the database was opened: none was created for it.
  EXPECT_FALSE(fs::exists(db));
  { Store store(db); }
  const ProcessResult resume =
      runProcess(OPEVO_CLI, {"kas", "search", "--resume", "7", "--db", db});
  EXPECT_EQ(resume.status, 2);
  EXPECT_NE(resume.err.find("no kernel search 7"), std::string::npos) << resume.err;

  // A G that divides no replaced layer's channels fitted only the kernels without groups.
  const ProcessResult three =
      runProcess(OPEVO_CLI, {"kas", "sample", "--count", "2", "--groups", "3"});
  EXPECT_EQ(three.status, 2);
  EXPECT_NE(three.err.find("--groups 3 does not divide the channels of resnet18's replaced "
                           "convolutions (1, 2, 4, 8, 16, 32, 64 do)"),
            std::string::npos)
      << three.err;

  // Hexadecimal is no number of seconds (CLI11 alone read it as 16), nor is a negative one.
  for (const char* seconds : {"0x10", "-5"}) {
    const ProcessResult r =
        runProcess(OPEVO_CLI, {"kas", "search", "--seconds", seconds, "--db", db});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(std::string("got ") + seconds), std::string::npos) << r.err;
  }
  const ProcessResult count =
      runProcess(OPEVO_CLI, {"kas", "search", "--candidates", "0x10", "--db", db});
  EXPECT_EQ(count.status, 2);
  EXPECT_NE(count.err.find("got 0x10"), std::string::npos) << count.err;
}

}  // namespace
}  // namespace opevo::test
