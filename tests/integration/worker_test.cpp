#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "ops/operator_json.h"
#include "worker/protocol.h"
#include "worker/worker_client.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

// Builds a kernel library from source with the system compiler, as the CPU backend does.
std::string buildKernel(const fs::path& dir, const std::string& name, const std::string& body,
                        const std::string& includes = "") {
  const fs::path source = dir / (name + ".cpp");
  std::ofstream(source) << includes
                        << "extern \"C\" void opevo_cpu_kernel(const float* A, const float* B, "
                           "float* C) {\n"
                        << body << "\n}\n";
  const fs::path library = dir / (name + ".so");
  const std::string command =
      "c++ -O1 -shared -fPIC -o " + library.string() + " " + source.string();
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return library.string();
}

class WorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/opevo-worker-test-XXXXXX";
    dir = mkdtemp(pattern);
    op.name = "tiny";
    op.kind = OpKind::MatMul;
    op.n = 8;
    op.m = 8;
    op.k = 8;
  }
  void TearDown() override { fs::remove_all(dir); }

  WorkerClient::Reply measure(WorkerClient& client, const std::string& library,
                              double timeout = 10) {
    return client.call({{"cmd", "measure"},
                        {"backend", "cpu"},
                        {"op", operatorToJson(op)},
                        {"library", library},
                        {"timing", {{"min_total_ms", 1}, {"min_runs", 3}}}},
                       timeout);
  }

  fs::path dir;
  OperatorSpec op;
};

const char* kCorrect =
    "for (int i = 0; i < 8; ++i) for (int j = 0; j < 8; ++j) { float s = 0;"
    " for (int k = 0; k < 8; ++k) s += A[i * 8 + k] * B[k * 8 + j]; C[i * 8 + j] = s; }";

// kCorrect, each run after a sleep of `ms`.
std::string buildSlowKernel(const fs::path& dir, const std::string& name, int ms) {
  return buildKernel(dir, name,
                     "std::this_thread::sleep_for(std::chrono::milliseconds(" + std::to_string(ms) +
                         "));\n" + kCorrect,
                     "#include <chrono>\n#include <thread>\n");
}

TEST_F(WorkerTest, MeasuresAVerifiedKernel) {
  WorkerClient client(OPEVO_WORKER);
  const auto reply = measure(client, buildKernel(dir, "good", kCorrect));
  ASSERT_TRUE(reply.ok) << reply.message;
  const Measurement m = measurementFromReply(reply);
  EXPECT_EQ(m.status, TrialStatus::Ok) << m.message;
  EXPECT_GT(m.speed, 0);
  EXPECT_GE(m.timesMs.size(), 3u);
  // What the trial cost: its verification, timed in the worker, and the whole call (the worker's
  // start included), which holds the timed runs and the verification.
  EXPECT_GT(m.verifyMs, 0);
  double runs = 0;
  for (double ms : m.timesMs) runs += ms;
  EXPECT_GT(m.measureMs, runs + m.verifyMs);
}

// A kernel slower than the cut-off is timed by one run, and says so; under the cut-off it is
// timed as usual.
TEST_F(WorkerTest, AKernelOverTheCutOffIsTimedByItsCheckedRun) {
  WorkerClient client(OPEVO_WORKER);
  const std::string slow = buildKernel(
      dir, "slow",
      std::string("volatile float sink = 0; for (int r = 0; r < 2000000; ++r) sink = sink + 1;\n") +
          kCorrect);
  auto timed = [&](double cutoffMs) {
    const auto reply =
        client.call({{"cmd", "measure"},
                     {"backend", "cpu"},
                     {"op", operatorToJson(op)},
                     {"library", slow},
                     {"timing", {{"min_total_ms", 1}, {"min_runs", 3}, {"cutoff_ms", cutoffMs}}}},
                    10);
    EXPECT_TRUE(reply.ok) << reply.message;
    return measurementFromJson(reply.body["measurement"]);
  };
  const Measurement cut = timed(1e-3);
  EXPECT_EQ(cut.status, TrialStatus::Ok) << cut.message;
  EXPECT_EQ(cut.timesMs.size(), 1u);
  EXPECT_NE(cut.message.find("cut-off"), std::string::npos) << cut.message;
  const Measurement full = timed(0);
  EXPECT_GE(full.timesMs.size(), 3u);
  EXPECT_TRUE(full.message.empty()) << full.message;
}

// A kernel whose first run alone is slow (a library's first run pays its page faults and cold
// caches) is not cut off by that run: one warm run decides, and this one is timed fully.
TEST_F(WorkerTest, AKernelSlowOnlyOnItsFirstRunIsTimedFully) {
  WorkerClient client(OPEVO_WORKER);
  const std::string firstSlow = buildKernel(
      dir, "first_slow",
      std::string("static int calls = 0;\n"
                  "if (calls++ == 0) { volatile float sink = 0; for (int r = 0; r < 2000000; "
                  "++r) sink = sink + 1; }\n") +
          kCorrect);
  auto timed = [&](double cutoffMs) {
    const auto reply = client.call(
        {{"cmd", "measure"},
         {"backend", "cpu"},
         {"op", operatorToJson(op)},
         {"library", firstSlow},
         {"timing",
          {{"min_total_ms", 1}, {"min_runs", 3}, {"warmup_runs", 1}, {"cutoff_ms", cutoffMs}}}},
        10);
    EXPECT_TRUE(reply.ok) << reply.message;
    return measurementFromJson(reply.body["measurement"]);
  };
  const Measurement full = timed(0);
  ASSERT_EQ(full.status, TrialStatus::Ok) << full.message;
  // The cut-off 100 times its warm median (room for a busy machine), far under its first run (2
  // million increments: milliseconds).
  const Measurement m = timed(100 * full.medianMs);
  EXPECT_EQ(m.status, TrialStatus::Ok) << m.message;
  EXPECT_GE(m.timesMs.size(), 3u) << m.message;
  EXPECT_TRUE(m.message.empty()) << m.message;
  EXPECT_LT(m.medianMs, 100 * full.medianMs);
}

// A kernel whose runs asked would not end within the trial's limit is timed by the runs that
// fit, and says so: killed at the limit (the caller's timeout), it lost its verified result, and on
// a 2-core CPU every trial of C2 did. Without a limit it is timed as asked.
TEST_F(WorkerTest, AKernelTooSlowForItsRunsIsTimedByTheRunsThatFit) {
  const fs::path library = buildSlowKernel(dir, "slow_runs", 200);
  WorkerClient client(OPEVO_WORKER);
  const auto timed = [&](int runs, double limitSeconds, bool limitSent) {
    nlohmann::json timing = {{"min_total_ms", 1}, {"min_runs", runs}, {"warmup_runs", 1}};
    if (limitSent) timing["trial_ms"] = limitSeconds * 1e3;
    return client.call({{"cmd", "measure"},
                        {"backend", "cpu"},
                        {"op", operatorToJson(op)},
                        {"library", library.string()},
                        {"timing", timing}},
                       limitSeconds);
  };
  const auto asked = timed(3, 10, false);
  ASSERT_TRUE(asked.ok) << asked.message;
  const Measurement full = measurementFromReply(asked);
  EXPECT_EQ(full.status, TrialStatus::Ok) << full.message;
  EXPECT_EQ(full.timesMs.size(), 3u);
  EXPECT_TRUE(full.message.empty()) << full.message;
  // Told the limit, the worker (started by the call above, as a tuning run's is) times what fits
  // and answers in time.
  const auto told = timed(10, 2, true);
  ASSERT_TRUE(told.ok) << told.message;
  const Measurement fit = measurementFromReply(told);
  EXPECT_EQ(fit.status, TrialStatus::Ok) << fit.message;
  EXPECT_GE(fit.timesMs.size(), 1u);
  EXPECT_LT(fit.timesMs.size(), 10u);
  EXPECT_GE(fit.medianMs, 200);
  EXPECT_NE(fit.message.find("; the runs asked pass the trial's 2.00 s limit"), std::string::npos)
      << fit.message;
  // Ten runs of 0.2 s after the checked one take 2.2 s: over the 2 s limit, the caller gives up.
  const auto unsent = timed(10, 2, false);
  EXPECT_FALSE(unsent.ok);
  EXPECT_EQ(unsent.failure, TrialStatus::Timeout);
}

TEST_F(WorkerTest, SurvivesSegfaultHangAndWrongResult) {
  WorkerClient client(OPEVO_WORKER);
  const std::string good = buildKernel(dir, "good", kCorrect);

  const auto crash = measure(client, buildKernel(dir, "crash", "*(volatile int*)nullptr = 1;"));
  EXPECT_FALSE(crash.ok);
  EXPECT_EQ(crash.failure, TrialStatus::RuntimeFault);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // AddressSanitizer (ThreadSanitizer) catches the segfault itself and exits the worker with
  // status 1 (66).
  EXPECT_NE(crash.message.find("exited with status"), std::string::npos) << crash.message;
#else
  EXPECT_NE(crash.message.find("signal 11"), std::string::npos) << crash.message;
#endif

  const auto after = measure(client, good);
  ASSERT_TRUE(after.ok) << after.message;
  EXPECT_EQ(measurementFromJson(after.body["measurement"]).status, TrialStatus::Ok);
  EXPECT_EQ(client.restarts(), 1);

  const auto hang =
      measure(client, buildKernel(dir, "hang", "while (true) { asm volatile(\"\"); }"), 2.0);
  EXPECT_FALSE(hang.ok);
  EXPECT_EQ(hang.failure, TrialStatus::Timeout);

  const auto wrong =
      measure(client, buildKernel(dir, "wrong", "for (int i = 0; i < 64; ++i) C[i] = 0.5f;"));
  ASSERT_TRUE(wrong.ok) << wrong.message;
  const Measurement w = measurementFromJson(wrong.body["measurement"]);
  EXPECT_EQ(w.status, TrialStatus::WrongResult);
  EXPECT_NE(w.message.find("differs from the reference"), std::string::npos);

  const auto skipping =
      measure(client, buildKernel(dir, "partial", "for (int i = 0; i < 63; ++i) C[i] = 0;"));
  ASSERT_TRUE(skipping.ok);
  EXPECT_EQ(measurementFromJson(skipping.body["measurement"]).status, TrialStatus::WrongResult);

  const auto last = measure(client, good);
  ASSERT_TRUE(last.ok) << last.message;
  EXPECT_EQ(client.restarts(), 2);  // after the crash and after the hang
}

// A worker's start (the process and its shared libraries loaded) is not its first request's: the
// request's timeout counts once the fresh worker answered its hello.
TEST_F(WorkerTest, AWorkersStartIsNotCountedAgainstItsRequest) {
  const fs::path slow = dir / "slow-worker";
  std::ofstream(slow) << "#!/bin/sh\nsleep 2\nexec " << OPEVO_WORKER << " \"$@\"\n";
  fs::permissions(slow, fs::perms::owner_all);
  WorkerClient client(slow.string());
  // 2 s to start and four runs of 0.4 s (checked, three timed) pass 3 s together, not apart.
  const auto reply = measure(client, buildSlowKernel(dir, "slow", 400), 3);
  ASSERT_TRUE(reply.ok) << reply.message;
  EXPECT_EQ(measurementFromJson(reply.body["measurement"]).status, TrialStatus::Ok);
  EXPECT_GE(reply.seconds, 3.0);  // the call's own time still holds the start

  // One that never starts costs its request's limit once more, and says so.
  const fs::path stuck = dir / "stuck-worker";
  std::ofstream(stuck) << "#!/bin/sh\nexec sleep 60\n";
  fs::permissions(stuck, fs::perms::owner_all);
  WorkerClient never(stuck.string());
  const auto gone = measure(never, buildKernel(dir, "good", kCorrect), 1);
  EXPECT_FALSE(gone.ok);
  EXPECT_EQ(gone.failure, TrialStatus::Timeout);
  EXPECT_NE(gone.message.find("did not start within 1 s"), std::string::npos) << gone.message;
  EXPECT_LT(gone.seconds, 3.0);
}

// A checked run over its give-up limit ends the worker at once with a timeout, where the hang
// above holds it until the trial's timeout; the next trial gets a fresh worker.
TEST_F(WorkerTest, ACheckedRunOverItsGiveUpLimitEndsTheWorkerAtOnce) {
  WorkerClient client(OPEVO_WORKER);
  const std::string hang = buildKernel(dir, "hang", "while (true) { asm volatile(\"\"); }");
  const auto start = std::chrono::steady_clock::now();
  const auto reply = client.call({{"cmd", "measure"},
                                  {"backend", "cpu"},
                                  {"op", operatorToJson(op)},
                                  {"library", hang},
                                  {"timing", {{"min_total_ms", 1}, {"give_up_ms", 200}}}},
                                 20);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(reply.ok) << reply.message;
  EXPECT_TRUE(reply.body.value("worker_exits", false));
  const Measurement m = measurementFromJson(reply.body["measurement"]);
  EXPECT_EQ(m.status, TrialStatus::Timeout);
  EXPECT_NE(m.message.find("still running after 200 ms"), std::string::npos) << m.message;
  EXPECT_LT(seconds, 10.0);  // not the 20 s the call allowed
  // The whole call is the trial's measurement time: the give-up's wait at least.
  const double measureMs = measurementFromReply(reply).measureMs;
  EXPECT_GE(measureMs, 200);
  EXPECT_LE(measureMs, seconds * 1e3);

  const auto after = measure(client, buildKernel(dir, "good", kCorrect));
  ASSERT_TRUE(after.ok) << after.message;
  EXPECT_EQ(measurementFromJson(after.body["measurement"]).status, TrialStatus::Ok);
  EXPECT_EQ(client.restarts(), 1);
}

TEST_F(WorkerTest, ReferenceIsTimed) {
  WorkerClient client(OPEVO_WORKER);
  const auto reply = client.call({{"cmd", "reference"},
                                  {"backend", "cpu"},
                                  {"op", operatorToJson(op)},
                                  {"timing", {{"min_total_ms", 1}}}},
                                 10);
  ASSERT_TRUE(reply.ok);
  EXPECT_EQ(reply.body["library"], "OpenBLAS sgemm");
  EXPECT_GT(measurementFromJson(reply.body["measurement"]).speed, 0);
}

}  // namespace
}  // namespace opevo
