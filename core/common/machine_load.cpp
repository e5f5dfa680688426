#include "common/machine_load.h"

#include <cstdio>
#include <fstream>
#include <thread>

namespace opevo {

std::optional<double> loadPerCore() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  const unsigned cores = std::thread::hardware_concurrency();
  if (!(in >> load) || cores == 0) return std::nullopt;
  return load / cores;
}

std::string busyMachineNote() {
  const std::optional<double> perCore = loadPerCore();
  if (!perCore || *perCore <= 1.0) return {};
  const unsigned cores = std::thread::hardware_concurrency();
  char text[256];
  std::snprintf(text, sizeof text,
                "this machine looks busy (load average %.1f over the last minute on %u cores): "
                "CPU timings wait for other processes and can read many times too slow",
                *perCore * cores, cores);
  return text;
}

}  // namespace opevo
