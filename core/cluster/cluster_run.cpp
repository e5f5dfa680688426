#include "cluster/cluster_run.h"

#include "store/records.h"

namespace opevo::cluster {
namespace {

constexpr const char* kOnCluster = " on the cluster at ";

}  // namespace

std::string onClusterLabel(const std::string& address) {
  return kOnCluster + address;
}

std::optional<std::string> clusterOfLabel(const std::string& label) {
  const std::string marker = kOnCluster;
  const auto at = label.rfind(marker);
  if (at == std::string::npos) return std::nullopt;
  std::string address = label.substr(at + marker.size());
  // A label may go on after the address (", reusing stored trials"); an address has no ", ".
  if (const auto end = address.find(", "); end != std::string::npos) address.resize(end);
  if (address.empty()) return std::nullopt;
  return address;
}

std::optional<std::string> clusterOfRun(const RunRecord& run) {
  return clusterOfLabel(run.label);
}

std::optional<std::string> clusterResumeProblem(const RunRecord& run, bool resumeOnCluster,
                                                bool here) {
  if (resumeOnCluster || here) return std::nullopt;
  const auto address = clusterOfRun(run);
  if (!address) return std::nullopt;
  return "run " + std::to_string(run.id) + " was measured" + onClusterLabel(*address) +
         ": resume it with --cluster " + *address +
         ", or with --here to measure the rest on this machine";
}

}  // namespace opevo::cluster
