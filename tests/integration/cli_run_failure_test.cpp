// Why a stored run failed, as `opevo show` and `opevo runs` print it: they said "failed (failed)"
// and no more, the error gone with the program that met it.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

const std::string kReplay =
    std::string("replay:") + OPEVO_DATASETS_DIR + "/gemm/RTX_2080_Ti.json.gz";

TEST(CliRunFailure, ShowAndRunsSayWhyARunFailed) {
  char pattern[] = "/tmp/opevo-run-failure-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const std::string db = (dir / "o.db").string();
  for (int i = 0; i < 2; ++i) {
    const ProcessResult tuned = runProcess(
        OPEVO_CLI, {"tune", "--backend", kReplay, "--algo", "random", "--trials", "3", "--db", db});
    ASSERT_EQ(tuned.status, 0) << tuned.err;
  }
  // As the store keeps the end of a run whose device went away after its trials (the engine's
  // failure): a long message, over two lines as a compiler's may be.
  const std::string failure =
      "the device was lost: CUDA_ERROR_ILLEGAL_ADDRESS while timing the kernel, and the worker "
      "that ran it could not be restarted\nsecond line of the driver's log";
  {
    Store store(db);
    store.setRunStatus(1, RunStatus::Failed, EndReason::Failed, failure);
  }
  const ProcessResult shown = runProcess(OPEVO_CLI, {"show", "1", "--db", db});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.out.find("failed (failed)"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("failure: " + failure + "\n"), std::string::npos) << shown.out;
  const ProcessResult json = runProcess(OPEVO_CLI, {"show", "1", "--db", db, "--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["run"]["failure"], failure);
  // A run that did not fail has none.
  const ProcessResult fine = runProcess(OPEVO_CLI, {"show", "2", "--db", db, "--json"});
  EXPECT_FALSE(nlohmann::json::parse(fine.out)["run"].contains("failure")) << fine.out;

  const ProcessResult listed = runProcess(OPEVO_CLI, {"runs", "--db", db});
  ASSERT_EQ(listed.status, 0) << listed.err;
  // The failed run's row ends with its failure cut short; the other row with its start.
  std::string first, second;
  const std::size_t one = listed.out.find('\n') + 1, two = listed.out.find('\n', one) + 1;
  first = listed.out.substr(one, two - one - 1);
  second = listed.out.substr(two, listed.out.find('\n', two) - two);
  EXPECT_NE(first.find("  # the device was lost: CUDA_ERROR_ILLEGAL_ADDRESS while timing"),
            std::string::npos)
      << listed.out;
  EXPECT_LT(first.size(), 220u) << first;
  EXPECT_EQ(first.find("second line"), std::string::npos) << first;
  EXPECT_EQ(second.find('#'), std::string::npos) << second;
  const ProcessResult listedJson = runProcess(OPEVO_CLI, {"runs", "--db", db, "--json"});
  EXPECT_EQ(nlohmann::json::parse(listedJson.out)[0]["failure"], failure);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace opevo::test
