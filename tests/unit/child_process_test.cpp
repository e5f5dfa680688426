#include "common/child_process.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace opevo {
namespace {

std::string readAll(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::filesystem::path tempFile(const char* name) {
  return std::filesystem::temp_directory_path() /
         (std::string(name) + "-" + std::to_string(getpid()));
}

TEST(ChildProcess, ReportsTheExitStatus) {
  EXPECT_EQ(waitChild(startChild({"true"})), 0);
  EXPECT_EQ(waitChild(startChild({"sh", "-c", "exit 7"})), 7);
}

TEST(ChildProcess, ReportsTheSignalThatKilledItAsAShellDoes) {
  EXPECT_EQ(waitChild(startChild({"sh", "-c", "kill -9 $$"})), 128 + 9);
}

TEST(ChildProcess, WritesStandardOutputAndErrorToAFile) {
  const auto out = tempFile("opevo-child-out");
  ChildStreams streams;
  streams.stdoutFile = out.string();
  streams.stderrToStdout = true;
  ASSERT_EQ(waitChild(startChild({"sh", "-c", "echo to-out; echo to-err >&2"}, streams)), 0);
  EXPECT_EQ(readAll(out), "to-out\nto-err\n");
  std::filesystem::remove(out);
}

TEST(ChildProcess, ReadsStandardInputFromADescriptor) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const auto out = tempFile("opevo-child-in");
  ChildStreams streams;
  streams.stdinFrom = fds[0];
  streams.stdoutFile = out.string();
  const pid_t pid = startChild({"cat"}, streams);
  close(fds[0]);
  ASSERT_EQ(write(fds[1], "through the pipe", 16), 16);
  close(fds[1]);
  ASSERT_EQ(waitChild(pid), 0);
  EXPECT_EQ(readAll(out), "through the pipe");
  std::filesystem::remove(out);
}

TEST(ChildProcess, AMissingProgramIsAnErrorThatNamesIt) {
  try {
    startChild({"opevo-no-such-program"});
    FAIL() << "a missing program was started";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("opevo-no-such-program"), std::string::npos) << e.what();
  }
  EXPECT_THROW(startChild({}), std::runtime_error);
}

TEST(ChildProcess, ATimeLimitStopsTheChildAndWhatItStarted) {
  // sh starts sleep as its own child: the whole group must go, not only sh.
  const auto marker = tempFile("opevo-child-grandchild");
  std::filesystem::remove(marker);
  const auto start = std::chrono::steady_clock::now();
  bool timedOut = false;
  const int status =
      waitChild(startChild({"sh", "-c", "sleep 30 & echo $! > " + marker.string() + "; wait"}), 0.5,
                &timedOut);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(timedOut);
  EXPECT_EQ(status, 128 + 9);
  EXPECT_LT(seconds, 10.0);
  const pid_t sleeper = static_cast<pid_t>(std::stol(readAll(marker)));
  // Killed and reaped by init shortly after its parent died.
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = kill(sleeper, 0) != 0 ||
           readAll("/proc/" + std::to_string(sleeper) + "/stat").find(") Z") != std::string::npos;
    if (!gone) usleep(10000);
  }
  EXPECT_TRUE(gone) << "the grandchild " << sleeper << " outlived the time limit";
  std::filesystem::remove(marker);
}

TEST(ChildProcess, AChildWithinItsTimeLimitReportsItsStatus) {
  bool timedOut = true;
  EXPECT_EQ(waitChild(startChild({"sh", "-c", "exit 3"}), 30, &timedOut), 3);
  EXPECT_FALSE(timedOut);
}

// A forked child (the cluster's redis-server) keeps the descriptor it is passed as its
// descriptor 3, and no other of ours; its streams go where they are told.
TEST(ChildProcess, AForkedChildKeepsThePassedDescriptorAsItsThird) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  int other[2];
  ASSERT_EQ(pipe(other), 0);  // open in us, not passed: the child must not see it
  const auto out = tempFile("opevo-child-pass");
  ChildStreams streams;
  streams.stdinFromNull = true;
  streams.stdoutFile = out.string();
  streams.stderrToStdout = true;
  ChildLifetime lifetime;
  lifetime.endsWithParent = true;
  lifetime.passFd = fds[1];
  const std::string script = "echo passed >&3; ls /proc/self/fd | sort -n | tr '\\n' ' '; cat";
  const pid_t pid = startChild({"sh", "-c", script}, streams, lifetime);
  close(fds[1]);
  char buffer[16] = {};
  ASSERT_EQ(read(fds[0], buffer, 7), 7);
  EXPECT_EQ(std::string(buffer), "passed\n");
  ASSERT_EQ(waitChild(pid), 0);  // cat read /dev/null: at its end at once
  // 0-3, and the one ls opens to list them.
  EXPECT_EQ(readAll(out), "0 1 2 3 4 ");
  close(fds[0]);
  close(other[0]);
  close(other[1]);
  std::filesystem::remove(out);
}

TEST(ChildProcess, AForkedChildThatCannotStartIsAnErrorThatNamesIt) {
  ChildLifetime lifetime;
  lifetime.endsWithParent = true;
  for (const char* program : {"opevo-no-such-program", "/etc/hostname"}) {
    try {
      startChild({program}, {}, lifetime);
      ADD_FAILURE() << program << " was started";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(program), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace opevo
