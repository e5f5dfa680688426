#include "codegen/device_limits.h"

#include <cctype>
#include <map>

namespace opevo::codegen {

DeviceLimits nominalLimits(std::string_view arch) {
  DeviceLimits l;
  l.arch = std::string(arch);
  if (arch.rfind("gfx", 0) == 0) {
    l.maxSharedBytesPerBlock = 64 * 1024;
    l.registersPerBlock = 0;  // VGPRs are per lane and wave occupancy, not a per-block pool
    l.maxLocalBytesPerThread = 131056;
    l.maxBlockZ = 1024;
    return l;
  }
  // Opt-in maximum of dynamic shared memory per block, in KiB, by compute capability.
  static const std::map<int, std::int64_t> sharedKiB = {
      {70, 96},  {72, 96},   {75, 64},   {80, 163},  {86, 99},  {87, 163}, {89, 99},
      {90, 227}, {100, 227}, {103, 227}, {110, 227}, {120, 99}, {121, 99}};
  std::size_t digits = 0;
  const std::size_t at = arch.find('_');
  if (at == std::string_view::npos) return l;
  int cc = 0;
  for (std::size_t i = at + 1; i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i]));
       ++i, ++digits)
    cc = cc * 10 + (arch[i] - '0');
  if (auto it = sharedKiB.find(cc); digits > 0 && it != sharedKiB.end())
    l.maxSharedBytesPerBlock = it->second * 1024;
  return l;
}

std::vector<std::string> checkLaunch(const LaunchConfig& launch, const KernelResources* resources,
                                     const DeviceLimits& limits) {
  std::vector<std::string> problems;
  const std::string on = limits.arch.empty() ? "the device" : limits.arch;
  const std::int64_t threads = launch.block.volume();
  if (threads > limits.maxThreadsPerBlock)
    problems.push_back(std::to_string(threads) + " threads per block, " + on + " allows " +
                       std::to_string(limits.maxThreadsPerBlock));
  if (launch.block.x > limits.maxBlockX || launch.block.y > limits.maxBlockY ||
      launch.block.z > limits.maxBlockZ)
    problems.push_back("block (" + std::to_string(launch.block.x) + ", " +
                       std::to_string(launch.block.y) + ", " + std::to_string(launch.block.z) +
                       ") exceeds " + on + "'s block limits (" + std::to_string(limits.maxBlockX) +
                       ", " + std::to_string(limits.maxBlockY) + ", " +
                       std::to_string(limits.maxBlockZ) + ")");
  if (launch.sharedBytes > limits.maxSharedBytesPerBlock)
    problems.push_back("needs " + std::to_string(launch.sharedBytes) +
                       " bytes of shared memory per block, " + on + " allows " +
                       std::to_string(limits.maxSharedBytesPerBlock));
  if (launch.grid.x > limits.maxGridX || launch.grid.y > limits.maxGridY ||
      launch.grid.z > limits.maxGridZ)
    problems.push_back("grid (" + std::to_string(launch.grid.x) + ", " +
                       std::to_string(launch.grid.y) + ", " + std::to_string(launch.grid.z) +
                       ") exceeds " + on + "'s grid limits");
  if (resources && resources->registers && limits.registersPerBlock > 0 &&
      *resources->registers * threads > limits.registersPerBlock)
    problems.push_back(std::to_string(*resources->registers) + " registers x " +
                       std::to_string(threads) + " threads exceed the " +
                       std::to_string(limits.registersPerBlock) + " registers of a block");
  if (resources && resources->localBytes && *resources->localBytes > limits.maxLocalBytesPerThread)
    problems.push_back(std::to_string(*resources->localBytes) +
                       " bytes of local memory per thread, " + on + " allows " +
                       std::to_string(limits.maxLocalBytesPerThread));
  return problems;
}

}  // namespace opevo::codegen
