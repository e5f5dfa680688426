#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace opevo::test {

struct ProcessResult {
  int status = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
};

inline std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs a program with arguments through the shell, capturing stdout and stderr separately.
inline ProcessResult runProcess(const std::string& program, const std::vector<std::string>& args,
                                const std::string& input = "") {
  char errPath[] = "/tmp/opevo-test-err-XXXXXX";
  const int fd = mkstemp(errPath);
  close(fd);
  std::string command = shellQuote(program);
  for (const auto& a : args) command.append(" ").append(shellQuote(a));
  command.append(" 2>").append(shellQuote(errPath));
  if (!input.empty())
    command = std::string("printf '%s' ").append(shellQuote(input)) + " | " + command;
  ProcessResult r;
  FILE* pipe = popen(command.c_str(), "r");
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  std::ifstream errFile(errPath);
  std::stringstream ss;
  ss << errFile.rdbuf();
  r.err = ss.str();
  std::remove(errPath);
  return r;
}

// Runs a program as on a disk with no room left: no regular file it writes can grow past
// `blocks` x 512 bytes (ulimit -f; the write fails with "File too large", where a full disk says
// "No space left on device"), and SIGXFSZ, which would end it, is ignored. Its stderr comes through
// the stdout pipe, not a file that would hit the limit too: `out` and `err` both hold the two
// streams. A database the program reads must be held open by the test (a Store) meanwhile, or
// SQLite could not make its shared-memory index.
inline ProcessResult runProcessOnFullDisk(int blocks, const std::string& program,
                                          const std::vector<std::string>& args) {
  std::string command = shellQuote(program);
  for (const auto& a : args) command.append(" ").append(shellQuote(a));
  command = "(trap '' XFSZ; ulimit -f " + std::to_string(blocks) + "; exec " + command + ") 2>&1";
  ProcessResult r;
  FILE* pipe = popen(command.c_str(), "r");
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.err = r.out;
  return r;
}

}  // namespace opevo::test
