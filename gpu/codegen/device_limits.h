#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/compile_result.h"
#include "codegen/kernel_codegen.h"

namespace opevo::codegen {

// What one block may use on a device. The measurement backends read these from the device;
// nominalLimits gives the documented values of an architecture for checks made without one.
struct DeviceLimits {
  std::string arch;
  std::int64_t maxThreadsPerBlock = 1024;
  std::int64_t maxSharedBytesPerBlock = 48 * 1024;   // with the opt-in above 48 KiB on CUDA
  std::int64_t registersPerBlock = 65536;            // 0: not checked
  std::int64_t maxLocalBytesPerThread = 512 * 1024;  // stack frame / scratch
  std::int64_t maxGridX = 2147483647, maxGridY = 65535, maxGridZ = 65535;
  // Threads along each axis of a block: CUDA allows only 64 along z (a block of 1 x 9 x 96
  // threads launches with "invalid argument" although 864 threads fit); AMD allows 1024.
  std::int64_t maxBlockX = 1024, maxBlockY = 1024, maxBlockZ = 64;
};

// Documented limits of sm_70 ... sm_120 (CUDA Programming Guide, compute capabilities table) and
// of AMD gfx* targets (64 KiB of LDS per workgroup; hiprtc itself refuses stack frames above
// 128 KiB). Unknown architectures get the conservative
// defaults above.
DeviceLimits nominalLimits(std::string_view arch);

// One message per limit the launch would break, e.g. "needs 98304 bytes of shared memory per
// block, sm_75 allows 65536"; resources (may be null) adds the register and local memory
// checks. Empty: it fits.
std::vector<std::string> checkLaunch(const LaunchConfig& launch, const KernelResources* resources,
                                     const DeviceLimits& limits);

}  // namespace opevo::codegen
