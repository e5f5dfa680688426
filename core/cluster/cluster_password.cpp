#include "cluster/cluster_password.h"

#include <cstdlib>
#include <fstream>

#include "common/error.h"

namespace opevo::cluster {
namespace {

std::string firstLine(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw InputError(what + " '" + path + "' cannot be read");
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
    line.pop_back();
  if (line.empty()) throw InputError(what + " '" + path + "' holds no password on its first line");
  return line;
}

}  // namespace

std::string passwordHint() {
  return "set OPEVO_CLUSTER_PASSWORD or give --password-file FILE";
}

std::string clusterPassword(const std::string& passwordFile) {
  if (!passwordFile.empty()) return firstLine(passwordFile, "--password-file");
  if (const char* env = std::getenv("OPEVO_CLUSTER_PASSWORD"); env && *env) return env;
  if (const char* file = std::getenv("OPEVO_CLUSTER_PASSWORD_FILE"); file && *file)
    return firstLine(file, "OPEVO_CLUSTER_PASSWORD_FILE");
  return {};
}

}  // namespace opevo::cluster
