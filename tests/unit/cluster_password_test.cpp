#include "cluster/cluster_password.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cluster/redis_server.h"
#include "common/error.h"

// The cluster's password: long enough to serve with, and a file that holds it kept to its owner.
namespace opevo::cluster {
namespace {

namespace fs = std::filesystem;

class PasswordFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/opevo-password-XXXXXX";
    m_dir = mkdtemp(pattern);
    m_file = m_dir / "password";
    std::ofstream(m_file) << "a-password-long-enough\n";
    unsetenv("OPEVO_CLUSTER_PASSWORD");
    unsetenv("OPEVO_CLUSTER_PASSWORD_FILE");
  }
  void TearDown() override {
    unsetenv("OPEVO_CLUSTER_PASSWORD_FILE");
    fs::remove_all(m_dir);
  }
  fs::path m_dir, m_file;
};

TEST_F(PasswordFile, OneReadableByOthersIsWarnedAboutWithTheFix) {
  ::chmod(m_file.c_str(), 0644);
  const auto warning = passwordFileWarning(m_file.string());
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("the password file " + m_file.string() + " can be read by others"),
            std::string::npos)
      << *warning;
  EXPECT_NE(warning->find("(mode 0644): chmod 600 " + m_file.string()), std::string::npos)
      << *warning;
  // The same file named by the environment.
  setenv("OPEVO_CLUSTER_PASSWORD_FILE", m_file.c_str(), 1);
  EXPECT_TRUE(passwordFileWarning());
  EXPECT_EQ(passwordFilePath(), m_file.string());
  ::chmod(m_file.c_str(), 0620);
  ASSERT_TRUE(passwordFileWarning());
  EXPECT_NE(passwordFileWarning()->find("can be changed by others"), std::string::npos);
}

TEST_F(PasswordFile, OneOnlyItsOwnerReadsIsFine) {
  ::chmod(m_file.c_str(), 0600);
  EXPECT_FALSE(passwordFileWarning(m_file.string()));
  ::chmod(m_file.c_str(), 0400);
  EXPECT_FALSE(passwordFileWarning(m_file.string()));
  EXPECT_EQ(clusterPassword(m_file.string()), "a-password-long-enough");
  // No file at all: the password comes from the environment.
  EXPECT_FALSE(passwordFileWarning());
}

TEST(ServePassword, AShortOneIsRefusedSayingHowLong) {
  try {
    checkServePassword("a");
    FAIL() << "a one-character password was accepted";
  } catch (const InputError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("has 1 character;"), std::string::npos) << text;
    EXPECT_NE(text.find(std::to_string(kMinPasswordLength) + " or more"), std::string::npos)
        << text;
  }
  EXPECT_THROW(checkServePassword(std::string(kMinPasswordLength - 1, 'x')), InputError);
  EXPECT_NO_THROW(checkServePassword(std::string(kMinPasswordLength, 'x')));
}

TEST(ServePassword, EveryCommandSaysBothVariablesTheSameWay) {
  const std::string help = passwordFileHelp();
  EXPECT_NE(help.find("OPEVO_CLUSTER_PASSWORD,"), std::string::npos) << help;
  EXPECT_NE(help.find("OPEVO_CLUSTER_PASSWORD_FILE"), std::string::npos) << help;
  EXPECT_NE(passwordHint().find("OPEVO_CLUSTER_PASSWORD_FILE"), std::string::npos);
}

TEST(RedisServerExit, ASignalIsNamedNotAddedTo128) {
  EXPECT_EQ((RedisServer::Exit{0, SIGKILL}.describe()), "was killed by signal 9 (SIGKILL)");
  EXPECT_EQ((RedisServer::Exit{1, 0}.describe()), "exited with status 1");
}

}  // namespace
}  // namespace opevo::cluster
