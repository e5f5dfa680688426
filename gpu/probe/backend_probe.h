#pragma once

#include <string>
#include <vector>

namespace opevo {

struct DeviceInfo {
  std::string name;
  std::string detail;  // architecture, memory, driver
};

struct BackendInfo {
  std::string name;      // "cuda", "hip", "cpu"
  bool available = false;
  std::string library;   // the runtime library that was opened
  std::string reason;    // why it is not available
  std::vector<DeviceInfo> devices;
};

// Looks for each runtime with dlopen and asks it for its devices. Order: cuda, hip, cpu.
std::vector<BackendInfo> probeBackends();

// The first available of cuda, hip, cpu.
std::string bestBackend(const std::vector<BackendInfo>& backends);

}  // namespace opevo
