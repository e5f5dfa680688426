#include "cluster/cluster_password.h"

#include <sys/stat.h>

#include <cstdio>
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

const char* envValue(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

}  // namespace

std::string passwordHint() {
  return "set OPEVO_CLUSTER_PASSWORD or OPEVO_CLUSTER_PASSWORD_FILE, or give --password-file FILE";
}

std::string passwordFileHelp() {
  return "Read the cluster's password from this file's first line; the file should be readable "
         "by its owner only (chmod 600). Default: OPEVO_CLUSTER_PASSWORD, else the file "
         "OPEVO_CLUSTER_PASSWORD_FILE names";
}

std::string passwordFilePath(const std::string& passwordFile) {
  if (!passwordFile.empty()) return passwordFile;
  if (envValue("OPEVO_CLUSTER_PASSWORD")) return {};
  if (const char* file = envValue("OPEVO_CLUSTER_PASSWORD_FILE")) return file;
  return {};
}

std::string clusterPassword(const std::string& passwordFile) {
  if (!passwordFile.empty()) return firstLine(passwordFile, "--password-file");
  if (const char* env = envValue("OPEVO_CLUSTER_PASSWORD")) return env;
  if (const char* file = envValue("OPEVO_CLUSTER_PASSWORD_FILE"))
    return firstLine(file, "OPEVO_CLUSTER_PASSWORD_FILE");
  return {};
}

std::optional<std::string> passwordFileWarning(const std::string& passwordFile) {
  const std::string path = passwordFilePath(passwordFile);
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return std::nullopt;
  // Execute bits alone let nobody read or change it (0711 said "can be changed").
  if ((st.st_mode & (S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH)) == 0) return std::nullopt;
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
  const bool readable = (st.st_mode & (S_IRGRP | S_IROTH)) != 0;
  return "the password file " + path + " can be " + (readable ? "read" : "changed") +
         " by others than its owner (mode " + mode + "): chmod 600 " + path;
}

void checkServePassword(const std::string& password) {
  if (password.size() >= kMinPasswordLength) return;
  throw InputError("the cluster's password has " + std::to_string(password.size()) +
                   (password.size() == 1 ? " character" : " characters") + "; serving needs " +
                   std::to_string(kMinPasswordLength) +
                   " or more (Redis answers every guess it is sent): make one with, e.g., "
                   "openssl rand -base64 18 > ~/.opevo-cluster; chmod 600 ~/.opevo-cluster");
}

}  // namespace opevo::cluster
