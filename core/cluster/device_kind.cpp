#include "cluster/device_kind.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "io/replay_dataset.h"

namespace opevo::cluster {
namespace {

// FNV-1a: a fingerprint, not a defence against forgery (the password is that).
void mix(std::uint64_t& h, const std::string& text) {
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  h ^= 0xff;  // separates "ab"+"c" from "a"+"bc"
  h *= 1099511628211ULL;
}

}  // namespace

std::string deviceKind(const std::string& backend, const std::string& device) {
  return backend + ":" + device;
}

std::string replayKind(const ReplayDataset& dataset) {
  std::vector<std::string> lines;
  lines.reserve(dataset.table.size());
  char number[32];
  for (const auto& [config, m] : dataset.table) {
    std::snprintf(number, sizeof number, "%.17g", m.speed);
    lines.push_back(dataset.space.format(config) + "\t" + std::string(statusName(m.status)) + "\t" +
                    number);
  }
  std::sort(lines.begin(), lines.end());
  std::uint64_t h = 1469598103934665603ULL;
  mix(h, dataset.kernelName);
  mix(h, dataset.deviceName);
  mix(h, dataset.speedUnit);
  for (const std::string& line : lines) mix(h, line);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return deviceKind("replay", hex);
}

std::string kindBackend(const std::string& kind) {
  return kind.substr(0, kind.find(':'));
}

}  // namespace opevo::cluster
