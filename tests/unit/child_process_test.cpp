#include "common/child_process.h"

#include <gtest/gtest.h>
#include <unistd.h>

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

}  // namespace
}  // namespace opevo
